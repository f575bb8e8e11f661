// SPDX-License-Identifier: Apache-2.0
// NCCL rule R17: multi-node NVLink (GB200/GB300 NVL72) from the map's NVLink domains and the
// node's IMEX channel.
#include "rules_mnnvl.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace switchyard::nccl {

/// R17: multi-node NVLink (GB200/GB300 NVL72). MNNVL on (1: NCCL fails rather than fall
/// back to the network) only when every node of the step is in one healthy NVLink domain
/// of the map and this node has its IMEX channel; off (0, with NVLS) where the domain is
/// degraded or the channel is missing, since NCCL's automatic mode would try and fail
/// there; NCCL's own choice when the step spans domains. With --nvl-group N smaller than
/// the step's hosts in the domain, NCCL_MNNVL_CLIQUE_ID splits the domain into groups of N
/// (consecutive in name order).
void decide_mnnvl(const NcclPolicy& policy,
                  const fabric::FabricMap* map,
                  const JobFacts& job,
                  NcclDecision& out) {
    const auto set = [&](std::string name, std::string value, std::string rule, std::string why) {
        out.set.push_back(
            {std::move(name), std::move(value), std::move(rule), std::move(why), false});
    };
    const auto unset = [&](const std::string& name, const std::string& why) {
        out.unset.push_back(name + ": not set: " + why);
    };
    const auto is_set = [&](std::string_view name) {
        return std::any_of(out.set.begin(), out.set.end(),
                           [&](const EnvChoice& c) { return c.name == name; });
    };
    if (map == nullptr || map->domains.empty()) {
        return;  // no NVLink domain known: most clusters, nothing to say
    }
    const auto* me = map->find_host(job.this_host);
    if (me == nullptr || me->domain == fabric::kNoDomain) {
        unset("NCCL_MNNVL_ENABLE", "this node is in no NVLink domain of the fabric map");
        return;
    }
    const auto& d = map->domains[me->domain];
    if (job.hosts.size() < 2) {
        unset("NCCL_MNNVL_ENABLE", "a one-node step: NVLink inside the node needs no MNNVL");
        return;
    }
    std::set<std::uint32_t> domains;
    std::size_t outside = 0;
    std::vector<std::string> mates;  // the step's hosts in this node's domain
    for (const auto& h : job.hosts) {
        const auto* host = map->find_host(h);
        if (host == nullptr || host->domain == fabric::kNoDomain) {
            ++outside;
            continue;
        }
        domains.insert(host->domain);
        if (host->domain == me->domain) {
            mates.push_back(h);
        }
    }
    const std::string where = "NVLink domain " + d.name;
    auto off = [&](const std::string& why) {
        set("NCCL_MNNVL_ENABLE", "0", "R17 MNNVL", why);
        if (!is_set("NCCL_NVLS_ENABLE")) {
            set("NCCL_NVLS_ENABLE", "0", "R17 MNNVL",
                "NVLink SHARP across nodes needs the same fabric: " + why);
        }
    };
    if (d.state != fabric::DomainState::Ok) {
        off(where + " is " + std::string(fabric::to_string(d.state)) +
            " in the fabric map: the network carries what NVLink would");
        return;
    }
    if (job.imex_channel && !*job.imex_channel) {
        off("no IMEX channel on this node (" +
            (job.imex_channel_path.empty() ? policy.imex_channel : job.imex_channel_path) +
            "): MNNVL would fail at start (CUDA error 800)");
        return;
    }
    if (!job.nvlink_problem.empty()) {
        // NVIDIA/nccl#2186: MNNVL setup crashes from 44 ranks up on GPUs whose fabric health
        // mask is not clean; NCCL_MNNVL_ENABLE=0 is the only workaround. Inside or across
        // domains alike: NCCL's automatic mode would still try.
        off("this node's NVLink fabric did not pass the prolog's check (" + job.nvlink_problem +
            "): multi-node NVLink setup can crash on such a node (NVIDIA/nccl#2186)");
        return;
    }
    if (policy.min_version < NcclVersion{2, 21, 0}) {
        unset("NCCL_MNNVL_ENABLE", "NCCL before 2.21 has no NCCL_MNNVL_ENABLE (nccl.min_version " +
                                       to_string(policy.min_version) + ")");
        return;
    }
    if (policy.min_version < NcclVersion{2, 25, 2}) {
        out.warnings.push_back(
            "multi-node NVLink on GB200/GB300 needs NCCL 2.25.2 or later; "
            "nccl.min_version is " +
            to_string(policy.min_version));
    }
    if (domains.size() != 1 || outside != 0) {
        unset("NCCL_MNNVL_ENABLE",
              "the step spans " + std::to_string(domains.size()) + " NVLink domain(s)" +
                  (outside != 0 ? " and " + std::to_string(outside) + " node(s) in none" : "") +
                  ": NCCL's own choice (NVLink inside each domain, the network between)");
        return;
    }
    const std::string imex = job.imex_channel ? ", IMEX channel present" : "";
    set("NCCL_MNNVL_ENABLE", "1", "R17 MNNVL",
        "all " + std::to_string(job.hosts.size()) + " nodes of the step are in healthy " + where +
            imex + ": NVLink across nodes, and NCCL fails rather than fall back");
    // NCCL_CUMEM_ENABLE: multi-node NVLink shares memory through cuMem, which NCCL 2.19 and
    // later turn on by themselves where the system has it (env.rst); MNNVL needs 2.21.
    unset("NCCL_CUMEM_ENABLE", "NCCL 2.19 and later use cuMem by themselves where CUDA has it");
    if (job.nvl_group && *job.nvl_group < mates.size()) {
        if (policy.min_version < NcclVersion{2, 23, 0}) {
            unset("NCCL_MNNVL_CLIQUE_ID",
                  "--nvl-group needs NCCL 2.23 to split a domain (nccl.min_version " +
                      to_string(policy.min_version) + ")");
            return;
        }
        std::sort(mates.begin(), mates.end());
        const auto pos = static_cast<std::size_t>(
            std::find(mates.begin(), mates.end(), job.this_host) - mates.begin());
        const auto group = pos / *job.nvl_group;
        set("NCCL_MNNVL_CLIQUE_ID", std::to_string(group + 1), "R17 MNNVL",
            "--nvl-group=" + std::to_string(*job.nvl_group) + " splits the step's " +
                std::to_string(mates.size()) + " nodes of " + where + " into groups; this " +
                "node is in group " + std::to_string(group + 1) + " (name order)");
    }
}

}  // namespace switchyard::nccl
