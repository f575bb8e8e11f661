// SPDX-License-Identifier: Apache-2.0
// `switchyard refresh`: one unattended round over a capture (etc/switchyard-refresh takes the
// capture, then runs this): each step's own options, given as the admin wrote them, parsed by
// that command's own option table; ops::run_refresh (ops/refresh.hpp) does the rest.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "switchyard/ops/refresh.hpp"

namespace switchyard::cli {
namespace {

struct RefreshArgs {
    std::string dump;
    std::string site_nodes;
    std::string slurm_dir = "/etc/slurm";
    std::string work;
    std::string metrics;
    std::string discover_args;
    std::string install_args;
    std::string steer_args;
    bool no_steer = false;
    std::string audit_metrics;
    std::string audit_since;
};

/// `words` split as the shell splits an unquoted setting (no pattern, no quotes), parsed with
/// `add`'s option table into `request`; false with the message in `why`.
template <typename Request, typename Add>
bool parse_step(const std::string& option,
                const std::string& words,
                Add add,
                Request& request,
                std::string& why) {
    std::vector<std::string> args;
    std::string word;
    for (const char c : words + " ") {
        if (c == ' ' || c == '\t' || c == '\n') {
            if (!word.empty()) {
                args.push_back(std::move(word));
                word.clear();
            }
        } else {
            word += c;
        }
    }
    CLI::App step;
    add(step, request);
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // as CLI11 takes them
    try {
        step.parse(reversed);
    } catch (const CLI::ParseError& e) {
        why = option + " '" + words + "': " + e.what();
        return false;
    }
    return true;
}

int refresh(const RefreshArgs& a) {
    ops::RefreshRequest r;
    r.work = a.work;
    r.discover.input = a.dump;
    r.discover.slurm_nodes = a.site_nodes;
    r.install.slurm_dir = a.slurm_dir;
    r.install.state = a.work + "/install.state";
    r.install.metrics = a.metrics;
    r.install.from = a.work + "/discover";
    std::string why;
    bool ok = parse_step("--discover-args", a.discover_args, discover_options, r.discover, why) &&
              parse_step("--install-args", a.install_args, install_options, r.install, why);
    if (ok && !a.no_steer) {
        r.steer.emplace();
        r.steer->apply = true;
        r.steer->state = a.work + "/steer.state";
        ok = parse_step("--steer-args", a.steer_args, steer_options, *r.steer, why);
    }
    if (!ok) {
        std::cerr << "switchyard refresh: " << why << "\n";
        return kExitUsage;
    }
    if (const int rc = check_install(r.install, why); rc != kExitOk) {
        std::cerr << "switchyard refresh: install: " << why << "\n";
        return rc;
    }
    if (!a.audit_metrics.empty()) {
        r.audit.emplace();
        r.audit->metrics = a.audit_metrics;
        r.audit->since = a.audit_since;
    }
    return ops::run_refresh(r, deps());
}

}  // namespace

void setup_refresh(CLI::App& cmd, Runner& run) {
    auto a = std::make_shared<RefreshArgs>();
    cmd.footer(
        "\nOne round of switchyard-refresh.service, after its capture: discover the dump with the\n"
        "site's NodeName lines into WORK/discover, install it under the guard, set steer's\n"
        "weights again (a slurmctld restart drops them) and audit. Each --*-args is that\n"
        "command's own options, split into words as written (no quotes, no patterns). Exit 0;\n"
        "1 when discover failed; else install's (4: the guard refused the capture).\n"
        "\nExamples:\n"
        "  switchyard refresh --ibnetdiscover dump.txt --slurm-nodes /etc/slurm/nodes.site "
        "--work /var/lib/switchyard/refresh\n"
        "  switchyard refresh --ibnetdiscover dump.txt --slurm-nodes nodes.site --work w "
        "--discover-args '--compute-hca mlx5_[0-7]' --audit-metrics audit.prom\n");
    cmd.add_option("--ibnetdiscover", a->dump, "the capture (ibnetdiscover output)")->required();
    cmd.add_option("--slurm-nodes", a->site_nodes, "the site's own NodeName lines")->required();
    cmd.add_option("--slurm-dir", a->slurm_dir, "the directory of slurm.conf")
        ->capture_default_str();
    cmd.add_option("--work", a->work, "the round's directory (discover's output, records)")
        ->required();
    cmd.add_option("--metrics", a->metrics, "install's node_exporter textfile");
    cmd.add_option("--discover-args", a->discover_args, "more discover options");
    cmd.add_option("--install-args", a->install_args, "more install options");
    cmd.add_option("--steer-args", a->steer_args, "more steer options");
    cmd.add_flag("--no-steer", a->no_steer, "leave the weights alone");
    cmd.add_option("--audit-metrics", a->audit_metrics,
                   "audit after the round, its node_exporter textfile here");
    cmd.add_option("--audit-since", a->audit_since, "the audit's window of ended jobs (sacct)");
    cmd.callback([&run, a] { run = [a] { return refresh(*a); }; });
}

}  // namespace switchyard::cli
