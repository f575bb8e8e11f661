// SPDX-License-Identifier: Apache-2.0
// scontrol: the cluster's topologies for discover, the reconfigure install must see taken.
#include "switchyard/slurmconf/scontrol.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "switchyard/common/strings.hpp"

namespace switchyard::slurmconf {

namespace fs = std::filesystem;

std::string slurm_problem(const ProcessRun& r, std::string_view command) {
    if (r.timed_out) {
        return "no answer in time (is slurmctld up?)";
    }
    if (r.exit_code == 127) {
        return "cannot run " + std::string(command) + " (install slurm-client, or put it on PATH)";
    }
    return std::string(trim(r.output));
}

Result<std::string> slurm_command(const std::vector<std::string>& argv, double timeout_s) {
    const auto r = run_process(argv, timeout_s, nullptr, std::size_t{64} << 20);
    if (r.exit_code != 0) {
        return fail(Error::io(join(argv, " ") + ": " + slurm_problem(r, argv.front())));
    }
    if (r.truncated) {
        return fail(Error::io(join(argv, " ") + ": more than 64 MiB of output; not read"));
    }
    return r.output;
}

Result<std::string> scontrol(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {"scontrol"};
    argv.insert(argv.end(), args.begin(), args.end());
    return slurm_command(argv);
}

Result<TopologyConfig> topology_config_from_slurm() {
    TopologyConfig config;
    if (auto yaml = scontrol({"show", "topoconf"})) {
        auto parsed = parse_topoconf(*yaml, "scontrol show topoconf");
        if (!parsed) {
            return fail(parsed.error());
        }
        config = std::move(*parsed);
    }
    // Before 25.05 there is no topoconf; from 25.05 a cluster without topology.yaml shows one
    // empty entry named "default" (26.05.5): either way the one TopologyPlugin decides.
    if (config.topologies.empty() ||
        (config.topologies.size() == 1 && config.topologies[0].first == "default" &&
         config.topologies[0].second == "flat")) {
        auto conf = scontrol({"show", "config"});
        if (!conf) {
            return fail(conf.error());
        }
        std::string kind = "flat";
        for (const auto line : split(*conf, '\n')) {
            const auto eq = line.find('=');
            if (eq != std::string_view::npos && trim(line.substr(0, eq)) == "TopologyPlugin") {
                const auto value = trim(line.substr(eq + 1));
                kind = value == "(null)" ? "flat" : topology_kind(value);
                if (kind.empty()) {
                    return fail(
                        Error::io("scontrol show config: TopologyPlugin=" + std::string(value) +
                                  " is not a topology switchyard knows"));
                }
            }
        }
        config.topologies = {{"default", kind}};
        config.cluster_default = "default";
    }
    return config;
}

Result<SlurmTopologies> topologies_from_slurm() {
    auto parts_text = scontrol({"show", "partition", "--oneliner"});
    if (!parts_text) {
        return fail(parts_text.error());
    }
    auto parts = parse_partitions(*parts_text, "scontrol show partition");
    if (!parts) {
        return fail(parts.error());
    }
    auto config = topology_config_from_slurm();
    if (!config) {
        return fail(config.error());
    }
    return slurm_topologies(*parts, *config);
}

std::set<std::string> shown_units(std::string_view output) {
    std::set<std::string> out;
    std::string text(output);
    std::replace_if(
        text.begin(), text.end(), [](char c) { return c == '\n' || c == '\t'; }, ' ');
    for (const auto word : split(text, ' ')) {
        for (const std::string_view key : {"SwitchName=", "BlockName="}) {
            if (word.starts_with(key)) {
                out.emplace(word.substr(key.size()));
            }
        }
    }
    return out;
}

Result<void> reconfigure_and_check(const fs::path& dir, const fabric::FabricMap& map) {
    const auto lua = dir / "job_submit.lua";
    std::error_code ec;
    if (const auto st = fs::symlink_status(lua, ec); fs::exists(st) && !fs::is_symlink(st)) {
        ::utimensat(AT_FDCWD, lua.c_str(), nullptr, 0);
    }
    const auto r = run_process({"scontrol", "reconfigure"}, 60);
    if (r.exit_code != 0) {
        return fail(Error::io("scontrol reconfigure: " + slurm_problem(r, "scontrol")));
    }
    // From 23.11 on slurmctld restarts itself to reconfigure: it may not answer at once.
    std::string last;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (true) {
        const auto t =
            run_process({"scontrol", "show", "topology"}, 30, nullptr, std::size_t{64} << 20);
        if (t.exit_code == 0) {
            const auto shown = shown_units(t.output);
            std::vector<std::string> missing;
            for (const auto& su : map.sus) {
                if (!shown.contains(su.name)) {
                    missing.push_back(su.name);
                }
            }
            if (missing.empty()) {
                return {};
            }
            last = "scontrol show topology does not list SU " + missing.front() + " (" +
                   std::to_string(missing.size()) + " of " + std::to_string(map.sus.size()) +
                   " SUs missing)";
        } else {
            last = "scontrol show topology: " + slurm_problem(t, "scontrol");
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            return fail(Error::io(last));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
}

}  // namespace switchyard::slurmconf
