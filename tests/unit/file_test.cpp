// SPDX-License-Identifier: Apache-2.0
// read_text_file: regular files, files that report no size (/proc), missing files.
#include "switchyard/common/file.hpp"

#include <fstream>

#include "catch.hpp"
#include "fake_sysfs.hpp"

using switchyard::read_text_file;

TEST_CASE("file: a regular file is read whole", "[file]") {
    switchyard::test::FakeSysfs fs;
    const auto p = (fs.root() / "a.txt").string();
    std::ofstream(p) << "line 1\nline 2\n";
    CHECK(*read_text_file(p) == "line 1\nline 2\n");
    std::ofstream(p, std::ios::trunc).flush();
    CHECK(read_text_file(p)->empty());
}

TEST_CASE("file: /proc files, which report no size, are read to their end", "[file]") {
    // The prolog's memory check reads /proc/meminfo; a size-based read gave "" here.
    const auto meminfo = read_text_file("/proc/meminfo");
    REQUIRE(meminfo);
    CHECK(meminfo->starts_with("MemTotal:"));
}

TEST_CASE("file: a missing file is named", "[file]") {
    const auto r = read_text_file("/nonexistent/switchyard.yaml");
    REQUIRE_FALSE(r);
    CHECK(r.error().message() ==
          "cannot read '/nonexistent/switchyard.yaml': No such file or directory");
}
