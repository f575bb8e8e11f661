// SPDX-License-Identifier: Apache-2.0
// `switchyard preflight` and `switchyard locate`: their options; ops/preflight.hpp does the rest.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "switchyard/ops/preflight.hpp"

namespace switchyard::cli {
namespace {

ops::PreflightFormat format_of(bool json, bool metrics) {
    return json ? ops::PreflightFormat::Json
                : (metrics ? ops::PreflightFormat::Metrics : ops::PreflightFormat::Text);
}

}  // namespace

void setup_preflight(CLI::App& cmd, Runner& run) {
    auto a = std::make_shared<ops::PreflightRequest>();
    auto json = std::make_shared<bool>(false);
    auto metrics = std::make_shared<bool>(false);
    cmd.footer(
        "\nExamples:\n  switchyard preflight --map fabric.map --hosts 'gpu[001-016]'\n"
        "  switchyard preflight --hosts \"$SLURM_JOB_NODELIST\" --results pairs.jsonl --json\n"
        "  switchyard preflight --hosts 'gpu[001-016]' --results pairs.jsonl --act --job 4711\n"
        "Exit: 0 no part at fault (or the plan printed), 1 a part at fault or a problem, 2 "
        "usage.\n");
    cmd.add_option("--map", a->map, "fabric map (default: the policy's fabric.map)");
    cmd.add_option("--policy", a->policy, "policy file (default /etc/slurm/switchyard.yaml)");
    cmd.add_option("--hosts", a->hosts, "the job's nodes, a Slurm host list")->required();
    cmd.add_option("--results", a->results,
                   "the pairs' results, one JSON object a line ('-': standard input); without "
                   "it, the pairs and rounds to measure");
    cmd.add_option("--rail", a->rails, "measure only this rail (HCA name; repeatable)");
    cmd.add_option("--job", a->job,
                   "the job's id: with --act it is requeued after a drain (and after a link "
                   "fault under preflight.on_link_fault: requeue)");
    cmd.add_flag("--act", a->act,
                 "drain the nodes at fault (owned reason, within health.breaker.max_nodes)");
    auto* j = cmd.add_flag("--json", *json, "JSON: faults with evidence, failures, actions");
    cmd.add_flag("--metrics", *metrics, "node_exporter textfile metrics")->excludes(j);
    auto agent = std::make_shared<bool>(false);
    auto* ag = cmd.add_flag("--agent", *agent,
                            "run this node's share of the rounds (--me), printing one result "
                            "line per pair it is the client of");
    cmd.add_option("--me", a->me, "this node (with --agent or --prolog)");
    cmd.add_option("--start", a->start,
                   "the rounds' common start, epoch seconds (with --agent; default now)")
        ->needs(ag);
    auto prolog = std::make_shared<bool>(false);
    auto* pr = cmd.add_flag("--prolog", *prolog,
                            "the --preflight job option, run by the gate's prolog on each node "
                            "(--me, --job, --policy): the first node gathers, locates and acts; "
                            "exit 5 when this node was drained")
                   ->excludes(ag);
    cmd.add_option("--mode", a->mode, "with --prolog: quick or full")
        ->check(CLI::IsMember({"quick", "full"}))
        ->needs(pr);
    cmd.callback([&run, a, json, metrics, agent, prolog] {
        run = [a, json, metrics, agent, prolog] {
            if (*prolog) {
                const auto report = ops::run_preflight_prolog(*a, deps());
                if (report.measured) {
                    ops::print_preflight(report, ops::PreflightFormat::Text, std::cout, std::cerr);
                } else {
                    for (const auto& n : report.notes) {
                        std::cerr << "switchyard preflight: " << n << '\n';
                    }
                }
                if (!report.error.empty()) {
                    std::cerr << "switchyard preflight: " << report.error << '\n';
                    return report.rc;
                }
                std::cout << "switchyard preflight: job " << a->job << " on " << a->me << ": "
                          << (report.rc == ops::kExitNodeAtFault ? "at fault: " : "")
                          << report.verdict << '\n';
                return report.rc;
            }
            if (*agent) {
                const auto report = ops::run_preflight_agent(*a, deps());
                for (const auto& n : report.notes) {
                    std::cerr << "switchyard preflight: " << n << '\n';
                }
                if (!report.error.empty()) {
                    std::cerr << "switchyard preflight: " << report.error << '\n';
                }
                return report.rc;
            }
            auto report = ops::run_preflight(*a, deps());
            ops::print_preflight(report, format_of(*json, *metrics), std::cout, std::cerr);
            std::cout << std::flush;
            if (ops::requeue_after(*a, report, deps())) {
                std::cerr << report.actions.back().message << '\n';
                if (report.actions.back().what != "requeued") {
                    return ops::kExitProblem;
                }
            }
            return report.rc;
        };
    });
}

void setup_locate(CLI::App& cmd, Runner& run) {
    auto a = std::make_shared<ops::LocateRequest>();
    auto json = std::make_shared<bool>(false);
    auto metrics = std::make_shared<bool>(false);
    cmd.footer(
        "\nExamples:\n  switchyard locate --inspector /shared/nccl-inspector-4711\n"
        "  switchyard locate --inspector dir --map fabric.map --metrics\n"
        "Exit: 0 no rank slow, 1 slow ranks (or a problem), 2 usage.\n");
    cmd.add_option("--inspector", a->inspector,
                   "NCCL Inspector's output directory of one job (NCCL_INSPECTOR_DUMP_DIR)")
        ->required();
    cmd.add_option("--map", a->map, "fabric map (default: the policy's fabric.map)");
    cmd.add_option("--policy", a->policy, "policy file (default /etc/slurm/switchyard.yaml)");
    cmd.add_option("--threshold", a->threshold,
                   "a rank is slow at a robust z-score of minus this or under (default 3.5)")
        ->check(CLI::Range(0.5, 100.0));
    auto* j = cmd.add_flag("--json", *json, "JSON: slow ranks and the parts they point at");
    cmd.add_flag("--metrics", *metrics, "node_exporter textfile metrics")->excludes(j);
    cmd.callback([&run, a, json, metrics] {
        run = [a, json, metrics] {
            const auto report = ops::run_locate(*a, deps());
            ops::print_locate(report, format_of(*json, *metrics), std::cout, std::cerr);
            return report.rc;
        };
    });
}

}  // namespace switchyard::cli
