// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: the small readers, each given the whole input — GUID → name maps
// (discover --guid-map), the design's cable counts (discover --expect-cabling), NCCL versions and
// version ranges (policy), nccl-tests output (a health command), /proc/meminfo (the memory check),
// numbers, %n node-name patterns, and the node facts cache (read under the key it names, so that
// the lines after it are reached; what is accepted must write back to the same text), and the state
// of `switchyard steer` (the weights it set, the nodes it saw drained and back; what it keeps must
// write back to itself), and scontrol's topologies and partitions (discover --partition-topology
// slurm) with the option's items, and a site's NodeName lines (discover --slurm-nodes; hosts
// outside any map keep their line), and what the health gate reads of nvidia-imex-ctl (-N -j)
// and of the kernel log (XID records), and what the audit reads: squeue's job lines (with and
// without SegmentSize, then their preferences and node counts), sinfo's features and node
// states (`switchyard why`) and `scontrol show topology`, compared with a map's units, and the
// fields read of `scontrol show node|job -o` lines (a node's address, a job's excluded nodes).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/common/strings.hpp"
#include "switchyard/discover/classify/classify.hpp"
#include "switchyard/fabric/guid.hpp"
#include "switchyard/health/health.hpp"
#include "switchyard/node/node_facts.hpp"
#include "switchyard/node/node_readers.hpp"
#include "switchyard/ops/install_guard.hpp"
#include "switchyard/placement/steer.hpp"
#include "switchyard/policy/policy.hpp"
#include "switchyard/slurm/client/scontrol.hpp"
#include "switchyard/slurm/client/slurm_jobs.hpp"
#include "switchyard/slurm/files/slurm_nodes.hpp"
#include "switchyard/slurm/files/slurm_partitions.hpp"

namespace {

void node_facts(std::string_view text) {
    const auto at = text.find("\nkey ");
    unsigned long long key = 0;
    if (at != std::string_view::npos) {
        const std::string hex(text.substr(at + 5, 16));
        std::sscanf(hex.c_str(), "%16llx", &key);
    }
    auto node = switchyard::node::read_node_facts(text, "fuzz.node", key);
    if (!node) {
        return;
    }
    const auto once = switchyard::node::write_node_facts(*node, key);
    auto again = switchyard::node::read_node_facts(once, "round-trip", key);
    if (!again || switchyard::node::write_node_facts(*again, key) != once) {
        std::abort();
    }
}

void audit_inputs(std::string_view text) {
    namespace sc = switchyard::slurm;
    // The fields the preflight and the gate read of `scontrol show node|job -o`: one word.
    for (const auto* key : {"NodeAddr", "ExcNodeList", ""}) {
        const auto v = sc::scontrol_field(text, key);
        if (v.size() > text.size() || v.find_first_of(" \n") != std::string::npos ||
            (!v.empty() && text.find(v) == std::string_view::npos)) {
            std::abort();
        }
    }
    for (const bool segment : {false, true}) {
        std::vector<std::string> problems;
        auto jobs = sc::parse_squeue_jobs(text, "fuzz.squeue", segment, problems);
        if (!jobs) {
            continue;
        }
        sc::read_squeue_prefer(text, *jobs);
        sc::read_squeue_node_counts(text, *jobs);
        for (const auto& j : *jobs) {
            if (j.id.empty() || j.stages > 1024) {
                std::abort();  // an accepted job has an id, and a stage count within bounds
            }
        }
    }
    std::vector<std::string> sacct_problems;
    if (const auto ended = sc::parse_sacct_jobs(text, "fuzz.sacct", sacct_problems)) {
        for (const auto& j : *ended) {
            if (j.id.empty() || j.nodes.empty() || !j.start_time) {
                std::abort();  // an accepted job has an id, its nodes and its start
            }
        }
    }
    if (const auto events = sc::parse_node_events(text, "fuzz.events", sacct_problems)) {
        for (const auto& e : *events) {
            if (e.nodes.empty()) {
                std::abort();  // an accepted event names its nodes
            }
        }
    }
    if (const auto resvs = sc::parse_reservations(text, "fuzz.resv", sacct_problems)) {
        for (const auto& r : *resvs) {
            if (r.nodes.empty()) {
                std::abort();  // an accepted reservation names its nodes
            }
        }
    }
    for (const auto& [p, members] : sc::parse_partition_nodes(text)) {
        if (p.empty() || members.empty()) {
            std::abort();
        }
    }
    const auto usable = sc::parse_usable_nodes(text);
    if (!std::is_sorted(usable.begin(), usable.end()) ||
        std::adjacent_find(usable.begin(), usable.end()) != usable.end()) {
        std::abort();  // each node once, sorted
    }
    const auto features = sc::parse_node_features(text);
    std::set<std::string> nodes;
    for (const auto& [n, f] : features) {
        nodes.insert(n);
    }
    if (const auto shown = sc::parse_shown_topology(text, "fuzz.topology")) {
        std::set<std::string> names;
        for (const auto& u : *shown) {
            names.insert(u.name);
        }
        // Units compared with themselves agree, unless two share a name.
        if (names.size() == shown->size() &&
            !sc::topology_disagreements(*shown, *shown, nodes, "t").empty()) {
            std::abort();
        }
    }
    (void)sc::parse_slurm_duration(text);
    (void)sc::parse_slurm_time(text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    (void)switchyard::discover::parse_guid_map(text, "fuzz.map");
    if (const auto imex = switchyard::health::parse_imex_status(text, "fuzz.imex")) {
        if (imex->status.empty() || imex->nodes.size() > 4096) {
            std::abort();  // an accepted answer has a status and at most 4096 nodes
        }
        for (const auto& n : imex->nodes) {
            if (n.status.empty()) {
                std::abort();
            }
        }
    }
    for (const auto& x : switchyard::health::parse_xids(text)) {
        if (x.code > 100000 || x.device.size() > 64) {
            std::abort();
        }
    }
    if (const auto c = switchyard::discover::parse_expected_cabling(text, "fuzz.cabling");
        c &&
        ((c->global && (*c->global < 1 || *c->global > switchyard::discover::kMaxExpectedCables)) ||
         (c->leaf_spine && *c->leaf_spine < 1))) {
        std::abort();  // every count accepted is within its bounds
    }
    const auto v = switchyard::nccl::parse_nccl_version(text);
    if (const auto r = switchyard::nccl::parse_version_range(text); r && v) {
        (void)r->contains(*v);
    }
    if (const auto bw = switchyard::health::parse_nccl_tests_busbw(text); bw && !(*bw >= 0)) {
        std::abort();  // a bus bandwidth is a number, never negative or NaN
    }
    (void)switchyard::health::check_memory(text, 64);
    (void)switchyard::parse_uint(text);
    if (size < 512) {
        (void)switchyard::node::expand_node_path(text, "node%n");
    }
    node_facts(text);
    audit_inputs(text);
    {
        const auto config = switchyard::slurm::parse_topoconf(text, "fuzz.topoconf");
        const auto parts = switchyard::slurm::parse_partitions(text, "fuzz.partitions");
        if (config && parts) {
            if (const auto t = switchyard::slurm::slurm_topologies(*parts, *config);
                t && t->default_kind.empty()) {
                std::abort();  // a cluster default always has a kind
            }
        }
        switchyard::slurm::SlurmTopologies t;
        (void)switchyard::slurm::add_partition_topologies(
            text, config ? *config : switchyard::slurm::discover_topology_names(), t);
    }
    const auto record = switchyard::ops::InstallRecord::parse(text);
    if (switchyard::ops::InstallRecord::parse(record.text()).text() != record.text()) {
        std::abort();
    }
    const auto weights = switchyard::placement::WeightRecord::parse(text);
    const auto flaps = switchyard::placement::DrainHistory::parse(text);
    if (switchyard::placement::WeightRecord::parse(weights.text()).text() != weights.text() ||
        switchyard::placement::DrainHistory::parse(flaps.text()).text() != flaps.text()) {
        std::abort();
    }
    return 0;
}
