// SPDX-License-Identifier: Apache-2.0
// The step cache's file format and file system checks (step_cache.hpp). libc only: the front
// that links it has no C++ runtime.
#include "step_cache.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace switchyard::spank::step_cache {
namespace {

constexpr char kHex[] = "0123456789ABCDEF";

// list_line's names (the hooks run one at a time; memory of the process's, touched as used: a
// fresh allocation of this size per directory was an mmap and page faults, most of a lookup).
char g_names[256 * 1024];
char* g_list[kMaxListNames];

int hex_value(char c) {
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    return -1;
}

/// The next line of [*at, end) without its newline; advances *at past it.
bool next_line(const char** at, const char* end, Span* line) {
    if (*at >= end) {
        return false;
    }
    const auto* nl =
        static_cast<const char*>(std::memchr(*at, '\n', static_cast<std::size_t>(end - *at)));
    const char* stop = nl != nullptr ? nl : end;
    *line = {*at, static_cast<std::size_t>(stop - *at)};
    *at = nl != nullptr ? nl + 1 : end;
    return true;
}

bool starts(Span line, const char* word) {
    const std::size_t n = std::strlen(word);
    return line.len >= n && std::memcmp(line.data, word, n) == 0 &&
           (line.len == n || line.data[n] == ' ');
}

bool is(Span line, const char* word) {
    return line.len == std::strlen(word) && std::memcmp(line.data, word, line.len) == 0;
}

bool is_output(Span line) {
    return starts(line, "set") || starts(line, "gpu") || starts(line, "affinity") ||
           is(line, "end");
}

/// `path` (escaped in a line) as a C string in `out`.
bool path_of(Span field, char* out, std::size_t cap) {
    const std::size_t n = unescape(field.data, field.len, out, cap);
    return n != static_cast<std::size_t>(-1) && n > 0 && out[0] == '/';
}

/// Whether `o` now holds the same text as `line` plus a newline.
bool same_line(const Out& o, const char* line, std::size_t len) {
    return o.ok && o.len == len + 1 && std::memcmp(o.data, line, len) == 0 && o.data[len] == '\n';
}

int compare_names(const void* a, const void* b) {
    return std::strcmp(*static_cast<char* const*>(a), *static_cast<char* const*>(b));
}

/// Whether a directory may hold trusted files: ours alone (`why` set when not).
bool trusted_dir(const char* dir, Out& why) {
    struct stat st {};
    if (lstat(dir, &st) != 0) {
        why.str("cannot stat ").str(dir).str(": ").str(std::strerror(errno));
        return false;
    }
    if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
        why.str(dir)
            .str(" must be a directory of uid ")
            .num(geteuid())
            .str(" that no one else may write (it is owned by uid ")
            .num(st.st_uid)
            .str(", mode ");
        char mode[8];
        std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
        why.str(mode).str(")");
        return false;
    }
    return true;
}

/// The directory part of `path` in `out`.
bool dir_of(const char* path, char* out, std::size_t cap) {
    const char* slash = std::strrchr(path, '/');
    if (slash == nullptr) {
        return false;
    }
    const std::size_t n = slash == path ? 1 : static_cast<std::size_t>(slash - path);
    if (n >= cap) {
        return false;
    }
    std::memcpy(out, path, n);
    out[n] = '\0';
    return true;
}

}  // namespace

Out::Out(char* buffer, std::size_t size) : data(buffer), cap(size) {
    if (cap > 0) {
        data[0] = '\0';
    } else {
        ok = false;
    }
}

Out& Out::raw(const char* s, std::size_t n) {
    if (!ok || n >= cap - len) {
        ok = false;
        return *this;
    }
    std::memcpy(data + len, s, n);
    len += n;
    data[len] = '\0';
    return *this;
}

Out& Out::str(const char* s) {
    return raw(s, std::strlen(s));
}

Out& Out::num(std::uint64_t v) {
    char digits[24];
    const int n = std::snprintf(digits, sizeof digits, "%llu", static_cast<unsigned long long>(v));
    return raw(digits, static_cast<std::size_t>(n));
}

Out& Out::esc(const char* s, std::size_t n) {
    for (std::size_t i = 0; i < n && ok; ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c <= ' ' || c == '%' || c >= 0x7f) {
            const char e[3] = {'%', kHex[c >> 4], kHex[c & 15]};
            raw(e, 3);
        } else {
            raw(s + i, 1);
        }
    }
    return *this;
}

Out& Out::esc(const char* s) {
    return esc(s, std::strlen(s));
}

std::size_t unescape(const char* s, std::size_t n, char* out, std::size_t cap) {
    std::size_t k = 0;
    for (std::size_t i = 0; i < n; ++i) {
        char c = s[i];
        if (c == '%') {
            if (n - i < 3) {
                return static_cast<std::size_t>(-1);
            }
            const int a = hex_value(s[i + 1]);
            const int b = hex_value(s[i + 2]);
            if (a < 0 || b < 0) {
                return static_cast<std::size_t>(-1);
            }
            c = static_cast<char>(a * 16 + b);
            i += 2;
        }
        if (k + 1 >= cap) {
            return static_cast<std::size_t>(-1);
        }
        out[k++] = c;
    }
    if (cap == 0) {
        return static_cast<std::size_t>(-1);
    }
    out[k] = '\0';
    return k;
}

bool stat_line(Out& o, const char* path) {
    o.str("stat ").esc(path);
    struct stat st {};
    if (stat(path, &st) != 0) {
        if (errno != ENOENT && errno != ENOTDIR) {
            return false;
        }
        o.str(" -\n");
        return o.ok;
    }
    o.str(" ").num(st.st_dev).str(" ").num(st.st_ino).str(" ").num(
        static_cast<std::uint64_t>(st.st_size));
    o.str(" ")
        .num(static_cast<std::uint64_t>(st.st_mtim.tv_sec))
        .str(" ")
        .num(static_cast<std::uint64_t>(st.st_mtim.tv_nsec));
    o.str(" ")
        .num(static_cast<std::uint64_t>(st.st_ctim.tv_sec))
        .str(" ")
        .num(static_cast<std::uint64_t>(st.st_ctim.tv_nsec))
        .str("\n");
    return o.ok;
}

bool text_line(Out& o, const char* path) {
    o.str("text ").esc(path);
    const int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        if (errno != ENOENT && errno != ENOTDIR) {
            return false;
        }
        o.str(" -\n");
        return o.ok;
    }
    // One read: a sysfs attribute or a small file comes whole (a FIFO opened without blocking
    // reads as empty, a directory fails, a device's endless bytes are too many).
    char buf[kMaxText + 1];
    ssize_t n = 0;
    do {
        n = read(fd, buf, sizeof buf);
    } while (n < 0 && errno == EINTR);
    close(fd);
    if (n < 0 || static_cast<std::size_t>(n) > kMaxText) {
        return false;
    }
    const auto got = static_cast<std::size_t>(n);
    o.str(" =").esc(buf, got).str("\n");
    return o.ok;
}

bool list_line(Out& o, const char* path) {
    o.str("list ").esc(path);
    DIR* dir = opendir(path);
    if (dir == nullptr) {
        if (errno != ENOENT && errno != ENOTDIR) {
            return false;
        }
        o.str(" -\n");
        return o.ok;
    }
    char* names = g_names;
    char** list = g_list;
    constexpr std::size_t kNames = sizeof g_names;
    std::size_t used = 0;
    std::size_t count = 0;
    bool good = true;
    errno = 0;
    for (const dirent* e = nullptr; good && (e = readdir(dir)) != nullptr;) {
        if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) {
            continue;
        }
        const std::size_t n = std::strlen(e->d_name) + 1;
        if (count == kMaxListNames || n > kNames - used) {
            good = false;
            break;
        }
        list[count++] = static_cast<char*>(std::memcpy(names + used, e->d_name, n));
        used += n;
    }
    good = good && errno == 0;
    closedir(dir);
    if (good) {
        std::qsort(list, count, sizeof(char*), compare_names);
        std::uint64_t hash = 1469598103934665603ULL;  // FNV-1a, each name followed by '/'
        for (std::size_t i = 0; i < count; ++i) {
            for (const char* c = list[i];; ++c) {
                hash =
                    (hash ^ static_cast<unsigned char>(*c != '\0' ? *c : '/')) * 1099511628211ULL;
                if (*c == '\0') {
                    break;
                }
            }
        }
        char hex[20];
        std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
        o.str(" ").num(count).str(" ").str(hex).str("\n");
    }
    return good && o.ok;
}

int split_fields(const char* line, std::size_t len, Span* fields, int max) {
    int n = 0;
    std::size_t i = 0;
    while (i < len && n < max) {
        while (i < len && line[i] == ' ') {
            ++i;
        }
        if (i == len) {
            break;
        }
        const std::size_t start = i;
        while (i < len && line[i] != ' ') {
            ++i;
        }
        fields[n++] = {line + start, i - start};
    }
    return n;
}

bool file_input_holds(const char* line, std::size_t len) {
    Span f[2];
    if (split_fields(line, len, f, 2) != 2) {
        return false;
    }
    char path[4096];
    if (!path_of(f[1], path, sizeof path)) {
        return false;
    }
    char buf[1024];
    Out now(buf, sizeof buf);
    const Span kind = f[0];
    const bool made = is(kind, "stat")   ? stat_line(now, path)
                      : is(kind, "text") ? text_line(now, path)
                      : is(kind, "list") ? list_line(now, path)
                                         : false;
    return made && same_line(now, line, len);
}

Span find_entry(const char* text,
                std::size_t len,
                const char* header,
                JobCheck job,
                void* ctx,
                bool (*files)(const char* line, std::size_t len)) {
    const char* at = text;
    const char* end = text + len;
    Span line;
    if (!next_line(&at, end, &line) || !is(line, header)) {
        return {};
    }
    while (next_line(&at, end, &line)) {
        if (!is(line, "entry")) {
            continue;  // the rest of an entry that did not hold
        }
        bool holds = true;
        while (holds && next_line(&at, end, &line) && !is_output(line)) {
            holds = starts(line, "stat") || starts(line, "text") || starts(line, "list")
                        ? files(line.data, line.len)
                        : job(ctx, line.data, line.len);
        }
        if (!holds || !is_output(line)) {
            continue;
        }
        const char* outputs = line.data;
        while (!is(line, "end")) {
            if (!next_line(&at, end, &line)) {
                return {};  // cut short: no `end`
            }
        }
        return {outputs, static_cast<std::size_t>(line.data - outputs)};
    }
    return {};
}

bool merge(Out& o,
           const char* header,
           const char* old,
           std::size_t old_len,
           const char* entry,
           std::size_t entry_len) {
    // The key of an entry: its text up to its first output line.
    auto key_of = [](const char* e, std::size_t n) {
        const char* at = e;
        Span line;
        while (next_line(&at, e + n, &line)) {
            if (is_output(line)) {
                return Span{e, static_cast<std::size_t>(line.data - e)};
            }
        }
        return Span{e, n};
    };
    const Span key = key_of(entry, entry_len);
    o.str(header).str("\n").raw(entry, entry_len);
    int kept = 1;
    const char* at = old;
    const char* end = old + old_len;
    Span line;
    if (!next_line(&at, end, &line) || !is(line, header)) {
        return o.ok;
    }
    while (kept < kMaxEntries && next_line(&at, end, &line)) {
        if (!is(line, "entry")) {
            continue;
        }
        const char* start = line.data;
        while (!is(line, "end") && next_line(&at, end, &line)) {
        }
        if (!is(line, "end")) {
            break;  // cut short
        }
        const auto n = static_cast<std::size_t>(at - start);
        const Span other = key_of(start, n);
        if (other.len == key.len && std::memcmp(other.data, key.data, key.len) == 0) {
            continue;
        }
        if (n > o.cap - o.len - 1) {
            break;
        }
        o.raw(start, n);
        ++kept;
    }
    return o.ok;
}

int read_file(const char* path, char* buf, std::size_t cap, std::size_t* len, Out& why) {
    *len = 0;
    char dir[4096];
    if (!dir_of(path, dir, sizeof dir)) {
        why.str(path).str(": not an absolute path");
        return -1;
    }
    const int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) {
            return 0;
        }
        why.str("cannot open ").str(path).str(": ").str(std::strerror(errno));
        return -1;
    }
    struct stat st {};
    int rc = 1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
        (st.st_mode & (S_IWGRP | S_IWOTH)) != 0 || static_cast<std::size_t>(st.st_size) >= cap) {
        why.str(path)
            .str(" must be a regular file of uid ")
            .num(geteuid())
            .str(" that no one else may write, under ")
            .num(cap)
            .str(" bytes");
        rc = -1;
    } else if (!trusted_dir(dir, why)) {
        rc = -1;
    }
    while (rc == 1 && *len < cap - 1) {
        const ssize_t n = read(fd, buf + *len, cap - 1 - *len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            why.str("cannot read ").str(path).str(": ").str(std::strerror(errno));
            rc = -1;
        }
        if (n <= 0) {
            break;
        }
        *len += static_cast<std::size_t>(n);
    }
    close(fd);
    if (rc == 1) {
        buf[*len] = '\0';
    }
    return rc;
}

bool write_file(const char* path, const char* text, std::size_t len, Out& why) {
    char dir[4096];
    char tmp[4096];
    if (!dir_of(path, dir, sizeof dir) ||
        std::snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= static_cast<int>(sizeof tmp)) {
        why.str(path).str(": not an absolute path of under 4096 bytes");
        return false;
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        why.str("cannot make ").str(dir).str(": ").str(std::strerror(errno));
        return false;
    }
    if (!trusted_dir(dir, why)) {
        return false;
    }
    const int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        why.str("cannot make a file in ").str(dir).str(": ").str(std::strerror(errno));
        return false;
    }
    bool good = fchmod(fd, 0600) == 0;
    for (std::size_t done = 0; good && done < len;) {
        const ssize_t n = write(fd, text + done, len - done);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        good = n > 0;
        done += good ? static_cast<std::size_t>(n) : 0;
    }
    good = close(fd) == 0 && good;
    if (!good || rename(tmp, path) != 0) {
        why.str("cannot write ").str(path).str(": ").str(std::strerror(errno));
        unlink(tmp);
        return false;
    }
    return true;
}

bool expand_node(Out& o, const char* pattern, const char* node) {
    for (const char* p = pattern; *p != '\0'; ++p) {
        if (p[0] == '%' && (p[1] == 'n' || p[1] == '%')) {
            p[1] == 'n' ? o.str(node) : o.raw("%", 1);
            ++p;
        } else {
            o.raw(p, 1);
        }
    }
    return o.ok;
}

}  // namespace switchyard::spank::step_cache
