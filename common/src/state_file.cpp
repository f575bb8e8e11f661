// SPDX-License-Identifier: Apache-2.0
// Root-owned state files: O_NOFOLLOW|O_NONBLOCK opens, fstat checks, mkstemp + rename.
#include "switchyard/common/state_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "switchyard/common/file.hpp"

namespace switchyard {
namespace {

/// Why an open file is not `owner`'s to trust, or "" when it is.
std::string untrusted(const struct stat& st, uid_t owner) {
    if (!S_ISREG(st.st_mode)) {
        return file_kind(st.st_mode);
    }
    if (st.st_uid != owner) {
        return "owned by uid " + std::to_string(st.st_uid) + ", not " + std::to_string(owner);
    }
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
        return "writable by others (mode " + file_mode_text(st.st_mode) + ")";
    }
    if (static_cast<std::size_t>(st.st_size) > kMaxStateFile) {
        return std::to_string(st.st_size) + " bytes, more than " + std::to_string(kMaxStateFile);
    }
    return "";
}

struct Fd {
    int fd = -1;
    Fd() = default;
    explicit Fd(int f) : fd(f) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() {
        if (fd >= 0) {
            close(fd);
        }
    }
    int release() {
        const int f = fd;
        fd = -1;
        return f;
    }
};

}  // namespace

Result<void> check_owned_dir(const std::string& dir, unsigned owner) {
    struct stat st {};
    if (lstat(dir.c_str(), &st) != 0) {
        return fail(Error::io(dir + ": " + std::strerror(errno)));
    }
    if (!S_ISDIR(st.st_mode)) {
        return fail(Error::io(dir + " is " + file_kind(st.st_mode) + "; expected a directory"));
    }
    if (st.st_uid != owner || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
        return fail(Error::io(dir + " (owner uid " + std::to_string(st.st_uid) + ", mode " +
                              file_mode_text(st.st_mode) + ") can be written by others than uid " +
                              std::to_string(owner)));
    }
    return {};
}

Result<void> ensure_private_dir(const std::string& dir) {
    struct stat st {};
    // Only the last level: root code never makes a path of directories a config names.
    if (lstat(dir.c_str(), &st) != 0 && errno == ENOENT && mkdir(dir.c_str(), 0700) != 0 &&
        errno != EEXIST) {
        return fail(
            Error::io("cannot create state directory " + dir + ": " + std::strerror(errno)));
    }
    if (auto c = check_owned_dir(dir, geteuid()); !c) {
        return fail(Error::io("state directory " + c.error().message() +
                              "; keep state in a directory only uid " + std::to_string(geteuid()) +
                              " can write, e.g. /var/lib/switchyard"));
    }
    return {};
}

Result<std::string> read_owned_file(const std::string& path) {
    return read_file_owned_by(path, geteuid());
}

Result<std::string> read_file_owned_by(const std::string& path, unsigned owner) {
    Fd f(open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (f.fd < 0) {
        if (errno == ENOENT) {
            return std::string();
        }
        if (errno == ELOOP) {
            return fail(Error::io(path + " is a symbolic link; not trusted"));
        }
        return fail(Error::io(path + ": " + std::strerror(errno)));
    }
    struct stat st {};
    if (fstat(f.fd, &st) != 0) {
        return fail(Error::io(path + ": " + std::strerror(errno)));
    }
    if (const auto why = untrusted(st, static_cast<uid_t>(owner)); !why.empty()) {
        return fail(Error::io(path + " is " + why + "; not trusted"));
    }
    std::string text(static_cast<std::size_t>(st.st_size), '\0');
    std::size_t got = 0;
    while (got < text.size()) {
        const auto n = read(f.fd, text.data() + got, text.size() - got);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {  // half a breaker record would undercount recent drains: name the cause
            return fail(Error::io(path + ": " + std::strerror(errno)));
        }
        if (n == 0) {
            break;
        }
        got += static_cast<std::size_t>(n);
    }
    text.resize(got);
    return text;
}

Result<void> replace_owned_file(const std::string& path, std::string_view content) {
    if (auto d = ensure_private_dir(parent_directory(path)); !d) {
        return d;
    }
    return replace_file(path, content, 0600);
}

Result<int> open_owned_lock(const std::string& path) {
    if (auto d = ensure_private_dir(parent_directory(path)); !d) {
        return fail(d.error());
    }
    for (int attempt = 0; attempt < 2; ++attempt) {
        Fd f(open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600));
        struct stat st {};
        if (f.fd >= 0 && fstat(f.fd, &st) == 0 && untrusted(st, geteuid()).empty()) {
            return f.release();
        }
        // A lock file not ours to trust that a running process holds: replacing it would let
        // this one and that one both "hold the lock" (on two files). Refuse; once it is let go,
        // it is replaced.
        if (f.fd >= 0 && flock(f.fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
            return fail(Error::io(path + " is " + untrusted(st, geteuid()) +
                                  ", and a running process holds it: not replaced while it is "
                                  "held; try again when that process has ended"));
        }
        // A link, FIFO, directory or someone else's file in its place: replace it once.
        if (attempt == 0) {
            if (auto r = replace_owned_file(path, ""); !r) {
                return fail(r.error());
            }
        }
    }
    return fail(Error::io("cannot open " + path + " as a private file"));
}

Result<void> probe_writable(const std::string& dir) {
    Fd f(open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600));
    if (f.fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
        std::string tmpl = dir + "/.switchyard-probe-XXXXXX";
        std::vector<char> name(tmpl.begin(), tmpl.end());
        name.push_back('\0');
        f.fd = mkostemp(name.data(), O_CLOEXEC);
        if (f.fd >= 0) {
            unlink(name.data());
        }
    }
    if (f.fd < 0) {
        return fail(Error::io(dir + ": " + std::strerror(errno)));
    }
    if (write(f.fd, "ok\n", 3) != 3) {
        return fail(Error::io(dir + ": " + std::strerror(errno)));
    }
    return {};
}

}  // namespace switchyard
