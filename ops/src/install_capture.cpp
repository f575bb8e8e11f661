// SPDX-License-Identifier: Apache-2.0
// A capture (discover's output directory) read for install, each file within its bound, and
// checked against its map: what install copies is what discover wrote from that map.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <string_view>

#include "switchyard/common/file.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/fabric/fabric_index.hpp"
#include "switchyard/fabric/fabric_map.hpp"
#include "switchyard/ops/install_sets.hpp"
#include "switchyard/slurm/files/slurm_writers.hpp"

namespace switchyard::ops {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxHintsBytes = std::size_t{1} << 20U;   // the Lua filters' bound
constexpr std::size_t kMaxNodesBytes = std::size_t{64} << 20U;  // a site's nodes.conf

/// The lines of `text` that are not comments ('#' first), with their line numbers.
std::vector<std::pair<std::size_t, std::string_view>> content_lines(std::string_view text) {
    std::vector<std::pair<std::size_t, std::string_view>> out;
    std::size_t n = 0;
    if (text.ends_with('\n')) {
        text.remove_suffix(1);  // no line after the last newline
    }
    for (const auto line : split(text, '\n')) {
        ++n;
        if (!line.starts_with('#')) {
            out.emplace_back(n, line);
        }
    }
    return out;
}

/// The line for a message: at most 100 bytes, printable.
std::string quoted(std::string_view line) {
    return "'" + printable(line.substr(0, 100)) + (line.size() > 100 ? "...'" : "'");
}

}  // namespace

Result<SetFiles> read_capture(const fs::path& from) {
    // The directory is opened once and each file looked up in it without following links: a
    // directory another user can write, or a link in it (to /etc/shadow, say), would otherwise
    // have install copy a file that user cannot read into a set everyone can.
    auto dir = open_input_dir(from.string());
    if (!dir) {
        return fail(Error::io("--from: " + dir.error().message() +
                              " (a capture must be a directory only root can write)"));
    }
    const struct Close {
        int fd;
        ~Close() { ::close(fd); }
    } closer{*dir};
    SetFiles files;
    std::size_t map_bytes = 0;
    for (const auto name : kDiscoverFiles) {
        const std::string file(name);
        struct stat st {};
        if (::fstatat(*dir, file.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT) {
            continue;
        }
        ReadRules rules = kFabricInput;
        rules.follow_links = false;
        if (name == "job_submit_hints.lua") {
            rules.max_bytes = kMaxHintsBytes;
        } else if (name == "nodes.conf") {
            rules.max_bytes = kMaxNodesBytes;
        } else if (name != "fabric.map" && name != "fabric.map.index") {
            rules.max_bytes = std::min(kFabricInput.max_bytes, 4 * map_bytes + (1U << 20U));
        }
        auto input = InputFile::open_at(*dir, file, (from / name).string(), rules);
        if (!input) {
            return fail(input.error());
        }
        auto bytes = input->read_all();
        if (!bytes) {
            return fail(bytes.error());
        }
        if (name == "fabric.map") {
            map_bytes = bytes->size();
        }
        files[file] = std::move(*bytes);
    }
    return files;
}

Result<void> check_capture(const fabric::FabricMap& map, const SetFiles& files) {
    const auto map_text = files.find("fabric.map");
    if (map_text == files.end()) {
        return fail(Error::invalid_argument("no fabric.map"));
    }
    if (const auto index = files.find("fabric.map.index"); index != files.end()) {
        auto want = fabric::write_fabric_index(map, map_text->second);
        if (!want) {
            return fail(want.error());
        }
        if (index->second != *want) {
            return fail(Error::invalid_argument(
                "fabric.map.index is not the index of fabric.map (written by another discover "
                "run, or edited)"));
        }
    }
    const std::pair<std::string_view, std::string (*)(const fabric::FabricMap&, std::string_view)>
        written[] = {{"topology.conf", slurm::write_topology_conf},
                     {"topology-block.conf", slurm::write_topology_block},
                     {"topology.yaml", slurm::write_topology_yaml},
                     {"node-features.conf", slurm::write_node_features},
                     {"node-features.sh", slurm::write_feature_commands}};
    for (const auto& [name, write] : written) {
        const auto got = files.find(std::string(name));
        if (got == files.end()) {
            continue;
        }
        const auto want_text = write(map, "");
        const auto want = content_lines(want_text);
        const auto have = content_lines(got->second);
        const auto n = std::min(want.size(), have.size());
        std::size_t i = 0;
        while (i < n && want[i].second == have[i].second) {
            ++i;
        }
        if (i == n && want.size() == have.size()) {
            continue;
        }
        const std::string at =
            i < have.size() ? "line " + std::to_string(have[i].first) + " " + quoted(have[i].second)
                            : "its end";
        const std::string expected =
            i < want.size() ? quoted(want[i].second) : std::string("the end of the file");
        return fail(Error::invalid_argument(std::string(name) +
                                            " is not what discover writes from fabric.map: " + at +
                                            ", where discover writes " + expected));
    }
    return {};
}

}  // namespace switchyard::ops
