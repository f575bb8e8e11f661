// SPDX-License-Identifier: Apache-2.0
// NCCL environment rules (reference/nccl.md section 2): each rule reads facts and either sets a
// variable with its reason or says why it stays unset.
#include "switchyard/nccl/rules.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "rules_job.hpp"
#include "rules_mnnvl.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/nccl/params.hpp"

namespace switchyard::nccl {
namespace {

using fabric::FabricKind;
using node::Nic;
using node::NodeTopology;
using node::PathType;

struct Port {
    const Nic* nic;
    const node::RdmaPort* port;
    [[nodiscard]] std::string id() const { return nic->name + ":" + std::to_string(port->port); }
};

class Rules {
public:
    Rules(const NcclPolicy& p, const NodeTopology& n, const fabric::FabricMap* m, const JobFacts& j)
        : policy_(p), node_(n), map_(m), job_(j) {}

    NcclDecision run(const std::map<std::string, std::string>& user_env) {
        compute_ports();
        socket_ifname();
        roce_addressing();
        cross_nic();
        qps();
        ib_timeout();
        nvls();
        ras_addr();
        mnnvl();
        inspector();
        set("NCCL_DEBUG", "WARN", "R13 debug",
            "warnings always visible; the debug profile raises it");
        obsolete(user_env);
        return std::move(d_);
    }

    NcclDecision& decision() { return d_; }

private:
    const NcclPolicy& policy_;
    const NodeTopology& node_;
    const fabric::FabricMap* map_;
    const JobFacts& job_;
    NcclDecision d_;
    std::vector<Port> compute_;

    void set(std::string name, std::string value, std::string rule, std::string why) {
        d_.set.push_back(
            {std::move(name), std::move(value), std::move(rule), std::move(why), false});
    }
    void unset(const std::string& name, const std::string& why) {
        d_.unset.push_back(name + ": not set: " + why);
    }

    /// A NIC's link layer and fastest port (Gb/s): "" and 0 when its ports do not say.
    static std::pair<std::string, double> nic_link(const Nic& nic) {
        std::string layer;
        double rate = 0;
        for (const auto& port : nic.ports) {
            if (layer.empty()) {
                layer = port.link_layer;
            }
            rate = std::max(rate, port.rate_gbps);
        }
        return {layer, rate};
    }

    /// Without a policy pattern, R1 follows NCCL: each GPU's NICs are those at the best path
    /// class any NIC of the compute network has to it (PIX < PXB < PHB/NODE < SYS), so a node
    /// whose NICs sit on their own root ports (NODE) or beyond a socket link still has compute
    /// NICs. The compute network is the link layer most NICs have; a NIC of another link layer,
    /// or under a quarter of the fastest rate of that network, is a management or storage NIC.
    /// Returns, per NIC left out, why; `decided` says which class(es) chose.
    std::map<std::string, std::string> choose_compute_nics(std::set<std::string>& compute,
                                                           std::string& decided) const {
        std::map<std::string, std::string> out;
        std::map<std::string, int> layers;
        for (const auto& nic : node_.nics) {
            if (const auto layer = nic_link(nic).first; !layer.empty()) {
                layers[layer]++;
            }
        }
        std::string network;  // most NICs; InfiniBand wins a tie (it sorts first)
        int most = 0;
        for (const auto& [layer, count] : layers) {
            if (count > most) {
                network = layer;
                most = count;
            }
        }
        double fastest = 0;
        for (const auto& nic : node_.nics) {
            const auto [layer, rate] = nic_link(nic);
            if (layer.empty() || layer == network) {
                fastest = std::max(fastest, rate);
            }
        }
        std::set<std::string> eligible;
        for (const auto& nic : node_.nics) {
            const auto [layer, rate] = nic_link(nic);
            if (!layer.empty() && layer != network) {
                out[nic.name] = "another network: " + layer + " beside " + network;
            } else if (rate > 0 && rate * 4 < fastest) {
                out[nic.name] = short_number(rate) +
                                " Gb/s, under a quarter of the fastest NIC's " +
                                short_number(fastest) + " Gb/s";
            } else {
                eligible.insert(nic.name);
            }
        }
        if (node_.gpus.empty()) {
            compute = eligible;
            decided = "no GPU: every NIC of the compute network";
            return out;
        }
        std::map<std::string, PathType> nearest;  // each eligible NIC's best class to any GPU
        std::set<PathType> classes;
        for (const auto& gpu : node_.gpus) {
            auto best = PathType::SYS;
            bool any = false;
            for (const auto& path : node_.paths) {
                if (path.gpu == gpu.index && eligible.contains(path.nic)) {
                    best = any ? std::min(best, path.type) : path.type;
                    any = true;
                }
            }
            if (!any) {
                continue;
            }
            classes.insert(best);
            for (const auto& path : node_.paths) {
                if (path.gpu == gpu.index && path.type == best && eligible.contains(path.nic)) {
                    compute.insert(path.nic);
                }
            }
        }
        for (const auto& path : node_.paths) {
            if (eligible.contains(path.nic)) {
                const auto it = nearest.find(path.nic);
                nearest[path.nic] =
                    it == nearest.end() ? path.type : std::min(it->second, path.type);
            }
        }
        for (const auto& name : eligible) {
            if (!compute.contains(name)) {
                const auto it = nearest.find(name);
                out[name] =
                    "not the nearest NIC of any GPU" +
                    (it != nearest.end()
                         ? std::string(" (") + std::string(node::to_string(it->second)) + ")"
                         : std::string());
            }
        }
        std::vector<std::string> names;
        for (const auto c : classes) {
            names.emplace_back(node::to_string(c));
        }
        decided = "the NICs nearest each GPU, at " + join(names, "/");
        if (!classes.empty() && *classes.begin() >= PathType::PHB) {
            decided += " (no NIC shares a PCIe switch with a GPU)";
        }
        return out;
    }

    /// R1: ACTIVE ports of compute NICs, "=dev:port,...".
    void compute_ports() {
        const auto& role = policy_.compute_hca;
        std::vector<std::string> left_out;
        std::set<std::string> chosen;
        std::string decided = "by the policy's nccl.compute_hca";
        std::map<std::string, std::string> why_out;
        if (role.empty()) {
            why_out = choose_compute_nics(chosen, decided);
        }
        std::vector<std::string> active_elsewhere;
        for (const auto& nic : node_.nics) {
            const bool compute = !role.empty() ? role.matches(nic.name) : chosen.contains(nic.name);
            for (const auto& port : nic.ports) {
                const Port p{&nic, &port};
                if (!compute) {
                    const auto it = why_out.find(nic.name);
                    left_out.push_back(p.id() + " (" +
                                       (!role.empty()         ? std::string("not a compute HCA")
                                        : it != why_out.end() ? it->second
                                                              : std::string("not a compute NIC")) +
                                       ")");
                    if (port.state_code == 4) {
                        active_elsewhere.push_back(p.id());
                    }
                } else if (port.state_code != 4) {
                    left_out.push_back(p.id() + " (" + port.state + "/" + port.phys_state + ")");
                } else if (port.link_layer != "InfiniBand" && port.link_layer != "Ethernet") {
                    left_out.push_back(p.id() + " (link layer '" + port.link_layer + "')");
                } else {
                    compute_.push_back(p);
                }
            }
        }
        if (compute_.empty()) {
            unset("NCCL_IB_HCA", "no ACTIVE compute port (" + decided + ")");
            if (!node_.nics.empty()) {
                // NCCL without NCCL_IB_HCA uses any ACTIVE RDMA port: sockets only when none is.
                d_.warnings.push_back(active_elsewhere.empty()
                                          ? "no ACTIVE RDMA port on " + job_.this_host +
                                                "; NCCL falls back to sockets"
                                          : "no ACTIVE compute RDMA port on " + job_.this_host +
                                                "; NCCL_IB_HCA is not set, so NCCL may use " +
                                                join(active_elsewhere, ", ") +
                                                ", left out as not compute");
            }
            return;
        }
        std::string rails_why;
        const auto rails = compute_rails(rails_why);
        std::string value = "=";
        for (std::size_t i = 0; i < compute_.size(); ++i) {
            value += (value.size() > 1 ? "," : "") + compute_[i].id() +
                     (rails.empty() ? std::string() : ":" + std::to_string(rails[i]));
        }
        std::string why = std::to_string(compute_.size()) + " ACTIVE compute port(s), " + decided;
        if (!left_out.empty()) {
            std::vector<std::string> copy(left_out.begin(), left_out.end());
            why += "; left out: " + join(copy, ", ");
        }
        set("NCCL_IB_HCA", value, "R1 compute ports", why + rails_why);
    }

    /// ConnectX-9 (PCI 15b3:1025; mlx5's sysfs hca_type is "MT" and the device id in decimal).
    static bool connectx9(const Nic& nic) { return nic.hca_type == "MT4133"; }

    /// R1's rail fields (NCCL >= 2.30 reads `dev:port:rail`): each compute port's rail, the
    /// index of its HCA's name among the map's rail names, the same on every host. Only on a
    /// rail-optimized SU whose rails the map lists for every compute port; none where NCCL
    /// >= 2.32 finds the rails (and planes) of ConnectX-9 itself. Empty: no rail fields;
    /// `why` then says why when it matters.
    std::vector<std::size_t> compute_rails(std::string& why) const {
        if (policy_.min_version < NcclVersion{2, 30, 0} || map_ == nullptr) {
            return {};
        }
        const auto* host = map_->find_host(job_.this_host);
        if (host == nullptr || map_->sus[host->su].leaves.size() < 2 ||
            (policy_.rail_optimized && !*policy_.rail_optimized)) {
            return {};  // not rail-optimized: NCCL pairs NICs by its own search
        }
        if (policy_.min_version >= NcclVersion{2, 32, 0} &&
            std::any_of(compute_.begin(), compute_.end(),
                        [](const Port& p) { return connectx9(*p.nic); })) {
            why =
                "; no rail fields: NCCL 2.32 and later find ConnectX-9 rails and planes "
                "themselves";
            return {};
        }
        // A rail field is the HCA name's index in the map's list: only where each rail has
        // one name (a dump where some hosts call their HCAs HCA-1 and others mlx5_0 has more
        // names than any SU has rails).
        std::size_t most_rails = 0;
        for (const auto& su : map_->sus) {
            most_rails = std::max(most_rails, su.leaves.size());
        }
        if (map_->hcas.size() > most_rails) {
            why = "; no rail fields: the fabric map names " + std::to_string(map_->hcas.size()) +
                  " HCAs for at most " + std::to_string(most_rails) +
                  " rails per SU (hosts name their HCAs differently)";
            return {};
        }
        std::set<std::string> mine;
        for (const auto& r : map_->rails_of(*host)) {
            mine.insert(map_->hcas[r.hca]);
        }
        std::vector<std::size_t> out;
        for (const auto& p : compute_) {
            const auto it = std::find(map_->hcas.begin(), map_->hcas.end(), p.nic->name);
            if (it == map_->hcas.end() || !mine.contains(p.nic->name)) {
                why = "; no rail fields: the fabric map has no rail " + p.nic->name + " for " +
                      job_.this_host;
                return {};
            }
            out.push_back(static_cast<std::size_t>(it - map_->hcas.begin()));
        }
        why = "; rails from the fabric map (rail-optimized SU " + map_->sus[host->su].name +
              "; NCCL 2.30 and later pair NICs of the same rail across nodes)";
        return out;
    }

    void socket_ifname() {
        if (!policy_.socket_ifname.empty()) {
            set("NCCL_SOCKET_IFNAME", policy_.socket_ifname, "R2 bootstrap network",
                "policy nccl.socket_ifname");
        } else {
            unset("NCCL_SOCKET_IFNAME", "no policy value; NCCL prefers ib* and avoids lo/docker*");
        }
    }

    [[nodiscard]] bool roce() const {
        return !compute_.empty() &&
               std::all_of(compute_.begin(), compute_.end(),
                           [](const Port& p) { return p.port->link_layer == "Ethernet"; });
    }

    /// R3: GID index for old NCCL when uniform; address family/range for new NCCL.
    void roce_addressing() {
        if (!roce()) {
            return;
        }
        if (policy_.min_version < NcclVersion{2, 21, 0}) {
            d_.read_gids = true;
            std::set<int> indices;
            for (const auto& p : compute_) {
                int found = -1;
                for (const auto& g : p.port->gids) {
                    if (g.type == "RoCE v2" &&
                        g.gid.starts_with("0000:0000:0000:0000:0000:ffff:")) {
                        found = g.index;
                        break;
                    }
                }
                indices.insert(found);
            }
            if (indices.size() == 1 && *indices.begin() >= 0) {
                set("NCCL_IB_GID_INDEX", std::to_string(*indices.begin()), "R3 RoCE GID",
                    "NCCL < 2.21 and every compute port has its IPv4 RoCE v2 GID at this index");
            } else {
                unset("NCCL_IB_GID_INDEX",
                      "the IPv4 RoCE v2 GID index differs between ports or is missing");
                d_.warnings.push_back(
                    "RoCE ports disagree on the RoCE v2 GID index; set NCCL_IB_GID_INDEX per job");
            }
            return;
        }
        if (!policy_.ib_addr_family.empty()) {
            set("NCCL_IB_ADDR_FAMILY", policy_.ib_addr_family, "R3b RoCE addressing",
                "policy nccl.ib_addr_family");
        }
        if (!policy_.ib_addr_range.empty()) {
            set("NCCL_IB_ADDR_RANGE", policy_.ib_addr_range, "R3b RoCE addressing",
                "policy nccl.ib_addr_range");
        }
    }

    /// R4: rail-optimized SU → 0; all the node's NICs on one leaf → 1.
    void cross_nic() {
        const auto* host = map_ != nullptr ? map_->find_host(job_.this_host) : nullptr;
        if (policy_.rail_optimized) {
            set("NCCL_CROSS_NIC", *policy_.rail_optimized ? "0" : "1", "R4 rails",
                "policy nccl.rail_optimized");
            return;
        }
        if (host == nullptr) {
            unset("NCCL_CROSS_NIC",
                  map_ == nullptr ? "no fabric map" : job_.this_host + " is not in the fabric map");
            return;
        }
        const auto& su = map_->sus[host->su];
        std::set<std::uint32_t> leaves;
        for (const auto& r : map_->rails_of(*host)) {
            leaves.insert(r.leaf);
        }
        if (su.leaves.size() > 1) {
            set("NCCL_CROSS_NIC", "0", "R4 rails",
                "rail-optimized: SU " + su.name + " has " + std::to_string(su.leaves.size()) +
                    " leaves, one per rail");
        } else if (leaves.size() == 1) {
            set("NCCL_CROSS_NIC", "1", "R4 rails",
                "all HCAs of " + job_.this_host + " on leaf " +
                    map_->switches[*leaves.begin()].name);
        } else {
            unset("NCCL_CROSS_NIC", "mixed cabling");
        }
    }

    void qps() {
        if (roce()) {
            set("NCCL_IB_QPS_PER_CONNECTION", std::to_string(policy_.roce_qps_per_connection),
                "R5 RoCE ECMP", "compute ports are RoCE: more QPs spread flows over ECMP paths");
        }
    }

    /// R6: old NCCL only, for a job across Dragonfly+ groups or very large, or a release whose
    /// default is under 20. NCCL 2.23 and later default to 20 (about 4 s before a retry), which
    /// serves such jobs: nothing is set for them.
    void ib_timeout() {
        if (policy_.min_version >= NcclVersion{2, 23, 0}) {
            unset("NCCL_IB_TIMEOUT", "NCCL defaults to 20 since 2.23 (nccl.min_version " +
                                         to_string(policy_.min_version) + ")");
            return;
        }
        std::set<std::uint32_t> groups;
        if (map_ != nullptr) {
            for (const auto& h : job_.hosts) {
                if (const auto* mh = map_->find_host(h)) {
                    groups.insert(map_->sus[mh->su].group);
                }
            }
        }
        const bool dfp =
            map_ != nullptr && map_->kind == FabricKind::DragonflyPlus && groups.size() > 1;
        if (dfp || job_.hosts.size() > policy_.large_job_nodes) {
            set("NCCL_IB_TIMEOUT", "22", "R6 IB timeout",
                dfp ? "the job spans " + std::to_string(groups.size()) + " Dragonfly+ groups"
                    : std::to_string(job_.hosts.size()) + " nodes > " +
                          std::to_string(policy_.large_job_nodes));
        } else if (const auto* d = nccl_param("NCCL_IB_TIMEOUT", policy_.min_version);
                   d != nullptr && parse_uint(d->default_value).value_or(20) < 20) {
            // The default NCCL's own source gives that release (18 before 2.23, then 20).
            set("NCCL_IB_TIMEOUT", "20", "R6 IB timeout",
                "NCCL " + to_string(policy_.min_version) + " defaults to " +
                    std::string(d->default_value));
        }
    }

    void nvls() {
        const bool oversubscribed = !node_.gpus.empty() && job_.tasks_per_node > node_.gpus.size();
        const bool part = job_.gpus_allocated && *job_.gpus_allocated < node_.gpus.size();
        if (!job_.exclusive || part || oversubscribed) {
            set("NCCL_NVLS_ENABLE", "0", "R10 NVLS",
                !job_.exclusive ? "the node is shared with other jobs"
                : part
                    ? "the job holds " + std::to_string(*job_.gpus_allocated) + " of this node's " +
                          std::to_string(node_.gpus.size()) + " GPUs: the node is shared"
                    : "more than one rank per GPU");
        }
    }

    /// R18 and R19 (rules_job.cpp).
    void inspector() { decide_inspector(policy_, job_, d_); }
    void ras_addr() { decide_ras_addr(policy_, node_, job_, d_); }

    /// R17 (rules_mnnvl.cpp).
    void mnnvl() { decide_mnnvl(policy_, map_, job_, d_); }

    void obsolete(const std::map<std::string, std::string>& user_env) {
        for (const auto& [name, value] : user_env) {
            if (auto why = obsolete_variable(name)) {
                d_.warnings.push_back(name + "=" + value + " has no effect: " + std::string(*why));
            }
            if (name == "NCCL_IB_RETRY_CNT" && parse_uint(value).value_or(8) > 7) {
                d_.warnings.push_back("NCCL_IB_RETRY_CNT=" + value + " is outside 0-7");
            }
        }
    }
};

bool profile_matches(const NcclProfile& p,
                     const NcclPolicy& policy,
                     const NodeTopology& node,
                     const fabric::FabricMap* map,
                     const JobFacts& job) {
    if (!p.match_shape.found_in(node.shape)) {
        return false;
    }
    if (p.match_fabric && (map == nullptr || map->kind != *p.match_fabric)) {
        return false;
    }
    const auto n = job.hosts.size();
    if (n < p.min_nodes || (p.max_nodes != 0 && n > p.max_nodes)) {
        return false;
    }
    return p.nccl_versions.empty() || p.nccl_versions.contains(policy.min_version);
}

void apply_profile(const NcclProfile& p, NcclDecision& d) {
    for (const auto& [var, value] : p.set) {
        const std::string& name = var;  // clang 14 cannot capture a structured binding
        auto it = std::find_if(d.set.begin(), d.set.end(),
                               [&name](const EnvChoice& c) { return c.name == name; });
        EnvChoice c{name, value, "profile " + p.name, "set by the policy profile", p.enforce};
        if (it != d.set.end()) {
            c.why += " (rule " + it->rule + " said '" + it->value + "')";
            *it = std::move(c);
        } else {
            d.set.push_back(std::move(c));
        }
    }
}

}  // namespace

NcclDecision decide_node_env(const NcclPolicy& policy,
                             const NodeTopology& node,
                             const fabric::FabricMap* map,
                             const JobFacts& job,
                             const NcclEnvChoice& choice,
                             const std::map<std::string, std::string>& user_env) {
    if (choice.kind == NcclEnvChoice::Kind::Off || !policy.enabled) {
        NcclDecision off;
        off.unset.push_back(std::string("all: ") +
                            (policy.enabled ? "--nccl-env=off" : "nccl.enabled is false"));
        return off;
    }
    auto d = Rules(policy, node, map, job).run(user_env);
    for (const auto& p : policy.profiles) {
        if (p.automatic && profile_matches(p, policy, node, map, job)) {
            apply_profile(p, d);
        }
    }
    if (choice.kind == NcclEnvChoice::Kind::Profile) {
        const auto* p = policy.find_profile(choice.profile);
        if (p == nullptr || !p->user_selectable) {
            d.warnings.push_back(
                "--nccl-env=" + choice.profile +
                ": no such user-selectable profile; allowed: " + policy.user_profile_names());
        } else {
            if (!profile_matches(*p, policy, node, map, job)) {
                d.warnings.push_back("profile " + p->name +
                                     " does not match this node or job; applied as asked");
            }
            apply_profile(*p, d);
        }
    }
    return d;
}

std::vector<int> parse_cpu_list(std::string_view list) {
    // CPU ids and their count are bounded: the list can come from a step's environment.
    constexpr std::uint64_t kMaxCpuId = 1u << 20;
    constexpr std::size_t kMaxCpus = 1u << 16;
    std::vector<int> out;
    for (auto part : split(list, ',')) {
        part = trim(part);
        const auto dash = part.find('-');
        const auto lo = parse_uint(part.substr(0, dash));
        const auto hi = dash == std::string_view::npos ? lo : parse_uint(part.substr(dash + 1));
        if (!lo || !hi || *hi < *lo || *hi > kMaxCpuId) {
            continue;
        }
        for (auto c = *lo; c <= *hi && out.size() < kMaxCpus; ++c) {
            out.push_back(static_cast<int>(c));
        }
    }
    return out;
}

std::optional<EnvChoice> decide_cpu_affinity(const NodeTopology& node,
                                             const std::vector<int>& task_cpus,
                                             const std::vector<int>& gpus) {
    std::set<int> numa;
    for (const auto& g : node.gpus) {
        if ((gpus.empty() || std::find(gpus.begin(), gpus.end(), g.index) != gpus.end()) &&
            g.place.numa >= 0) {
            numa.insert(g.place.numa);
        }
    }
    if (numa.empty() || task_cpus.empty()) {
        return std::nullopt;
    }
    std::set<int> local;
    for (const auto& n : node.numa) {
        if (numa.count(n.os_index) != 0) {
            for (const int c : parse_cpu_list(n.cpus)) {
                local.insert(c);
            }
        }
    }
    if (std::any_of(task_cpus.begin(), task_cpus.end(),
                    [&](int c) { return local.count(c) != 0; })) {
        return std::nullopt;
    }
    return cpu_affinity_choice();
}

EnvChoice cpu_affinity_choice() {
    return EnvChoice{"NCCL_IGNORE_CPU_AFFINITY", "1", "R11 CPU affinity",
                     "the task's CPUs are on no NUMA node of its GPUs", false};
}

std::optional<std::string> check_user_profile(const NcclPolicy& policy, std::string_view name) {
    const auto* p = policy.find_profile(name);
    if (p == nullptr) {
        return "--nccl-env: unknown profile '" + std::string(name) + "'; allowed: auto, off, " +
               policy.user_profile_names();
    }
    if (!p->user_selectable) {
        return "--nccl-env: profile '" + std::string(name) +
               "' is not user-selectable; allowed: auto, off, " + policy.user_profile_names();
    }
    return std::nullopt;
}

}  // namespace switchyard::nccl
