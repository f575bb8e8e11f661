// SPDX-License-Identifier: Apache-2.0
// File helpers for the CLI.
#include "io.hpp"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <mutex>
#include <sstream>
#include <system_error>
#include <thread>

#include "commands.hpp"
#include "switchyard/common/file.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/slurmconf/scontrol.hpp"

namespace switchyard::cli {

std::string short_hostname() {
    char buf[256] = {};
    gethostname(buf, sizeof buf - 1);
    const std::string h = buf;
    return h.substr(0, h.find('.'));
}

Result<fabric::FabricMap> load_fabric_map(const std::string& path) {
    if (path != "-") {
        return fabric::read_fabric_map_file(path);
    }
    auto text = read_input(path, kFabricInput);
    if (!text) {
        return fail(text.error());
    }
    return fabric::read_fabric_map(*text, path);
}

Result<std::map<std::string, health::SlurmNodeState>> slurm_nodes(const std::string& nodes) {
    const auto argv = health::slurm_nodes_query(nodes);
    const auto r = run_process(argv, 30, nullptr, std::size_t{64} << 20);
    const auto what = join(argv, " ");
    if (r.exit_code != 0) {
        return fail(Error::io(what + ": " + slurmconf::slurm_problem(r, "sinfo")));
    }
    if (r.truncated) {
        return fail(Error::io(what + ": more than 64 MiB of output; not read"));
    }
    auto parsed = health::parse_slurm_nodes(r.output);
    if (!parsed) {
        return fail(Error::io(what + ": " + parsed.error().to_string()));
    }
    return parsed;
}

Result<std::vector<std::pair<std::string, std::string>>> read_json_dir(const std::string& dir,
                                                                       const std::string& option) {
    std::vector<std::pair<std::string, std::string>> out;
    auto ok = for_each_dir_file(dir, option, ".json", "`switchyard health --json` outputs",
                                1'000'000, [&](const std::string& path, std::string&& text) {
                                    out.emplace_back(path, std::move(text));
                                    return Result<void>{};
                                });
    if (!ok) {
        return fail(ok.error());
    }
    return out;
}

}  // namespace switchyard::cli
