// SPDX-License-Identifier: Apache-2.0
// The placement audit: a job's stages and requests against the fabric map.
#include "switchyard/placement/audit.hpp"

#include <algorithm>

#include "switchyard/common/hostlist.hpp"
#include "switchyard/common/strings.hpp"

namespace switchyard::placement {
namespace {

using Verdict = RequestCheck::Verdict;

void add_distinct(std::vector<std::string>& v, const std::string& s) {
    if (std::find(v.begin(), v.end(), s) == v.end()) {
        v.push_back(s);
    }
}

StageSpan span_of(unsigned index, std::vector<std::string> nodes, const fabric::FabricMap& map) {
    StageSpan s{index, std::move(nodes), {}, {}, {}};
    for (const auto& n : s.nodes) {
        const auto* h = map.find_host(n);
        if (h == nullptr) {
            add_distinct(s.sus, "?");
            continue;
        }
        const auto& su = map.sus[h->su];
        add_distinct(s.sus, su.name);
        add_distinct(s.groups, map.groups[su.group].name);
        add_distinct(s.domains, h->domain == fabric::kNoDomain ? "-" : map.domains[h->domain].name);
    }
    return s;
}

/// The fewest of `sizes` (nodes per SU) that add up to `n` nodes, the largest first.
unsigned fewest_of(std::vector<std::size_t> sizes, std::size_t n) {
    std::sort(sizes.rbegin(), sizes.rend());
    unsigned count = 0;
    for (const auto s : sizes) {
        if (n == 0) {
            break;
        }
        n -= std::min(n, s);
        ++count;
    }
    return count;
}

/// The fewest SUs whose hosts add up to `n` nodes.
unsigned fewest_sus(const fabric::FabricMap& map, std::size_t n) {
    std::vector<std::size_t> sizes;
    for (const auto& su : map.sus) {
        sizes.push_back(su.fabric_hosts());
    }
    return fewest_of(std::move(sizes), n);
}

std::string seconds(double s) {
    return short_number(s) + " s";
}

/// --segment=K: every base block holds a multiple of K of the job's nodes.
RequestCheck check_segment(const AuditedJob& job, const AuditContext& ctx) {
    RequestCheck c{"--segment=" + std::to_string(job.segment), Verdict::Honoured, {}};
    std::map<std::string, std::vector<std::string>> per_block;
    for (const auto& n : job.nodes) {
        std::string block;
        if (const auto it = ctx.block_of.find(n); it != ctx.block_of.end()) {
            block = it->second;
        } else if (const auto* h = ctx.map->find_host(n); h != nullptr && ctx.block_of.empty()) {
            block = ctx.map->sus[h->su].name;
        }
        if (block.empty()) {
            c.verdict = Verdict::Broken;
            c.detail = n + " is in no block of the installed map";
            return c;
        }
        per_block[block].push_back(n);
    }
    for (const auto& [block, nodes] : per_block) {
        if (nodes.size() % job.segment != 0) {
            c.verdict = Verdict::Broken;
            c.detail += (c.detail.empty() ? "" : "; ") + std::to_string(nodes.size()) +
                        " node(s) in block " + block + " (" + compress_hostlist(nodes) +
                        "), not whole segments of " + std::to_string(job.segment);
        }
    }
    if (c.verdict == Verdict::Honoured) {
        c.detail = std::to_string(job.nodes.size() / job.segment) + " segment(s) in " +
                   std::to_string(per_block.size()) + " block(s)";
    }
    return c;
}

/// --switches=N@wait: the job's nodes under at most N leaf switches (one per SU), unless Slurm
/// waited out the wait.
RequestCheck check_switches(const AuditedJob& job, unsigned sus) {
    RequestCheck c{"--switches=" + std::to_string(job.switches) +
                       (job.switch_wait_s ? "@" + seconds(*job.switch_wait_s) : ""),
                   Verdict::Honoured, std::to_string(sus) + " leaf switch(es)"};
    if (sus <= job.switches) {
        return c;
    }
    c.detail = "its nodes are under " + std::to_string(sus) + " leaf switches";
    if (!job.waited_s) {
        c.verdict = Verdict::Broken;
        c.detail += "; its start time is unknown";
    } else if (!job.switch_wait_s) {
        c.verdict = Verdict::Unchecked;
        c.detail += " after it waited " + seconds(*job.waited_s) +
                    "; how long Slurm could wait (its max_switch_wait) is not known";
    } else if (*job.waited_s >= *job.switch_wait_s) {
        c.verdict = Verdict::Relaxed;
        c.detail += " after it waited " + seconds(*job.waited_s) + " (Slurm may, after the wait)";
    } else {
        c.verdict = Verdict::Broken;
        c.detail += ", and it started after " + seconds(*job.waited_s);
    }
    return c;
}

RequestCheck check_expression(const std::string& option,
                              const std::string& expr,
                              bool hard,
                              const AuditedJob& job,
                              const AuditContext& ctx) {
    RequestCheck c{option + "=" + expr, Verdict::Honoured, {}};
    const auto holds = features_hold(expr, job.nodes, ctx.features);
    if (!holds) {
        c.verdict = Verdict::Unchecked;
        c.detail = "an expression the audit does not read";
    } else if (!*holds) {
        c.verdict = hard ? Verdict::Broken : Verdict::Relaxed;
        c.detail = hard ? "the job's nodes do not meet it"
                        : "not met (Slurm drops a preference it cannot meet)";
    }
    return c;
}

void check_stages(const AuditedJob& job, const AuditContext& ctx, JobAudit& out) {
    const auto scope = job.scope.value_or(StageScope::Any);
    auto plan = plan_stages(job.nodes, ctx.map, job.stages, scope, ctx.params, job.nvl_group);
    if (!plan) {
        out.checks.push_back({"--pipeline-stages=" + std::to_string(job.stages), Verdict::Unchecked,
                              plan.error().message()});
        return;
    }
    for (const auto& s : plan->stage_list) {
        out.stages.push_back(span_of(s.index, s.nodes, *ctx.map));
    }
    out.stages_in_one_su = plan->facts.stages_in_one_su;
    out.best_stages_in_one_su = plan->bound.stages_in_one_su;
    out.striped = plan->striped;
    // A switch count Slurm waited out explains a stage across SUs on a tree: Slurm relaxed
    // it as documented (the advice line tells such jobs to ask one): counted apart.
    const bool waited_out = job.switches > 0 && job.waited_s && job.switch_wait_s &&
                            *job.waited_s >= *job.switch_wait_s;
    if (scope != StageScope::Any) {
        RequestCheck c{"--stage-scope=" + std::string(to_string(scope)), Verdict::Honoured, {}};
        for (const auto& s : out.stages) {
            const auto& units = scope == StageScope::Leaf ? s.sus : s.groups;
            if (units.size() > 1 || (!units.empty() && units[0] == "?")) {
                c.verdict = Verdict::Broken;
                c.detail += (c.detail.empty() ? "" : "; ") + std::string("stage ") +
                            std::to_string(s.index) + " spans " + join(units, ", ");
            }
        }
        if (c.verdict == Verdict::Broken && waited_out) {
            c.verdict = Verdict::Relaxed;
            c.detail += "; Slurm started it after its --switches wait ran out, as it may";
        }
        out.checks.push_back(std::move(c));
    }
    if (job.nvl_group > 0 && plan->facts.nvl_groups > 0) {
        RequestCheck c{"--nvl-group=" + std::to_string(job.nvl_group), Verdict::Honoured,
                       std::to_string(plan->facts.nvl_groups_in_one_domain) + " of " +
                           std::to_string(plan->facts.nvl_groups) +
                           " NVLink group(s) inside one domain"};
        if (plan->facts.nvl_groups_in_one_domain < plan->facts.nvl_groups) {
            c.verdict = Verdict::Broken;
        }
        out.checks.push_back(std::move(c));
    }
}

}  // namespace

std::string_view to_string(RequestCheck::Verdict v) {
    switch (v) {
        case Verdict::Honoured:
            return "honoured";
        case Verdict::Broken:
            return "not honoured";
        case Verdict::Relaxed:
            return "relaxed";
        case Verdict::Unchecked:
            return "unchecked";
    }
    return "?";
}

bool JobAudit::broken() const {
    return std::any_of(checks.begin(), checks.end(),
                       [](const RequestCheck& c) { return c.verdict == Verdict::Broken; });
}

bool JobAudit::relaxed() const {
    return !broken() && std::any_of(checks.begin(), checks.end(), [](const RequestCheck& c) {
        return c.verdict == Verdict::Relaxed;
    });
}

std::optional<bool> features_hold(const std::string& expr,
                                  const std::vector<std::string>& nodes,
                                  const std::map<std::string, std::set<std::string>>& features) {
    const auto has = [&](const std::string& node, std::string_view f) {
        const auto it = features.find(node);
        return it != features.end() && it->second.contains(std::string(f));
    };
    std::string_view e = expr;
    const bool matching = e.size() >= 2 && e.front() == '[' && e.back() == ']';
    if (matching) {
        e = e.substr(1, e.size() - 2);
    }
    if (e.empty() || e.find_first_of("[]()*!,:") != std::string_view::npos) {
        return std::nullopt;
    }
    const bool any_of = e.find('|') != std::string_view::npos;
    if (any_of && e.find('&') != std::string_view::npos) {
        return std::nullopt;
    }
    const auto words = split(e, any_of ? '|' : '&');
    if (matching) {  // one same feature on every node
        if (!any_of && words.size() > 1) {
            return std::nullopt;
        }
        return std::any_of(words.begin(), words.end(), [&](std::string_view w) {
            return std::all_of(nodes.begin(), nodes.end(),
                               [&](const std::string& n) { return has(n, w); });
        });
    }
    return std::all_of(nodes.begin(), nodes.end(), [&](const std::string& n) {
        return any_of ? std::any_of(words.begin(), words.end(),
                                    [&](std::string_view w) { return has(n, w); })
                      : std::all_of(words.begin(), words.end(),
                                    [&](std::string_view w) { return has(n, w); });
    });
}

namespace {

/// A node's id in `index`, if it has one.
std::optional<std::uint32_t> id_of(const HoldingIndex& index,
                                   const fabric::FabricMap& map,
                                   std::string_view name) {
    if (const auto* h = map.find_host(name); h != nullptr) {
        return static_cast<std::uint32_t>(h - map.hosts.data());
    }
    if (const auto o = index.other.find(name); o != index.other.end()) {
        return o->second;
    }
    return std::nullopt;
}

}  // namespace

HoldingIndex index_holdings(const std::vector<Holding>& holdings,
                            const std::map<std::string, std::set<std::string>>& partitions,
                            const fabric::FabricMap& map) {
    HoldingIndex out;
    out.mapped = map.hosts.size();
    const auto ids = [&](const auto& names) {
        std::vector<std::uint32_t> v;
        v.reserve(names.size());
        for (const auto& n : names) {
            if (const auto id = id_of(out, map, n)) {
                v.push_back(*id);
            } else {
                const auto next = static_cast<std::uint32_t>(out.mapped + out.other.size());
                out.other.emplace(n, next);
                v.push_back(next);
            }
        }
        return v;
    };
    out.holdings.reserve(holdings.size());
    for (const auto& h : holdings) {
        out.holdings.push_back(ids(h.nodes));
    }
    for (const auto& [p, nodes] : partitions) {
        out.partitions.emplace(p, ids(nodes));
    }
    out.every_host.resize(map.hosts.size());
    for (std::uint32_t i = 0; i < out.every_host.size(); ++i) {
        out.every_host[i] = i;
    }
    return out;
}

BestAtStart best_at_start(const AuditedJob& job,
                          std::int64_t start,
                          const std::vector<std::uint32_t>& candidates,
                          const std::vector<Holding>& holdings,
                          const HoldingIndex& index,
                          const fabric::FabricMap& map) {
    enum : unsigned char { kFree, kHeld, kOwn, kCounted };
    std::vector<unsigned char> state(index.mapped + index.other.size(), kFree);
    for (std::size_t i = 0; i < holdings.size() && i < index.holdings.size(); ++i) {
        const auto& h = holdings[i];
        if (!h.reservation.empty() && h.reservation == job.reservation) {
            continue;  // it ran in that reservation: its nodes were there for it
        }
        if (h.id != job.id && h.start <= start && (!h.end || *h.end > start)) {
            for (const auto id : index.holdings[i]) {
                state[id] = kHeld;
            }
        }
    }
    BestAtStart out;
    std::vector<std::size_t> free_per_su(map.sus.size(), 0);
    const auto count = [&](std::uint32_t id) {
        ++out.free_nodes;
        if (id < index.mapped) {
            ++free_per_su[map.hosts[id].su];
        }
    };
    std::vector<std::uint32_t> own;            // its nodes the index knows
    std::set<std::string_view> own_elsewhere;  // and the others
    for (const auto& n : job.nodes) {  // it ran there: they were free to it, whatever was said
        if (const auto id = id_of(index, map, n)) {
            state[*id] = kOwn;
            own.push_back(*id);
        } else {
            own_elsewhere.insert(n);
        }
    }
    for (const auto id : candidates) {
        if (id < state.size() && state[id] == kFree) {
            state[id] = kCounted;
            count(id);
        }
    }
    for (const auto id : own) {
        if (state[id] == kOwn) {  // once each
            state[id] = kCounted;
            count(id);
        }
    }
    out.free_nodes += static_cast<unsigned>(own_elsewhere.size());
    const auto n = job.nodes.size();
    out.fewest_sus = fewest_of(free_per_su, n);
    if (job.stages > 0 && n % job.stages == 0) {
        const auto per_stage = n / job.stages;
        std::size_t fit = 0;
        for (const auto f : free_per_su) {
            fit += f / per_stage;
        }
        out.stages_in_one_su = static_cast<unsigned>(std::min<std::size_t>(fit, job.stages));
    }
    return out;
}

BestAtStart best_at_start(const AuditedJob& job,
                          std::int64_t start,
                          const std::set<std::string>& candidates,
                          const std::vector<Holding>& holdings,
                          const fabric::FabricMap& map) {
    const auto index = index_holdings(holdings, {{"", candidates}}, map);
    return best_at_start(job, start, index.partitions.at(""), holdings, index, map);
}

JobAudit audit_job(const AuditedJob& job, const AuditContext& ctx) {
    JobAudit out;
    out.id = job.id;
    out.partition = job.partition;
    if (ctx.map == nullptr) {
        return out;
    }
    std::vector<std::string> sus;
    for (const auto& n : job.nodes) {
        if (const auto* h = ctx.map->find_host(n); h != nullptr) {
            add_distinct(sus, ctx.map->sus[h->su].name);
        } else {
            out.unmapped.push_back(n);
        }
    }
    out.sus = static_cast<unsigned>(sus.size() + (out.unmapped.empty() ? 0 : 1));
    out.fewest_sus = fewest_sus(*ctx.map, job.nodes.size());
    out.finished = job.finished;
    if (ctx.holdings != nullptr && job.start_time) {
        std::optional<HoldingIndex> made;
        const auto* index = ctx.holding_index;
        if (index == nullptr) {
            made = index_holdings(*ctx.holdings, ctx.partition_nodes, *ctx.map);
            index = &*made;
        }
        const auto p = index->partitions.find(job.partition);
        out.at_start = best_at_start(job, *job.start_time,
                                     p != index->partitions.end() ? p->second : index->every_host,
                                     *ctx.holdings, *index, *ctx.map);
    }
    if (job.stages > 0 && !job.nodes.empty()) {
        check_stages(job, ctx, out);
    }
    if (job.segment > 0 && job.topology == "block") {
        out.checks.push_back(check_segment(job, ctx));
    }
    if (job.switches > 0 && job.topology == "tree") {
        out.checks.push_back(check_switches(job, out.sus));
    }
    if (!job.features.empty()) {
        out.checks.push_back(check_expression("--constraint", job.features, true, job, ctx));
    }
    if (!job.prefer.empty()) {
        out.checks.push_back(check_expression("--prefer", job.prefer, false, job, ctx));
    }
    return out;
}

}  // namespace switchyard::placement
