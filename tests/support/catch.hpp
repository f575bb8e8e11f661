// SPDX-License-Identifier: Apache-2.0
// The one include of Catch2 for the tests: v2 (Debian 12) or v3 (Debian 13, where the 24.11 tests
// build). v3 split the single header and moved Approx into the Catch namespace.
#pragma once

#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
using Catch::Approx;
#else
#include <catch2/catch.hpp>
#endif
