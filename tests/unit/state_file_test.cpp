// SPDX-License-Identifier: Apache-2.0
// Root-owned state files against what any local user can plant: links, FIFOs, directories,
// files of another owner or mode, and predictable names.
#include "switchyard/common/state_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "catch.hpp"

using namespace switchyard;
namespace fs = std::filesystem;

namespace {

struct Dir {
    fs::path path;
    Dir() : path(fs::temp_directory_path() / ("switchyard-state-" + std::to_string(getpid()))) {
        fs::remove_all(path);
        fs::create_directory(path);
        chmod(path.c_str(), 0700);
    }
    ~Dir() { fs::remove_all(path); }
    [[nodiscard]] std::string at(const char* name) const { return (path / name).string(); }
};

std::string slurp(const std::string& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace

TEST_CASE("state file: a private file round-trips, a missing one reads empty", "[state-file]") {
    Dir d;
    CHECK(*read_owned_file(d.at("s")) == "");
    REQUIRE(replace_owned_file(d.at("s"), "a 1\nb 2\n"));
    CHECK(*read_owned_file(d.at("s")) == "a 1\nb 2\n");
    struct stat st {};
    REQUIRE(stat(d.at("s").c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
}

TEST_CASE("state file: planted files are not trusted, and say why", "[state-file]") {
    Dir d;
    const std::string victim = d.at("victim");
    std::ofstream(victim) << "precious\n";
    chmod(victim.c_str(), 0600);
    symlink(victim.c_str(), d.at("link").c_str());
    mkfifo(d.at("fifo").c_str(), 0600);
    fs::create_directory(d.at("dir"));
    std::ofstream(d.at("open")) << "x 0\n";
    chmod(d.at("open").c_str(), 0666);
    struct Case {
        const char* name;
        const char* why;
    };
    const Case cases[] = {{"link", "is a symbolic link"},
                          {"fifo", "is a FIFO"},  // O_NONBLOCK: no hang waiting for a writer
                          {"dir", "is a directory"},
                          {"open", "writable by others (mode 0666)"}};
    for (const auto& c : cases) {
        INFO(c.name);
        auto r = read_owned_file(d.at(c.name));
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().message(), Catch::Contains(c.why));
        CHECK_THAT(r.error().message(), Catch::Contains(d.at(c.name)));
    }
    if (geteuid() == 0) {  // another owner needs root to make; CI runs as root
        std::ofstream(d.at("theirs")) << "n9 1796463999\n";
        chmod(d.at("theirs").c_str(), 0600);
        REQUIRE(chown(d.at("theirs").c_str(), 65534, 65534) == 0);
        auto r = read_owned_file(d.at("theirs"));
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().message(), Catch::Contains("owned by uid 65534, not 0"));
    } else {
        WARN("not root: the other-owner case needs chown and was not run");
    }
    // Replacing through a link rewrites the link, never the file it points at.
    REQUIRE(replace_owned_file(d.at("link"), "mine\n"));
    CHECK(slurp(victim) == "precious\n");
    CHECK(*read_owned_file(d.at("link")) == "mine\n");
    // A FIFO at a lock's place is replaced by a private file.
    auto fd = open_owned_lock(d.at("fifo"));
    REQUIRE(fd);
    struct stat st {};
    CHECK(fstat(*fd, &st) == 0);
    CHECK(S_ISREG(st.st_mode));
    close(*fd);
}

TEST_CASE("state file: a lock file not to be trusted that a process holds is not replaced",
          "[state-file]") {
    // Replacing it would give this caller a lock on a new file while the other process still
    // holds the old one: two installs (or two breakers) at once.
    Dir d;
    const auto path = d.at("install.lock");
    const int held = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    REQUIRE(held >= 0);
    fchmod(held, 0666);  // writable by others: not trusted
    REQUIRE(flock(held, LOCK_EX) == 0);
    auto r = open_owned_lock(path);
    REQUIRE_FALSE(r);
    CHECK(r.error().message() ==
          path +
              " is writable by others (mode 0666), and a running process holds it: not "
              "replaced while it is held; try again when that process has ended");
    struct stat st {};
    REQUIRE(stat(path.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0666);  // left as it was
    // Let go, it is replaced by a private file.
    close(held);
    auto fd = open_owned_lock(path);
    REQUIRE(fd);
    REQUIRE(fstat(*fd, &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    close(*fd);
}

TEST_CASE("state file: a directory others can write is refused", "[state-file]") {
    Dir d;
    const auto shared = d.at("shared");
    fs::create_directory(shared);
    chmod(shared.c_str(), 01777);  // like /tmp and /var/tmp
    auto r = replace_owned_file(shared + "/breaker", "x");
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message(), Catch::Contains("mode 1777) can be written by others"));
    CHECK_THAT(r.error().message(), Catch::Contains("e.g. /var/lib/switchyard"));
    // A missing last level is made private.
    REQUIRE(replace_owned_file(d.at("new") + std::string("/breaker"), "x"));
    struct stat st {};
    REQUIRE(stat(d.at("new").c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
    // A link in the directory's place is no directory.
    symlink(shared.c_str(), d.at("linkdir").c_str());
    auto l = ensure_private_dir(d.at("linkdir"));
    REQUIRE_FALSE(l);
    CHECK_THAT(l.error().message(), Catch::Contains("is a symbolic link"));
}

TEST_CASE("state file: the writability probe leaves no name behind", "[state-file]") {
    Dir d;
    REQUIRE(probe_writable(d.path.string()));
    CHECK(fs::is_empty(d.path));
    CHECK_FALSE(probe_writable(d.at("missing")));
}

TEST_CASE("state file: an oversized file is refused before it is read", "[state-file]") {
    Dir d;
    {
        std::ofstream big(d.at("big"));
        big << std::string(kMaxStateFile + 1, 'x');
    }
    chmod(d.at("big").c_str(), 0600);
    auto r = read_owned_file(d.at("big"));
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message(), Catch::Contains("more than 1048576"));
}
