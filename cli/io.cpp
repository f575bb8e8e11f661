// SPDX-License-Identifier: Apache-2.0
// File helpers for the CLI.
#include "io.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "switchyard/common/file.hpp"
#include "switchyard/common/strings.hpp"

namespace switchyard::cli {

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

Result<void> write_file_atomic(const std::string& path, std::string_view content) {
    // Outputs (topology.conf, the fabric map, pictures) are read by others: the usual mode
    // under the caller's umask.
    const mode_t mask = ::umask(0);
    ::umask(mask);
    return replace_file(path, content, 0666U & ~static_cast<unsigned>(mask));
}

std::string short_hostname() {
    char buf[256] = {};
    gethostname(buf, sizeof buf - 1);
    const std::string h = buf;
    return h.substr(0, h.find('.'));
}

Result<topology::FabricMap> load_fabric_map(const std::string& path) {
    auto text = read_input(path, kFabricInput);
    if (!text) {
        return fail(text.error());
    }
    return topology::read_fabric_map(*text, path);
}

std::string slurm_problem(const ProcessRun& r, std::string_view command) {
    if (r.timed_out) {
        return "no answer in time (is slurmctld up?)";
    }
    if (r.exit_code == 127) {
        return "cannot run " + std::string(command) + " (install slurm-client, or put it on PATH)";
    }
    return std::string(trim(r.output));
}

Result<std::map<std::string, policy::SlurmNodeState>> slurm_nodes(const std::string& nodes) {
    const auto argv = policy::slurm_nodes_query(nodes);
    const auto r = run_process(argv, 30, nullptr, std::size_t{64} << 20);
    const auto what = join(argv, " ");
    if (r.exit_code != 0) {
        return fail(Error::io(what + ": " + slurm_problem(r, "sinfo")));
    }
    if (r.truncated) {
        return fail(Error::io(what + ": more than 64 MiB of output; not read"));
    }
    auto parsed = policy::parse_slurm_nodes(r.output);
    if (!parsed) {
        return fail(Error::io(what + ": " + parsed.error().to_string()));
    }
    return parsed;
}

Result<std::vector<std::pair<std::string, std::string>>> read_json_dir(const std::string& dir,
                                                                       const std::string& option) {
    std::error_code ec;
    std::filesystem::directory_iterator it(dir, ec);
    if (ec) {
        return fail(Error::io(option + " " + dir + ": " + ec.message() +
                              "; expected a directory of `switchyard health --json` outputs"));
    }
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& e : it) {
        if (e.path().extension() != ".json") {
            continue;
        }
        auto text = read_input(e.path().string(), kSmallInput);
        if (!text) {
            return fail(text.error());
        }
        out.emplace_back(e.path().string(), std::move(*text));
    }
    return out;
}

}  // namespace switchyard::cli
