// SPDX-License-Identifier: Apache-2.0
// The one include of Catch2 for the tests: v2 (Debian 12) or v3 (Debian 13, where the 24.11 tests
// build). v3 split the single header, moved Approx into the Catch namespace and renamed the
// string matcher Contains; the v2 names the tests use are given back here.
#pragma once

#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
#include <string>

using Catch::Approx;
namespace Catch {
inline Matchers::StringContainsMatcher Contains(const std::string& s) {
    return Matchers::ContainsSubstring(s);
}
using Matchers::EndsWith;
using Matchers::StartsWith;
}  // namespace Catch
#else
#include <catch2/catch.hpp>
#endif
