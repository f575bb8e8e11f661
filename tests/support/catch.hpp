// SPDX-License-Identifier: Apache-2.0
// The one include of Catch2 for the tests (v2 from Debian 12 today; v3 later needs only this file).
#pragma once

#include <catch2/catch.hpp>
