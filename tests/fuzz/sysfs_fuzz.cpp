// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: a fake sysfs tree made from the input, read as `switchyard node` and the
// health gate read /sys. One entry per line:
//   F <relative path> <content>     a file (the content is the rest of the line)
//   L <relative path> <target>      a symbolic link (relative target, must stay inside the tree)
// At most 256 entries; paths without empty, "." or ".." parts. Then read_sysfs_node and
// attach_rdma_sysfs run on it; an accepted node must have a path class for every GPU × NIC.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "switchyard/topology/node_readers.hpp"

namespace fs = std::filesystem;

namespace {

fs::path g_root;

bool safe_relative(std::string_view p) {
    if (p.empty() || p.size() > 200 || p.front() == '/') {
        return false;
    }
    for (const auto& part : fs::path(p)) {
        if (part.empty() || part == "." || part == "..") {
            return false;
        }
    }
    return true;
}

/// Whether `target`, relative to the directory of `at`, stays inside the tree.
bool stays_inside(const fs::path& at, std::string_view target) {
    if (target.empty() || target.front() == '/') {
        return false;
    }
    int depth = static_cast<int>(std::distance(at.begin(), at.end())) - 1;
    for (const auto& part : fs::path(target)) {
        depth += part == ".." ? -1 : (part == "." || part.empty() ? 0 : 1);
        if (depth < 0) {
            return false;
        }
    }
    return true;
}

void build_tree(std::string_view text) {
    std::error_code ec;
    fs::remove_all(g_root, ec);
    fs::create_directories(g_root);
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
        const auto p = g_root / fs::path(path);
        fs::create_directories(p.parent_path(), ec);
        if (line[0] == 'F') {
            std::ofstream(p, std::ios::binary) << rest << '\n';
        } else if (line[0] == 'L' && rest.find('\0') == std::string_view::npos &&
                   stays_inside(fs::path(path), rest)) {
            fs::create_symlink(fs::path(rest), p, ec);
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
    std::atexit([] {
        std::error_code ec;
        fs::remove_all(g_root, ec);
    });
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace topo = switchyard::topology;
    build_tree(std::string_view(reinterpret_cast<const char*>(data), size));
    auto node = topo::read_sysfs_node(g_root);
    if (!node) {
        return 0;
    }
    if (node->paths.size() != node->gpus.size() * node->nics.size()) {
        std::abort();
    }
    topo::attach_rdma_sysfs(*node, g_root);
    return 0;
}
