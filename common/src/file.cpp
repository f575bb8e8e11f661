// SPDX-License-Identifier: Apache-2.0
// read_text_file: open without blocking, check what was opened, read up to a bound.
#include "switchyard/common/file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <utility>
#include <vector>

#include "switchyard/common/strings.hpp"

namespace switchyard {

std::string file_kind(unsigned mode) {
    const auto m = static_cast<mode_t>(mode);
    if (S_ISDIR(m)) {
        return "a directory";
    }
    if (S_ISFIFO(m)) {
        return "a FIFO";
    }
    if (S_ISLNK(m)) {
        return "a symbolic link";
    }
    if (S_ISCHR(m) || S_ISBLK(m)) {
        return "a device";
    }
    if (S_ISSOCK(m)) {
        return "a socket";
    }
    return "not a regular file";
}

std::string file_mode_text(unsigned mode) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "%04o", mode & 07777U);
    return buf;
}

namespace {

/// As root, `st` (of `path`) must be owned by root and writable by nobody else.
Result<void> root_may_trust(const std::string& path, const struct stat& st) {
    if (geteuid() == 0 && (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0)) {
        return fail(Error::io("refusing '" + path + "' (owner uid " + std::to_string(st.st_uid) +
                              ", mode " + file_mode_text(st.st_mode) +
                              "): running as root, it must be owned by root and writable by no "
                              "one else"));
    }
    return {};
}

}  // namespace

Result<void> check_trusted_when_root(const std::string& path) {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) {
        return fail(Error::io("cannot use '" + path + "': " + std::strerror(errno)));
    }
    if (!S_ISREG(st.st_mode)) {
        return fail(Error::io("cannot use '" + path + "': it is " + file_kind(st.st_mode) +
                              "; expected a regular file"));
    }
    if (auto t = root_may_trust(path, st); !t) {
        return t;
    }
    // The directory too: whoever can write it can put another file in this one's place.
    const auto dir = std::filesystem::path(path).parent_path().string();
    struct stat dst {};
    if (!dir.empty() && stat(dir.c_str(), &dst) == 0) {
        return root_may_trust(dir, dst);
    }
    return {};
}

Result<int> open_input_dir(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        return fail(Error::io("cannot open directory '" + path + "': " + std::strerror(errno)));
    }
    struct stat st {};
    if (fstat(fd, &st) != 0) {
        const auto why = std::string(std::strerror(errno));
        close(fd);
        return fail(Error::io("cannot open directory '" + path + "': " + why));
    }
    if (auto t = root_may_trust(path, st); !t) {
        close(fd);
        return fail(t.error());
    }
    return fd;
}

namespace {

/// One read(2) or pread(2) (at `offset` when given), again on EINTR: bytes read, 0 at the end,
/// or Error::io naming `path`.
Result<std::size_t> read_some(int fd,
                              char* into,
                              std::size_t length,
                              std::optional<std::uint64_t> offset,
                              const std::string& path) {
    while (true) {
        const auto n =
            offset ? pread(fd, into, length, static_cast<off_t>(*offset)) : read(fd, into, length);
        if (n >= 0) {
            return static_cast<std::size_t>(n);
        }
        if (errno != EINTR) {
            return fail(Error::io("error while reading '" + path + "': " + std::strerror(errno)));
        }
    }
}

}  // namespace

Result<InputFile> InputFile::open(const std::string& path, const ReadRules& rules) {
    return open_at(AT_FDCWD, path, path, rules);
}

Result<InputFile> InputFile::open_at(int dir_fd,
                                     const std::string& name,
                                     const std::string& path,
                                     const ReadRules& rules) {
    const int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | (rules.follow_links ? 0 : O_NOFOLLOW);
    const int fd = ::openat(dir_fd, name.c_str(), flags);
    if (fd < 0) {
        if (errno == ELOOP && !rules.follow_links) {
            return fail(Error::io("cannot read '" + path +
                                  "': it is a symbolic link; expected a regular file"));
        }
        return fail(Error::io("cannot read '" + path + "': " + std::strerror(errno)));
    }
    return checked(fd, path, rules);
}

Result<InputFile> InputFile::checked(int fd, const std::string& path, const ReadRules& rules) {
    InputFile file(fd, path, 0, rules.max_bytes);  // closes fd on every return below
    struct stat st {};
    if (fstat(fd, &st) != 0) {
        return fail(Error::io("cannot read '" + path + "': " + std::strerror(errno)));
    }
    if (!S_ISREG(st.st_mode)) {
        return fail(Error::io("cannot read '" + path + "': it is " + file_kind(st.st_mode) +
                              "; expected a regular file"));
    }
    if (rules.trusted_when_root) {
        if (auto t = root_may_trust(path, st); !t) {
            return fail(t.error());
        }
    }
    if (static_cast<std::size_t>(st.st_size) > rules.max_bytes) {
        return fail(Error::io("cannot read '" + path + "': " + std::to_string(st.st_size) +
                              " bytes, more than the " + std::to_string(rules.max_bytes) +
                              " allowed"));
    }
    file.size_ = static_cast<std::uint64_t>(st.st_size);
    return file;
}

InputFile::InputFile(InputFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      path_(std::move(other.path_)),
      size_(other.size_),
      max_bytes_(other.max_bytes_) {}

InputFile& InputFile::operator=(InputFile&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) {
            close(fd_);
        }
        fd_ = std::exchange(other.fd_, -1);
        path_ = std::move(other.path_);
        size_ = other.size_;
        max_bytes_ = other.max_bytes_;
    }
    return *this;
}

InputFile::~InputFile() {
    if (fd_ >= 0) {
        close(fd_);
    }
}

Result<std::string> InputFile::read_at(std::uint64_t offset, std::size_t length) const {
    std::string data(length, '\0');
    std::size_t got = 0;
    while (got < length) {
        const auto n = read_some(fd_, data.data() + got, length - got, offset + got, path_);
        if (!n) {
            return fail(n.error());
        }
        if (*n == 0) {
            break;
        }
        got += *n;
    }
    data.resize(got);
    return data;
}

Result<std::string> InputFile::read_all() const {
    // One read when the size is known; /proc files say 0 and are read to their end.
    std::string data;
    data.resize(size_ > 0 ? static_cast<std::size_t>(size_) : 4096);
    std::size_t got = 0;
    while (true) {
        if (got == data.size()) {
            // A file whose size was known is usually complete now: ask for one byte before
            // doubling the buffer (doubling first made a 300 MB file cost 600 MB).
            if (size_ > 0 && got == size_) {
                char probe = 0;
                const auto more = read(fd_, &probe, 1);
                if (more == 0) {
                    break;
                }
                if (more == 1) {  // the file grew while being read: go on
                    data.push_back(probe);
                    ++got;
                    continue;
                }
            }
            if (data.size() >= max_bytes_) {
                char probe = 0;  // at the bound: only the end of the file is still allowed
                const auto more = read(fd_, &probe, 1);
                if (more == 0) {
                    break;
                }
                return fail(Error::io("cannot read '" + path_ + "': more than the " +
                                      std::to_string(max_bytes_) + " bytes allowed"));
            }
            data.resize(std::min(max_bytes_, data.size() * 2));
        }
        const auto n = read_some(fd_, data.data() + got, data.size() - got, std::nullopt, path_);
        if (!n) {
            return fail(n.error());
        }
        if (*n == 0) {
            break;
        }
        got += *n;
    }
    data.resize(got);
    return data;
}

Result<std::string> read_text_file(const std::string& path, const ReadRules& rules) {
    auto file = InputFile::open(path, rules);
    if (!file) {
        return fail(file.error());
    }
    return file->read_all();
}

std::optional<std::string> read_first_line(const std::string& path) {
    auto text = read_text_file(path, {4096, false});
    if (!text || text->empty()) {
        return std::nullopt;
    }
    return std::string(trim(std::string_view(*text).substr(0, text->find('\n'))));
}

std::uint64_t content_digest(std::string_view bytes) {
    // One lane of the xxHash64 round over 8-byte little-endian words, then its avalanche.
    constexpr std::uint64_t p1 = 0x9E3779B185EBCA87ULL;
    constexpr std::uint64_t p2 = 0xC2B2AE3D27D4EB4FULL;
    constexpr std::uint64_t p3 = 0x165667B19E3779F9ULL;
    const auto rotl = [](std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); };
    std::uint64_t h = p3 + bytes.size() * p1;
    std::size_t i = 0;
    const auto round = [&](std::uint64_t w) {
        w *= p2;
        w = rotl(w, 31) * p1;
        h = rotl(h ^ w, 27) * p1 + p3;
    };
    for (; i + 8 <= bytes.size(); i += 8) {
        std::uint64_t w = 0;
        std::memcpy(&w, bytes.data() + i, sizeof w);
        if constexpr (std::endian::native == std::endian::big) {  // the same digest on every host
            w = __builtin_bswap64(w);
        }
        round(w);
    }
    std::uint64_t tail = 0;
    for (std::size_t b = bytes.size(); b > i; --b) {
        tail = (tail << 8) | static_cast<unsigned char>(bytes[b - 1]);
    }
    round(tail);
    h ^= h >> 33;
    h *= p2;
    h ^= h >> 29;
    h *= p3;
    h ^= h >> 32;
    return h;
}

std::string parent_directory(const std::string& path) {
    auto dir = std::filesystem::path(path).parent_path().string();
    return dir.empty() ? "." : dir;
}

Result<void> replace_file(const std::string& path, std::string_view content, unsigned mode) {
    const auto dir = parent_directory(path);
    std::string tmpl = dir + "/.switchyard-XXXXXX";
    std::vector<char> name(tmpl.begin(), tmpl.end());
    name.push_back('\0');
    const int fd = mkostemp(name.data(), O_CLOEXEC);
    if (fd < 0) {
        return fail(Error::io("cannot create a file in " + dir + " to replace " + path + ": " +
                              std::strerror(errno)));
    }
    const std::string tmp(name.data());
    bool ok = fchmod(fd, static_cast<mode_t>(mode)) == 0;
    for (std::size_t done = 0; ok && done < content.size();) {
        const auto n = write(fd, content.data() + done, content.size() - done);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        ok = n > 0;
        done += ok ? static_cast<std::size_t>(n) : 0;
    }
    int err = ok ? 0 : errno;
    if (close(fd) != 0 && ok) {
        ok = false;
        err = errno;
    }
    if (ok && std::rename(tmp.c_str(), path.c_str()) != 0) {
        ok = false;
        err = errno;
    }
    if (!ok) {
        unlink(tmp.c_str());
        return fail(Error::io("cannot replace " + path + ": " + std::strerror(err)));
    }
    return {};
}

Result<void> write_file_atomic(const std::string& path, std::string_view content) {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    return replace_file(path, content, 0666U & ~static_cast<unsigned>(mask));
}

}  // namespace switchyard
