// SPDX-License-Identifier: Apache-2.0
// Tests of the command's mapped input (cli/io.hpp): the bytes of a file, and a clean end
// with a message, not a crash, when another program shrinks the file while it is mapped.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "catch.hpp"
#include "io.hpp"

using switchyard::cli::InputText;

namespace {

std::filesystem::path temp_file(const std::string& name, const std::string& bytes) {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("switchyard-cli-io-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const auto path = dir / name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
}

}  // namespace

TEST_CASE("cli: InputText maps a file and reads an empty one", "[cli]") {
    const std::string bytes(3 << 20, 'x');
    auto mapped = InputText::open(temp_file("big", bytes + "end").string(), {64 << 20, false});
    REQUIRE(mapped);
    CHECK(mapped->text().size() == bytes.size() + 3);
    CHECK(mapped->text().ends_with("xend"));
    auto moved = std::move(*mapped);
    CHECK(moved.text().size() == bytes.size() + 3);
    auto empty = InputText::open(temp_file("empty", "").string(), {64, false});
    REQUIRE(empty);
    CHECK(empty->text().empty());
    CHECK(InputText::open(temp_file("over", "12345").string(), {4, false}).error().message() ==
          "cannot read '" + temp_file("over", "12345").string() +
              "': 5 bytes, more than the 4 allowed");
    CHECK_FALSE(InputText::open("/nonexistent/dump.txt", {64, false}));
}

TEST_CASE("cli: a file shrunk while mapped ends the command with a message, not a crash", "[cli]") {
    const auto path = temp_file("shrinks", std::string(1 << 20, 'y')).string();
    int err[2];
    REQUIRE(::pipe(err) == 0);
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        ::dup2(err[1], STDERR_FILENO);
        auto in = InputText::open(path, {64 << 20, false});
        if (!in || ::truncate(path.c_str(), 0) != 0) {
            ::_exit(3);
        }
        volatile char last = in->text().back();  // beyond the file's end now: SIGBUS
        (void)last;
        ::_exit(4);
    }
    ::close(err[1]);
    std::string message;
    char buf[512];
    for (ssize_t n; (n = ::read(err[0], buf, sizeof buf)) > 0;) {
        message.append(buf, static_cast<std::size_t>(n));
    }
    ::close(err[0]);
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 1);
    CHECK(message == "switchyard: '" + path +
                         "' shrank while it was read (another program truncated or rewrote it "
                         "in place); nothing written\n");
}
