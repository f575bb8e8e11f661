// SPDX-License-Identifier: Apache-2.0
// Inputs of the commands: bounded reads, mapped dumps, directories in name order, ordered work.
#include "switchyard/common/input.hpp"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <system_error>
#include <thread>

namespace switchyard {

Result<std::string> read_input(const std::string& path, const ReadRules& rules) {
    if (path == "-") {  // read up to the same bound as a file
        std::string data;
        char buf[1 << 16];
        while (std::cin.read(buf, sizeof buf) || std::cin.gcount() > 0) {
            data.append(buf, static_cast<std::size_t>(std::cin.gcount()));
            if (data.size() > rules.max_bytes) {
                return fail(Error::io("standard input: more than the " +
                                      std::to_string(rules.max_bytes) + " bytes allowed"));
            }
        }
        return data;
    }
    return read_text_file(path, rules);
}

namespace {

// The file SIGBUS names: written before the mapping exists, read by the handler only.
char g_mapped_path[512];

extern "C" void on_mapped_file_shrunk(int /*signal*/) {
    // Async-signal-safe: write(2) and _exit(2) only.
    constexpr std::string_view kHead = "switchyard: '";
    constexpr std::string_view kTail =
        "' shrank while it was read (another program truncated or rewrote it in place); "
        "nothing written\n";
    (void)!::write(STDERR_FILENO, kHead.data(), kHead.size());
    (void)!::write(STDERR_FILENO, g_mapped_path, std::strlen(g_mapped_path));
    (void)!::write(STDERR_FILENO, kTail.data(), kTail.size());
    ::_exit(1);  // the commands' exit code for a problem
}

}  // namespace

Result<InputText> InputText::open(const std::string& path, const ReadRules& rules) {
    InputText in;
    if (path == "-") {
        auto data = read_input(path, rules);
        if (!data) {
            return fail(data.error());
        }
        in.owned_ = std::move(*data);
        return in;
    }
    auto file = InputFile::open(path, rules);
    if (!file) {
        return fail(file.error());
    }
    const auto size = static_cast<std::size_t>(file->size());
    void* map = MAP_FAILED;
    if (size > 0) {  // a /proc file says 0: it is read
        std::snprintf(g_mapped_path, sizeof g_mapped_path, "%s", path.c_str());
        struct sigaction sa {};
        sa.sa_handler = on_mapped_file_shrunk;
        sigemptyset(&sa.sa_mask);
        if (sigaction(SIGBUS, &sa, nullptr) == 0) {
            map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, file->descriptor(), 0);
        }
    }
    if (map == MAP_FAILED) {  // or a file system that cannot map it: read it
        auto data = file->read_all();
        if (!data) {
            return fail(data.error());
        }
        in.owned_ = std::move(*data);
        return in;
    }
    in.map_ = map;
    in.size_ = size;
    return in;
}

InputText::InputText(InputText&& other) noexcept
    : owned_(std::move(other.owned_)),
      map_(std::exchange(other.map_, nullptr)),
      size_(std::exchange(other.size_, 0)) {}

InputText& InputText::operator=(InputText&& other) noexcept {
    if (this != &other) {
        if (map_ != nullptr) {
            ::munmap(map_, size_);
        }
        owned_ = std::move(other.owned_);
        map_ = std::exchange(other.map_, nullptr);
        size_ = std::exchange(other.size_, 0);
    }
    return *this;
}

InputText::~InputText() {
    if (map_ != nullptr) {
        ::munmap(map_, size_);
    }
}

Result<std::vector<std::string>> list_dir_files(const std::string& dir,
                                                const std::string& option,
                                                std::string_view extension,
                                                std::string_view what,
                                                std::size_t max_files) {
    std::error_code ec;
    std::filesystem::directory_iterator it(dir, ec);
    if (ec) {
        return fail(Error::io(option + " " + dir + ": " + ec.message() +
                              "; expected a directory of " + std::string(what)));
    }
    std::vector<std::string> paths;
    for (const auto& e : it) {
        const auto name = e.path().filename().string();
        if (name.starts_with('.') || (!extension.empty() && e.path().extension() != extension)) {
            continue;
        }
        if (paths.size() == max_files) {
            return fail(Error::invalid_argument(option + " " + dir + ": more than " +
                                                std::to_string(max_files) + " files"));
        }
        paths.push_back(e.path().string());
    }
    std::sort(paths.begin(), paths.end());
    return paths;
}

Result<void> for_each_dir_file(
    const std::string& dir,
    const std::string& option,
    std::string_view extension,
    std::string_view what,
    std::size_t max_files,
    const std::function<Result<void>(const std::string&, std::string&&)>& fn) {
    auto paths = list_dir_files(dir, option, extension, what, max_files);
    if (!paths) {
        return fail(paths.error());
    }
    for (const auto& p : *paths) {
        auto text = read_input(p, kSmallInput);
        if (!text) {
            return fail(text.error());
        }
        if (auto ok = fn(p, std::move(*text)); !ok) {
            return ok;
        }
    }
    return {};
}

Result<void> ordered_pipeline(std::size_t n,
                              unsigned threads,
                              std::size_t window,
                              const std::function<void(std::size_t)>& work,
                              const std::function<Result<void>(std::size_t)>& then) {
    window = std::max<std::size_t>(window, 1);
    std::mutex m;
    std::condition_variable cv;
    std::vector<bool> done(window, false);  // work(i) returned, for i % window
    std::size_t next = 0;                   // the next index to work
    std::size_t consumed = 0;               // indexes through `then`
    bool stop = false;
    std::exception_ptr thrown;
    // Claims the next index to work, if the window has room; under the lock.
    auto claim = [&](std::size_t& i) {
        if (stop || next == n || next >= consumed + window) {
            return false;
        }
        i = next++;
        return true;
    };
    auto run = [&](std::unique_lock<std::mutex>& lock, std::size_t i) {
        lock.unlock();
        std::exception_ptr e;
        try {
            work(i);
        } catch (...) {
            e = std::current_exception();
        }
        lock.lock();
        done[i % window] = true;
        if (e && !thrown) {
            thrown = e;
            stop = true;
        }
        cv.notify_all();
    };
    std::vector<std::thread> pool;
    const auto helpers = std::min<std::size_t>(threads > 1 ? threads - 1 : 0, n);
    for (std::size_t t = 0; t < helpers; ++t) {
        try {
            pool.emplace_back([&] {
                std::unique_lock lock(m);
                for (;;) {
                    cv.wait(lock, [&] { return stop || next == n || next < consumed + window; });
                    std::size_t i = 0;
                    if (!claim(i)) {
                        return;  // stopped, or every index taken
                    }
                    run(lock, i);
                }
            });
        } catch (const std::system_error&) {
            break;  // no more threads to be had: the caller's does the rest
        }
    }
    Result<void> out;
    {
        std::unique_lock lock(m);
        while (!stop && consumed < n) {
            if (done[consumed % window]) {
                done[consumed % window] = false;
                lock.unlock();
                std::exception_ptr e;
                try {
                    out = then(consumed);
                } catch (...) {
                    e = std::current_exception();  // thrown again once the helpers stopped
                }
                lock.lock();
                ++consumed;
                if (e && !thrown) {
                    thrown = e;
                }
                stop = !out || thrown;
                cv.notify_all();
                continue;
            }
            std::size_t i = 0;
            if (claim(i)) {  // its own turn at the work while the next result is not there
                run(lock, i);
            } else {
                cv.wait(lock);
            }
        }
        stop = true;
        cv.notify_all();
    }
    for (auto& t : pool) {
        t.join();
    }
    if (thrown) {
        std::rethrow_exception(thrown);
    }
    return out;
}

}  // namespace switchyard
