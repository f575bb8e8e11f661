// SPDX-License-Identifier: Apache-2.0
// `switchyard install`: puts a discover output in place for slurmctld, guarded, and takes it
// back with --rollback (ops/install.hpp does it; the layout is install_sets.hpp's).
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <system_error>

#include "commands.hpp"
#include "switchyard/common/file.hpp"
#include "switchyard/ops/install.hpp"

namespace switchyard::cli {
namespace {

namespace fs = std::filesystem;

using InstallArgs = ops::InstallRequest;

std::string default_slurm_dir() {
    if (const char* conf = std::getenv("SLURM_CONF"); conf != nullptr && *conf != '\0') {
        return parent_directory(conf);  // "." for a bare name, as Slurm opens it
    }
    return "/etc/slurm";
}

}  // namespace

int check_install(ops::InstallRequest& a, std::string& why) {
    if (a.rollback == !a.from.empty()) {
        why = "give --from DIR (a discover output) or --rollback";
        return kExitUsage;
    }
    if (a.topology != "auto" && a.topology != "tree" && a.topology != "block" &&
        a.topology != "yaml") {
        why = "--topology '" + a.topology + "': expected auto, tree, block or yaml";
        return kExitUsage;
    }
    for (const auto& [option, value] : {std::pair{"--max-hosts-lost", a.max_hosts_lost},
                                        {"--max-hosts-moved", a.max_hosts_moved}}) {
        if (!(value >= 0 && value <= 100)) {
            std::ostringstream o;
            o << option << " " << value << ": expected a percentage from 0 to 100";
            why = o.str();
            return kExitUsage;
        }
    }
    if (a.slurm_dir.empty()) {
        a.slurm_dir = default_slurm_dir();
    }
    std::error_code ec;
    if (!fs::is_directory(a.slurm_dir, ec)) {
        why = "--slurm-dir " + a.slurm_dir + ": not a directory (the directory of slurm.conf)";
        return kExitProblem;
    }
    return kExitOk;
}

namespace {

int run_install(const InstallArgs& a) {
    InstallArgs args = a;
    std::string why;
    if (const int rc = check_install(args, why); rc != kExitOk) {
        std::cerr << "switchyard install: " << why << "\n";
        return rc;
    }
    return ops::exit_code(ops::run_install(args, deps()));
}

}  // namespace

void install_options(CLI::App& cmd, ops::InstallRequest& a) {
    cmd.add_option("--from", a.from, "a discover output directory to install");
    cmd.add_flag("--rollback", a.rollback, "go back to the previous set");
    cmd.add_option("--slurm-dir", a.slurm_dir,
                   "the directory of slurm.conf (default: that of $SLURM_CONF, . for a bare "
                   "file name, else /etc/slurm)");
    cmd.add_option("--topology", a.topology,
                   "the topology slurmctld reads: auto (what DIR holds), tree, block or yaml")
        ->capture_default_str();
    cmd.add_option("--max-hosts-lost", a.max_hosts_lost,
                   "refuse a capture without more than this share of the hosts (percent)")
        ->capture_default_str();
    cmd.add_option("--max-hosts-moved", a.max_hosts_moved,
                   "refuse a capture that puts more than this share of the hosts in another SU "
                   "or group than the rest of theirs (percent)")
        ->capture_default_str();
    cmd.add_flag("--force", a.force, "install a capture the guard would refuse");
    cmd.add_flag("--no-reconfigure", a.no_reconfigure,
                 "only put the files in place (slurmctld reads them at its next reconfigure)");
    cmd.add_option("--state", a.state,
                   "the run's record: refusals, last change (a file in a directory only you "
                   "can write)")
        ->capture_default_str();
    cmd.add_option("--metrics", a.metrics, "also write node_exporter textfile metrics here");
    cmd.add_option("--lock-wait", a.lock_wait,
                   "seconds to wait while another install or rollback of DIR runs (both hold "
                   "DIR/switchyard.lock)")
        ->capture_default_str()
        ->check(CLI::Range(0U, 86400U));
    cmd.add_option("--keep", a.keep, "sets kept in DIR/switchyard.sets")
        ->capture_default_str()
        ->check(CLI::Range(2U, 100U));
}

void setup_install(CLI::App& cmd, Runner& run) {
    auto a = std::make_shared<InstallArgs>();
    cmd.footer(
        "\nPuts a discover output in place for slurmctld: a new set under\n"
        "DIR/switchyard.sets/, DIR/switchyard pointed at it (the previous set kept for\n"
        "--rollback), DIR/topology.conf or topology.yaml replaced by rename; then scontrol\n"
        "reconfigure, and slurmctld must list every SU in scontrol show topology (else the\n"
        "previous set goes back). A capture that is probably wrong is refused, exit 4, the\n"
        "installed files kept: more than --max-hosts-lost % of the hosts gone, a whole SU or\n"
        "group gone, the fabric kind changed, more than --max-hosts-moved % of the hosts in\n"
        "another SU or group than the rest of theirs, most SUs or groups renamed, or more\n"
        "than --max-hosts-lost % of the hosts with fewer rails; --force installs it anyway.\n"
        "\nExamples:\n  switchyard install --from /var/lib/switchyard/discover\n"
        "  switchyard install --rollback\n");
    install_options(cmd, *a);
    cmd.callback([&run, a] { run = [a] { return run_install(*a); }; });
}

}  // namespace switchyard::cli
