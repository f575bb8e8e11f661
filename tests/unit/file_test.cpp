// SPDX-License-Identifier: Apache-2.0
// read_text_file: regular files, files that report no size (/proc), missing files, what is
// not a file, bounds, and the owner rule for files that steer root.
#include "switchyard/common/file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

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

TEST_CASE("file: read_first_line reads a sysfs attribute, bounded, and nothing else", "[file]") {
    using switchyard::read_first_line;
    switchyard::test::FakeSysfs fs;
    const auto p = (fs.root() / "state").string();
    std::ofstream(p) << "  4: ACTIVE \nsecond line\n";
    CHECK(read_first_line(p) == "4: ACTIVE");
    std::ofstream(p, std::ios::trunc) << std::string(4096, 'x');
    CHECK(read_first_line(p) == std::string(4096, 'x'));  // exactly the bound
    std::ofstream(p, std::ios::trunc) << std::string(4097, 'x');
    CHECK_FALSE(read_first_line(p));  // above it
    std::ofstream(p, std::ios::trunc).flush();
    CHECK_FALSE(read_first_line(p));  // empty
    CHECK_FALSE(read_first_line((fs.root() / "missing").string()));
    CHECK_FALSE(read_first_line(fs.root().string()));  // a directory
    const auto fifo = (fs.root() / "fifo").string();
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    CHECK_FALSE(read_first_line(fifo));  // at once: no writer is waited for
    CHECK(read_first_line("/proc/sys/kernel/ostype") == "Linux");  // reports no size
}

TEST_CASE("file: a missing file is named", "[file]") {
    const auto r = read_text_file("/nonexistent/switchyard.yaml");
    REQUIRE_FALSE(r);
    CHECK(r.error().message() ==
          "cannot read '/nonexistent/switchyard.yaml': No such file or directory");
}

TEST_CASE("file: directories, FIFOs and devices are refused by name, at once", "[file]") {
    switchyard::test::FakeSysfs fs;
    const auto fifo = (fs.root() / "fifo").string();
    REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);  // no writer: a blocking open would hang
    const std::pair<std::string, const char*> cases[] = {
        {fs.root().string(), "it is a directory; expected a regular file"},
        {fifo, "it is a FIFO; expected a regular file"},
        {"/dev/zero", "it is a device; expected a regular file"},  // used to grow without end
    };
    for (const auto& [path, why] : cases) {
        INFO(path);
        const auto r = read_text_file(path);
        REQUIRE_FALSE(r);
        CHECK(r.error().message() == "cannot read '" + path + "': " + why);
    }
}

TEST_CASE("file: a file above the bound is refused before it is read", "[file]") {
    switchyard::test::FakeSysfs fs;
    const auto p = (fs.root() / "big").string();
    std::ofstream(p) << std::string(100, 'x');
    const auto r = read_text_file(p, {10, false});
    REQUIRE_FALSE(r);
    CHECK(r.error().message() == "cannot read '" + p + "': 100 bytes, more than the 10 allowed");
    CHECK(read_text_file(p, {100, false})->size() == 100);
}

TEST_CASE("file: as root, files that steer root are trusted only from root", "[file]") {
    switchyard::test::FakeSysfs fs;
    const auto p = (fs.root() / "switchyard.yaml").string();
    std::ofstream(p) << "version: 1\n";
    chmod(p.c_str(), 0644);
    const switchyard::ReadRules trusted{1 << 20, true};
    if (geteuid() != 0) {
        WARN("not root: the rule applies to root only and was not exercised");
        CHECK(read_text_file(p, trusted));
        return;
    }
    CHECK(read_text_file(p, trusted));
    chmod(p.c_str(), 0664);
    auto r = read_text_file(p, trusted);
    REQUIRE_FALSE(r);
    CHECK(r.error().message() == "refusing '" + p +
                                     "' (owner uid 0, mode 0664): running as root, it must be "
                                     "owned by root and writable by no one else");
    chmod(p.c_str(), 0644);
    REQUIRE(chown(p.c_str(), 65534, 65534) == 0);
    r = read_text_file(p, trusted);
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message(), Catch::Contains("(owner uid 65534, mode 0644)"));
    CHECK(read_text_file(p));  // data files (an ibnetdiscover dump) have no owner rule
}

TEST_CASE("file: replace_file swaps the whole file, replaces a link and leaves no temporary",
          "[file]") {
    switchyard::test::FakeSysfs fs;
    const auto dir = fs.root();
    const auto target = (dir / "victim").string();
    std::ofstream(target) << "precious\n";
    const auto out = (dir / "topology.conf").string();
    // A link planted at the output name (the old predictable "<out>.tmp.<pid>" was the same
    // risk): the link itself is replaced; its target is untouched.
    REQUIRE(symlink(target.c_str(), out.c_str()) == 0);
    REQUIRE(switchyard::replace_file(out, "SwitchName=s1\n", 0640));
    CHECK(*read_text_file(target) == "precious\n");
    CHECK(*read_text_file(out) == "SwitchName=s1\n");
    struct stat st {};
    REQUIRE(lstat(out.c_str(), &st) == 0);
    CHECK(S_ISREG(st.st_mode));
    CHECK((st.st_mode & 07777) == 0640);
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) {
        ++entries;
    }
    CHECK(entries == 2);  // victim and topology.conf, no temporary left
    const auto r = switchyard::replace_file((dir / "no-such-dir" / "x").string(), "x", 0644);
    REQUIRE_FALSE(r);
    CHECK(r.error().message().find("no-such-dir") != std::string::npos);
}
