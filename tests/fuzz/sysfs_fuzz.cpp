// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: a fake sysfs tree made from the input, read as `switchyard node` and the
// health gate read /sys. One entry per line:
//   F <relative path> <content>     a file (the content is the rest of the line)
//   L <relative path> <target>      a symbolic link (relative target, must stay inside the tree)
// At most 256 entries; paths without empty, "." or ".." parts. Then read_sysfs_node and
// attach_rdma_sysfs run on it; an accepted node must have a path class for every GPU × NIC.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>

#include "switchyard/node/node_readers.hpp"

namespace fs = std::filesystem;

namespace {

fs::path g_root;
int g_root_fd = -1;

/// Calls `part(text)` for each '/'-separated part of `p` (empty ones included) while it
/// returns true; \return whether every call did.
template <class Part>
bool each_part(std::string_view p, Part&& part) {
    for (std::size_t start = 0; start <= p.size();) {
        auto end = p.find('/', start);
        if (end == std::string_view::npos) {
            end = p.size();
        }
        if (!part(p.substr(start, end - start))) {
            return false;
        }
        start = end + 1;
    }
    return true;
}

/// Whether `p` is a relative path of at most 200 bytes without empty, "." or ".." parts.
bool safe_relative(std::string_view p) {
    return !p.empty() && p.size() <= 200 && p.front() != '/' &&
           each_part(p, [](std::string_view part) {
               return !part.empty() && part != "." && part != "..";
           });
}

/// Whether `target`, relative to the directory of `at`, stays inside the tree (by its text).
bool stays_inside(std::string_view at, std::string_view target) {
    if (target.empty() || target.front() == '/') {
        return false;
    }
    int depth = static_cast<int>(std::count(at.begin(), at.end(), '/'));
    return each_part(target, [&depth](std::string_view part) {
        depth += part == ".." ? -1 : (part == "." || part.empty() ? 0 : 1);
        return depth >= 0;
    });
}

/// Removes what directory `dir` holds, never following a link (system calls only: the tree is
/// made and removed per input, and std::filesystem's allocations under ASan were a third of
/// every execution).
void empty_directory(int dir) {
    alignas(8) char buf[4096];
    for (bool removed = true; removed;) {  // entries removed while listed: list again
        removed = false;
        lseek(dir, 0, SEEK_SET);
        long n = 0;
        while ((n = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0) {
            for (long at = 0; at < n;) {
                struct Entry {
                    std::uint64_t ino;
                    std::int64_t off;
                    unsigned short reclen;
                    unsigned char type;
                    char name[1];
                };
                const auto* e = reinterpret_cast<const Entry*>(buf + at);
                at += e->reclen;
                if (std::strcmp(e->name, ".") == 0 || std::strcmp(e->name, "..") == 0) {
                    continue;
                }
                bool directory = e->type == DT_DIR;
                if (e->type == DT_UNKNOWN) {  // a file system that gives no type
                    if (unlinkat(dir, e->name, 0) == 0) {
                        removed = true;
                        continue;
                    }
                    directory = errno == EISDIR;  // Linux's answer for a directory
                }
                if (directory) {
                    const int sub = openat(dir, e->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
                    if (sub >= 0) {
                        empty_directory(sub);
                        close(sub);
                    }
                    removed = unlinkat(dir, e->name, AT_REMOVEDIR) == 0 || removed;
                } else if (e->type != DT_UNKNOWN) {
                    removed = unlinkat(dir, e->name, 0) == 0 || removed;
                }
            }
        }
    }
}

/// mkdir -p of the directories above `path` (relative to the tree).
void make_parents(const char* path) {
    char dir[256];
    for (const char* slash = std::strchr(path, '/'); slash != nullptr;
         slash = std::strchr(slash + 1, '/')) {
        const auto len = static_cast<std::size_t>(slash - path);
        std::memcpy(dir, path, len);
        dir[len] = '\0';
        (void)mkdirat(g_root_fd, dir, 0755);
    }
}

void build_tree(std::string_view text) {
    empty_directory(g_root_fd);
    int entries = 0;
    for (std::size_t start = 0; start < text.size() && entries < 256; ++entries) {
        auto end = text.find('\n', start);
        if (end == std::string_view::npos) {
            end = text.size();
        }
        const auto line = text.substr(start, end - start);
        start = end + 1;
        if (line.size() < 3 || line[1] != ' ') {
            continue;
        }
        const auto sp = line.find(' ', 2);
        const auto path = line.substr(2, sp == std::string_view::npos ? line.size() - 2 : sp - 2);
        const auto rest = sp == std::string_view::npos ? std::string_view() : line.substr(sp + 1);
        if (!safe_relative(path) || path.find('\0') != std::string_view::npos) {
            continue;
        }
        char at[256];
        std::memcpy(at, path.data(), path.size());
        at[path.size()] = '\0';
        make_parents(at);
        if (line[0] == 'F') {
            const int fd = openat(g_root_fd, at, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            if (fd >= 0) {
                (void)!write(fd, rest.data(), rest.size());
                (void)!write(fd, "\n", 1);
                close(fd);
            }
        } else if (line[0] == 'L' && rest.size() < 256 &&
                   rest.find('\0') == std::string_view::npos && stays_inside(path, rest)) {
            char target[256];
            std::memcpy(target, rest.data(), rest.size());
            target[rest.size()] = '\0';
            (void)symlinkat(target, g_root_fd, at);
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    // In memory when the machine has /dev/shm: a tree is made and removed per input.
    std::error_code shm_ec;
    char shm[] = "/dev/shm/switchyard-sysfs-fuzz.XXXXXX";
    char tmp[] = "/tmp/switchyard-sysfs-fuzz.XXXXXX";
    const char* made = fs::is_directory("/dev/shm", shm_ec) ? mkdtemp(shm) : nullptr;
    g_root = made != nullptr ? made : mkdtemp(tmp);
    g_root_fd = open(g_root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (g_root_fd < 0) {
        std::abort();
    }
    std::atexit([] {
        std::error_code ec;
        fs::remove_all(g_root, ec);
    });
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    build_tree(std::string_view(reinterpret_cast<const char*>(data), size));
    auto node = switchyard::node::read_sysfs_node(g_root);
    if (!node) {
        return 0;
    }
    if (node->paths.size() != node->gpus.size() * node->nics.size()) {
        std::abort();
    }
    switchyard::node::attach_rdma_sysfs(*node, g_root);
    return 0;
}
