// SPDX-License-Identifier: Apache-2.0
// Tests of the commands' inputs (common/input.hpp): the bytes of a mapped file, a clean end with
// a message, not a crash, when another program shrinks the file while it is mapped, and work on
// several threads handed over in order.
#include "switchyard/common/input.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "catch.hpp"

using switchyard::InputText;

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

TEST_CASE("input: InputText maps a file and reads an empty one", "[input]") {
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

TEST_CASE("input: a file shrunk while mapped ends the command with a message, not a crash",
          "[input]") {
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

TEST_CASE("input: ordered_pipeline hands results over in order, whatever the threads", "[input]") {
    using switchyard::ordered_pipeline;
    for (const unsigned threads : {1U, 2U, 4U}) {
        constexpr std::size_t kWindow = 8;
        std::vector<std::size_t> slot(kWindow);
        std::vector<std::size_t> seen;
        std::atomic<std::size_t> on_caller{0};
        const auto caller = std::this_thread::get_id();
        auto ok = ordered_pipeline(
            1000, threads, kWindow,
            [&](std::size_t i) {
                if (std::this_thread::get_id() == caller) {
                    ++on_caller;
                }
                if (i % 7 == 0) {  // some work slower than the rest: results arrive out of order
                    std::this_thread::sleep_for(std::chrono::microseconds(50));
                }
                slot[i % kWindow] = i * i;
            },
            [&](std::size_t i) -> switchyard::Result<void> {
                CHECK(slot[i % kWindow] == i * i);
                seen.push_back(i);
                return {};
            });
        REQUIRE(ok);
        REQUIRE(seen.size() == 1000);
        for (std::size_t i = 0; i < seen.size(); ++i) {
            REQUIRE(seen[i] == i);
        }
        if (threads == 1) {
            CHECK(on_caller == 1000);  // no thread of its own
        }
    }
    auto none = ordered_pipeline(
        0, 4, 8, [](std::size_t) { FAIL("no work"); },
        [](std::size_t) -> switchyard::Result<void> {
            FAIL("nothing to hand over");
            return {};
        });
    CHECK(none);
}

TEST_CASE("input: ordered_pipeline stops at the first failure and passes exceptions on",
          "[input]") {
    using switchyard::ordered_pipeline;
    constexpr std::size_t kWindow = 4;
    std::atomic<std::size_t> worked{0};
    std::size_t handed = 0;
    auto r = ordered_pipeline(
        1000, 3, kWindow, [&](std::size_t) { ++worked; },
        [&](std::size_t i) -> switchyard::Result<void> {
            ++handed;
            if (i == 10) {
                return switchyard::fail(switchyard::Error::parse({"file10", 3, 1}, "bad"));
            }
            return {};
        });
    REQUIRE_FALSE(r);
    CHECK(r.error().to_string().find("file10:3:1") != std::string::npos);
    CHECK(handed == 11);
    CHECK(worked <= 11 + kWindow);  // nothing beyond the window was started
    CHECK_THROWS_AS(ordered_pipeline(
                        100, 2, kWindow,
                        [](std::size_t i) {
                            if (i == 5) {
                                throw std::runtime_error("work 5");
                            }
                        },
                        [](std::size_t) -> switchyard::Result<void> { return {}; }),
                    std::runtime_error);
    CHECK_THROWS_AS(ordered_pipeline(
                        100, 2, kWindow, [](std::size_t) {},
                        [](std::size_t i) -> switchyard::Result<void> {
                            if (i == 50) {
                                throw std::length_error("then 50");
                            }
                            return {};
                        }),
                    std::length_error);
}
