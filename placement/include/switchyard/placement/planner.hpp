// SPDX-License-Identifier: Apache-2.0
// The pipeline-stage planner: which nodes form each stage and in which order ranks go, so that
// stages sit inside one scalable unit (else one group) and adjacent stages stay close; plus the
// α–β cost model that scores any node order (reference/nccl.md section 8).
#pragma once

#include <string>
#include <vector>

#include "switchyard/common/job_options.hpp"
#include "switchyard/common/result.hpp"
#include "switchyard/fabric/fabric_map.hpp"

namespace switchyard::placement {

/// Cost model parameters of the planner (reference/nccl.md 8.4), calibrated for NDR (sources in
/// docs/design.md, "Cost model"): a port as NCCL reaches it, NCCL's own per-step latency.
struct PlacementPolicy {
    double link_gbps = 47.5;     ///< GB/s per rail port and direction as NCCL reaches it
    double alpha_net_us = 14;    ///< per ring step between nodes (NCCL's NET/Ring/Simple latency)
    double alpha_hop_us = 0.25;  ///< per extra switch hop
    double leaf_oversubscription = 1;  ///< only for maps without uplink counts (version < 4)
    unsigned global_links = 8;         ///< Dragonfly+ cables per group pair and rail, likewise
    double grad_gbytes = 2;            ///< DP all-reduce per stage and step
    double activation_mbytes = 64;     ///< one micro-batch at a PP boundary
    unsigned micro_batches = 8;
    double nvlink_gbps = 900;    ///< GB/s per GPU and direction inside an NVLink domain
    double alpha_nvlink_us = 3;  ///< per ring step over NVLink
    bool stripe_stages = false;  ///< placement.stripe_stages: auto (true) or never (default)
};

struct PlannedStage {
    unsigned index = 0;
    std::vector<std::string> nodes;   ///< in rank order
    std::vector<std::string> sus;     ///< distinct SUs spanned, in order ("?" = not in the map)
    std::vector<std::string> groups;  ///< distinct groups spanned
};

/// Counts the objective ranks plans by, best first.
struct PlanFacts {
    unsigned stages_in_one_su = 0;
    unsigned stages_in_one_group = 0;
    unsigned adjacent_in_one_group = 0;     ///< boundaries k|k+1 whose two stages share one group
    unsigned outside_scope = 0;             ///< stages that break the requested scope
    unsigned nvl_groups = 0;                ///< groups of --nvl-group nodes in rank order
    unsigned nvl_groups_in_one_domain = 0;  ///< of them, inside one NVLink domain
};

/// What limits a flow's bandwidth: its node port (the default), its SU's uplinks (leaving it)
/// or downlinks (entering it), the global cables between two Dragonfly+ groups, a 3-level
/// fat tree's pod cables to the core (leaving or entering the pod), or NVLink (both ends in
/// one healthy NVLink domain: `a` is the domain).
struct Limit {
    enum class Kind { Port, Uplinks, Downlinks, Global, PodUp, PodDown, NvLink } kind = Kind::Port;
    std::uint32_t a = 0;  ///< SU (uplinks, downlinks), first group (global) or pod; map index
    std::uint32_t b = 0;  ///< second group (global)
    double cables = 0;    ///< per rail
    double flows = 0;     ///< flows sharing them, this job's and the others'
};

/// The α–β cost of one training step's communication under a node order (seconds), with the
/// bandwidth per rail of the flow that paces each part and what limits it.
struct PlanCost {
    double dp = 0;     ///< slowest stage's DP ring all-reduce
    double pp = 0;     ///< slowest stage boundary's P2P traffic, all micro-batches
    double total = 0;  ///< dp + pp
    double dp_bytes_per_s = 0;
    double pp_bytes_per_s = 0;
    Limit dp_limit;
    Limit pp_limit;
    std::string why;  ///< the two limits in words, names from the map (what plan reports print)
};

struct StagePlan {
    unsigned stages = 0;
    unsigned nodes_per_stage = 0;
    std::vector<PlannedStage> stage_list;  ///< the stages in rank order
    std::vector<std::string> order;        ///< node order = rank order (stage 0's nodes first)
    PlanFacts facts;
    PlanFacts slurm_facts;  ///< the same for Slurm's order cut into stages
    PlanFacts bound;        ///< best achievable for these nodes (SU and group counts)
    PlanCost cost;
    PlanCost slurm_cost;
    PlanCost lower_bound_cost;  ///< every stage and boundary at local-link speed
    /// The stages are striped over the nodes (node p of the packed order to stage p mod S):
    /// the packed layout's pipeline sends crossed thin links, and the striped step models at
    /// most kStripeGain of the packed one. `packed_cost` is then what the packed layout costs.
    bool striped = false;
    PlanCost packed_cost;
    std::vector<std::string> notes;  ///< why the layout is what it is (printed with the plan)
    std::vector<std::string> warnings;
};

/// Cost model parameters (profile-overridable later; defaults from reference/nccl.md 8.3).
struct CostParams {
    double link_bytes_per_s = 47.5e9;  ///< per rail port and direction (NDR as NCCL reaches it)
    unsigned rails = 8;  ///< rail ports per node; the fabric map's count replaces it when known
    double alpha_net = 14e-6;            ///< per ring step between nodes, s
    double alpha_hop = 0.25e-6;          ///< per extra switch hop, s
    double leaf_oversubscription = 1.0;  ///< when the map has no uplink counts
    unsigned global_links = 8;           ///< Dragonfly+ cables per group pair and rail, likewise
    double grad_bytes = 2e9;             ///< DP all-reduce size per stage
    double activation_bytes = 64e6;      ///< one micro-batch's activations at a PP boundary
    unsigned micro_batches = 8;
    /// Inside a healthy NVLink domain: per GPU and direction (NVLink 5, 1.8 TB/s per GPU both
    /// ways; a GB200 tray has one rail NIC per GPU, so it stands in for a rail's bandwidth).
    double nvlink_bytes_per_s = 900e9;
    double alpha_nvlink = 3e-6;  ///< per ring step over NVLink, s
    /// Not a cost: whether the planner may stripe stages when the scope is `any` (the policy's
    /// placement.stripe_stages, off by default), so the plugin, `switchyard plan` and the audit
    /// decide alike.
    bool stripe = false;
};

/// Striping replaces the packed layout only when it models at most this share of its step:
/// a clear win, since the model's single ring per stage may flatter striping against NCCL's
/// own rings and trees.
inline constexpr double kStripeGain = 0.9;

/// The cost parameters a policy asks for.
[[nodiscard]] CostParams cost_params(const PlacementPolicy& p);

/// Plans `stages` stages over `nodes` (the step's nodes in any order: the plan depends on the
/// set only, with node names as the tie-break, so every node computes the same plan). Each
/// stage goes inside one SU, else one group (packed). With scope `any`, no `nvl_group` and
/// `params.stripe` (the policy's opt-in), a job whose packed pipeline sends are paced by SU
/// uplinks, global links or a pod's core links has its stages striped instead when that is
/// clearly faster (see StagePlan::striped): each stage's ring then enters and leaves each SU
/// or group once. Inside each SU the nodes of one NVLink domain are consecutive; with
/// `nvl_group` N, whole groups of N from each domain come first, so N consecutive ranks share
/// a domain wherever the nodes allow (PlanFacts::nvl_groups_in_one_domain counts them).
/// \return the plan, or Error::invalid_argument when the nodes do not divide into equal stages,
///         stages is 0, or a node appears twice.
[[nodiscard]] Result<StagePlan> plan_stages(const std::vector<std::string>& nodes,
                                            const fabric::FabricMap* map,
                                            unsigned stages,
                                            StageScope scope,
                                            const CostParams& params = {},
                                            unsigned nvl_group = 0);

/// `order` dealt into `stages` striped stages: node p to stage p mod `stages`, each stage's
/// nodes in `order`'s order, so node i of stage k and node i of stage k+1 are neighbours in
/// `order`. Empty when `stages` is 0 or does not divide the nodes.
[[nodiscard]] std::vector<std::vector<std::string>> stripe(const std::vector<std::string>& order,
                                                           unsigned stages);

/// Facts of a given node order cut into `stages` equal stages.
[[nodiscard]] PlanFacts order_facts(const std::vector<std::string>& order,
                                    const fabric::FabricMap* map,
                                    unsigned stages,
                                    StageScope scope);

/// Cost of a node order cut into `stages` equal stages.
[[nodiscard]] PlanCost order_cost(const std::vector<std::string>& order,
                                  const fabric::FabricMap* map,
                                  unsigned stages,
                                  const CostParams& params);

/// The cost of one step of a job whose stages are `stages` (node names in rank order) while
/// the jobs in `others` (their stages) run on the same fabric: the flows that cross an SU's
/// uplinks or a group pair's global links share them with the others' flows.
[[nodiscard]] PlanCost shared_cost(const std::vector<std::vector<std::string>>& stages,
                                   const std::vector<std::vector<std::vector<std::string>>>& others,
                                   const fabric::FabricMap* map,
                                   const CostParams& params);

/// Human-readable plan report (what --topo-report and `switchyard plan` print).
[[nodiscard]] std::string format_plan(const StagePlan& plan);

}  // namespace switchyard::placement
