// SPDX-License-Identifier: Apache-2.0
// The refresh round (ops/refresh.hpp): four use cases in a row, with the round's own lines.
#include "switchyard/ops/refresh.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <system_error>

#include "switchyard/common/file.hpp"
#include "switchyard/ops/exit_codes.hpp"

namespace switchyard::ops {
namespace {

namespace fs = std::filesystem;

/// The audit after the install and the weights: its text kept in WORK/audit.txt, and two
/// lines for the round: slurmctld's topology and the summary. A job placed worse (exit 3) is
/// the metrics' news, not the round's failure.
void audit_round(const AuditRequest& a, const std::string& work, Deps& deps) {
    const auto report = run_audit(a, deps);
    if (!report.error.empty()) {
        std::ofstream(work + "/audit.err") << report.error << "\n";
        deps.out << "switchyard-refresh: audit failed (exit " << report.rc << "): " << report.error
                 << "\n";
        return;
    }
    std::ostringstream text;
    print_audit_text(report, text);
    if (auto w = write_file_atomic(work + "/audit.txt", text.str()); !w) {
        deps.err << "switchyard-refresh: audit: " << w.error().message() << "\n";
    }
    if (!a.metrics.empty()) {
        if (auto w = write_file_atomic(a.metrics, audit_metrics(report)); !w) {
            deps.out << "switchyard-refresh: audit failed (exit " << kExitProblem
                     << "): --metrics: " << w.error().message() << "\n";
            return;
        }
    }
    std::istringstream lines(text.str());
    std::string line;
    std::string last;
    bool topology = false;
    while (std::getline(lines, line)) {
        if (!topology && line.starts_with("slurmctld's topology")) {
            deps.out << "switchyard-refresh: audit: " << line << "\n";
            topology = true;
        }
        last = line;
    }
    deps.out << "switchyard-refresh: audit: " << last << "\n";
}

}  // namespace

int run_refresh(const RefreshRequest& request, Deps& deps) {
    const std::string out = request.work + "/discover";
    std::error_code ec;
    fs::remove_all(out + ".new", ec);
    auto discover = request.discover;
    discover.out_dir = out + ".new";
    if (run_discover(discover, deps) != DiscoverResult::Done) {
        deps.err << "switchyard-refresh: discover failed; the installed topology is unchanged\n";
        return kExitProblem;
    }
    fs::remove_all(out, ec);
    fs::rename(out + ".new", out, ec);
    if (ec) {
        deps.err << "switchyard-refresh: " << out << ": " << ec.message()
                 << "; the installed topology is unchanged\n";
        return kExitProblem;
    }
    auto install = request.install;
    install.from = out;
    const int installed = exit_code(run_install(install, deps));
    // Steer and the audit read the map slurmctld now runs (a refused capture left the old one).
    const std::string map = install.slurm_dir + "/switchyard/fabric.map";
    const bool map_readable = ::access(map.c_str(), R_OK) == 0;
    if (request.steer && map_readable) {
        auto steer = *request.steer;
        steer.map = map;
        const auto report = run_steer(steer, deps);
        print_steer(report, deps.out, deps.err);
        if (report.rc != kExitOk) {
            deps.out << "switchyard-refresh: steer failed (exit " << report.rc
                     << "); weights unchanged\n";
        }
    }
    if (request.audit && map_readable) {
        auto audit = *request.audit;
        audit.map = map;
        audit_round(audit, request.work, deps);
    }
    if (installed != kExitOk) {
        deps.err << "switchyard-refresh: install exit " << installed
                 << "; the installed topology is unchanged\n";
    }
    return installed;
}

}  // namespace switchyard::ops
