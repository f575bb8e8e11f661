// SPDX-License-Identifier: Apache-2.0
// `switchyard install`: a discover output put in place for slurmctld, guarded, and taken back
// with a rollback. The sets' layout is InstallSets' (install_sets.hpp).
#include "switchyard/ops/install.hpp"

#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>
#include <optional>
#include <ostream>
#include <sstream>
#include <system_error>

#include "switchyard/common/file.hpp"
#include "switchyard/common/process.hpp"
#include "switchyard/common/state_file.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/fabric/fabric_map.hpp"
#include "switchyard/fabric/map_diff.hpp"
#include "switchyard/ops/exit_codes.hpp"
#include "switchyard/ops/install_guard.hpp"
#include "switchyard/ops/install_sets.hpp"
#include "switchyard/slurm/client/scontrol.hpp"

namespace switchyard::ops {
namespace {

namespace fs = std::filesystem;

class Installer {
public:
    Installer(const InstallRequest& a, Deps& deps)
        : a_(a), dir_(a.slurm_dir), sets_(dir_), deps_(deps), out_(deps.out), err_(deps.err) {}

    InstallResult run() {
        if (auto d = ensure_private_dir(parent_directory(a_.state)); !d) {
            err_ << "switchyard install: --state: " << d.error().message() << "\n";
            return InstallResult::Problem;
        }
        const auto lock = lock_dir();
        if (!lock) {
            err_ << "switchyard install: " << lock.error().message() << "; nothing changed\n";
            return InstallResult::Problem;
        }
        const struct Unlock {
            int fd;
            ~Unlock() { ::close(fd); }  // closing releases the flock
        } unlock{*lock};
        if (auto d = slurm_dir_files(); !d) {
            err_ << "switchyard install: " << d.error().message() << "; nothing changed\n";
            return InstallResult::Problem;
        }
        auto text = read_owned_file(a_.state);
        state_ = InstallRecord::parse(text ? *text : "");
        state_.last_run = static_cast<std::uint64_t>(deps_.clock.now());
        const auto rc = a_.rollback ? rollback() : install();
        if (auto w = replace_owned_file(a_.state, state_.text()); !w) {
            err_ << "switchyard install: --state: " << w.error().message() << "\n";
        }
        write_metrics();
        return rc;
    }

private:
    /// DIR/switchyard.lock taken (waiting up to --lock-wait seconds for another install), our
    /// pid written in it for the next one's message. \return the descriptor holding it.
    Result<int> lock_dir() {
        // As root DIR must be root's alone: whoever else can write it can replace what
        // slurmctld reads, or plant links for install to copy.
        auto dir = open_input_dir(dir_.string());
        if (!dir) {
            return fail(Error::io("--slurm-dir: " + dir.error().message()));
        }
        ::close(*dir);
        std::error_code ec;
        const auto real = fs::canonical(dir_, ec);  // the lock's checks take no link
        const auto path = (dir_ / kInstallLockName).string();
        auto fd = open_owned_lock(((ec ? dir_ : real) / kInstallLockName).string());
        if (!fd) {
            return fail(Error::io(path + ": " + fd.error().message()));
        }
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(a_.lock_wait);
        bool said = false;
        while (::flock(*fd, LOCK_EX | LOCK_NB) != 0) {
            if (errno != EWOULDBLOCK && errno != EINTR) {
                const auto why = std::string(std::strerror(errno));
                ::close(*fd);
                return fail(Error::io(path + ": cannot lock: " + why));
            }
            char pid[32] = {};
            const auto n = ::pread(*fd, pid, sizeof pid - 1, 0);
            const auto holder =
                printable(trim(std::string_view(pid, n > 0 ? static_cast<std::size_t>(n) : 0U)));
            const auto by = holder.empty() ? std::string() : " (pid " + holder + ")";
            if (std::chrono::steady_clock::now() >= deadline) {
                ::close(*fd);
                return fail(Error::io("another install or rollback holds " + path + by + " after " +
                                      std::to_string(a_.lock_wait) + " s (--lock-wait)"));
            }
            if (!said) {
                out_ << "waiting for another install or rollback to finish: " << path << by << "\n"
                     << std::flush;
                said = true;
            }
            ::usleep(100 * 1000);
        }
        const auto me = std::to_string(::getpid()) + "\n";
        if (::ftruncate(*fd, 0) != 0 || ::pwrite(*fd, me.data(), me.size(), 0) < 0) {
            // Only the next waiter's message needs it.
        }
        return fd;
    }

    /// slurmctld's topology files in DIR are replaced by rename and copied into the sets as
    /// they are: a link there would be cut (and what it points at copied where anyone reads
    /// it), so only regular files are taken.
    Result<void> slurm_dir_files() const {
        for (const char* name : {"topology.conf", "topology.yaml"}) {
            const auto path = dir_ / name;
            std::error_code ec;
            const auto st = fs::symlink_status(path, ec);
            if (!fs::exists(st) || fs::is_regular_file(st)) {
                continue;
            }
            return fail(Error::io(
                path.string() + " is " +
                (fs::is_symlink(st) ? std::string("a symbolic link") : "not a regular file") +
                ": install replaces it by rename and keeps a copy of it in its sets, which it "
                "does only for a regular file of DIR; make it one (cp --remove-destination "
                "\"$(readlink -f " +
                path.string() + ")\" " + path.string() + ")"));
        }
        return {};
    }

    InstallResult problem(const std::string& message, const char* result = "failed") {
        err_ << "switchyard install: " << message << "\n";
        state_.last_result = result;
        return InstallResult::Problem;
    }

    InstallResult install() {
        const fs::path from(a_.from);
        auto capture = read_capture(from);
        if (!capture) {
            return problem(capture.error().message() + "; nothing installed");
        }
        auto& files = *capture;
        const auto map_path = (from / "fabric.map").string();
        if (!files.contains("fabric.map")) {
            return problem("--from " + a_.from +
                           " has no fabric.map (is it a discover output?); "
                           "nothing installed");
        }
        auto next = fabric::read_fabric_map(files["fabric.map"], map_path);
        if (!next) {
            return problem("--from " + a_.from + ": " + next.error().to_string() +
                           "; nothing installed");
        }
        capture_hosts_ = next->hosts.size();
        std::string kind = a_.topology;
        if (kind == "auto") {
            kind = sets_.installed_kind();
            if (kind.empty()) {
                return problem(dir_.string() +
                               " holds neither topology.conf nor topology.yaml: name the "
                               "topology slurmctld runs with --topology tree, block or yaml");
            }
        }
        if (auto checked = check_capture(*next, files); !checked) {
            const auto why = "--from " + a_.from + ": " + checked.error().message();
            if (!a_.force) {
                state_.refused++;
                state_.last_result = "refused";
                err_ << "switchyard install: refused, the installed files stay: " << why
                     << "; run discover again (it writes every file from one map), or --force "
                        "installs them anyway\n";
                return InstallResult::Refused;
            }
            out_ << "forced: " << why << "\n";
        }
        const auto [source, as] = slurm_file_for(kind);
        if (!files.contains(source)) {
            return problem("--from " + a_.from + " has no " + source + " (the " + kind +
                           " topology); run discover again, or name another --topology");
        }
        files["slurm/" + as] = files[source];

        // What changed against the set in use, or, when it has no map (the hand-made files a
        // rollback went back to), against the newest set that has one: a rollback must not
        // leave the next install unguarded.
        const auto current = sets_.current();
        auto installed_map = dir_ / "switchyard" / "fabric.map";
        if (std::error_code ec;
            !current.empty() && !fs::exists(fs::symlink_status(installed_map, ec))) {
            if (const auto newest = sets_.newest_with_map(current); !newest.empty()) {
                out_ << current << " in use has no fabric map; comparing with " << newest
                     << "'s, the newest set's\n";
                installed_map = dir_ / newest / "fabric.map";
            }
        }
        fabric::FabricMap installed;
        if (std::error_code ec; fs::exists(fs::symlink_status(installed_map, ec))) {
            auto m = fabric::read_fabric_map_file(installed_map.string());
            if (!m) {
                if (!a_.force) {
                    state_.refused++;
                    err_ << "switchyard install: refused, the installed files stay: the "
                            "installed map cannot be read ("
                         << m.error().message()
                         << "), so the new capture cannot be checked; --force installs "
                            "it\n";
                    state_.last_result = "refused";
                    return InstallResult::Refused;
                }
            } else {
                installed = std::move(*m);
            }
        }
        const auto diff = fabric::compare_maps(installed, *next);
        if (installed.hosts.empty()) {
            out_ << "no installed map to compare with: " << next->hosts.size() << " hosts, "
                 << next->sus.size() << " SUs, " << next->groups.size() << " groups ("
                 << fabric::to_string(next->kind) << ")\n";
        } else {
            out_ << fabric::format_diff(diff);
        }
        if (!current.empty() && sets_.holds(current, files)) {
            out_ << "installed: unchanged, nothing to do (" << (dir_ / "switchyard").string()
                 << " -> " << current << ")\n";
            state_.last_result = "unchanged";
            return InstallResult::Done;
        }
        const auto refusals =
            install_refusals(installed, *next, diff, {a_.max_hosts_lost, a_.max_hosts_moved});
        if (!refusals.empty()) {
            if (!a_.force) {
                state_.refused++;
                state_.last_result = "refused";
                err_ << "switchyard install: refused, the installed files stay ("
                     << (current.empty() ? std::string("none") : current)
                     << "); the new capture is probably wrong:\n";
                for (const auto& r : refusals) {
                    err_ << "  " << r << "\n";
                }
                err_ << "Check the fabric (subnet manager, cables, a partial "
                        "ibnetdiscover) and discover again; --force installs it anyway.\n";
                return InstallResult::Refused;
            }
            for (const auto& r : refusals) {
                out_ << "forced: " << r << "\n";
            }
        }

        auto target = sets_.add(files);
        if (!target) {
            return problem(target.error().message() + "; nothing installed");
        }
        const auto before = sets_.current();
        const auto before_previous = sets_.previous();
        if (auto s = sets_.activate(*target, before); !s) {
            return problem(s.error().message());
        }
        out_ << "installed: " << (dir_ / "switchyard").string() << " -> " << *target << ", "
             << (dir_ / as).string() << " (" << kind << " topology)"
             << (before.empty() ? "" : "; previous: " + before) << "\n";
        if (const auto r = reconfigure_or_put_back(*target, *next, before, before_previous);
            r != InstallResult::Done) {
            return r;
        }
        sets_.prune(a_.keep);
        state_.last_change = state_.last_run;
        state_.last_result = "installed";
        installed_map_ = std::move(*next);
        return InstallResult::Done;
    }

    /// The map of set `set`; an empty one for a set without (the hand-made files adopted at the
    /// first install), which slurmctld is then only asked to load.
    Result<fabric::FabricMap> set_map(const std::string& set) const {
        const auto path = dir_ / set / "fabric.map";
        if (std::error_code ec; !fs::exists(fs::symlink_status(path, ec))) {
            return fabric::FabricMap{};
        }
        return fabric::read_fabric_map_file(path.string());
    }

    /// Unless --no-reconfigure: slurmctld reconfigured and checked for set `target` (now in
    /// use, with `map`); if it does not take it, `back` is put back in use (`back_previous` the
    /// previous link again) and slurmctld reconfigured for it. Every way out says where the
    /// link, DIR's topology file and slurmctld are.
    InstallResult reconfigure_or_put_back(const std::string& target,
                                          const fabric::FabricMap& map,
                                          const std::string& back,
                                          const std::string& back_previous) {
        if (a_.no_reconfigure) {
            return InstallResult::Done;
        }
        auto c = slurm::reconfigure_and_check(deps_.slurm, dir_, map);
        if (c) {
            out_ << "slurmctld: reconfigured; scontrol show topology lists the " << map.sus.size()
                 << " SUs\n";
            return InstallResult::Done;
        }
        state_.last_result = "failed";
        err_ << "switchyard install: slurmctld did not take " << target << ": "
             << c.error().message() << "\n";
        const auto link = (dir_ / "switchyard").string();
        const auto left = "; " + link + " -> " + target +
                          " and its topology file stay in place: once slurmctld answers, run "
                          "scontrol reconfigure (or switchyard install --rollback)";
        if (back.empty()) {
            err_ << "switchyard install: no set was in use before, nothing to put back" << left
                 << "\n";
            return InstallResult::Problem;
        }
        auto back_map = set_map(back);
        if (!back_map) {
            err_ << "switchyard install: " << back << " not put back, its map cannot be read ("
                 << back_map.error().message() << ")" << left << "\n";
            return InstallResult::Problem;
        }
        if (auto s = sets_.activate(back, back_previous); !s) {
            err_ << "switchyard install: " << back << " not put back: " << s.error().message()
                 << left << "\n";
            return InstallResult::Problem;
        }
        err_ << "switchyard install: put back " << link << " -> " << back << " and its topology "
             << "file (previous: " << (back_previous.empty() ? "none" : back_previous) << "); "
             << target << " stays in switchyard.sets for a look\n";
        if (auto again = slurm::reconfigure_and_check(deps_.slurm, dir_, *back_map); !again) {
            err_ << "switchyard install: slurmctld did not reconfigure for " << back << " either ("
                 << again.error().message()
                 << "): it reads these files at its next reconfigure or start\n";
        } else {
            err_ << "switchyard install: slurmctld reconfigured for " << back << "\n";
        }
        return InstallResult::Problem;
    }

    InstallResult rollback() {
        const auto previous = sets_.previous();
        if (previous.empty() || !fs::is_directory(dir_ / previous)) {
            return problem((dir_ / "switchyard.previous").string() +
                           ": no previous set to go back to");
        }
        const auto current = sets_.current();
        auto map = set_map(previous);
        if (!map) {
            return problem(previous + ": its map cannot be read (" + map.error().message() +
                           "); nothing changed");
        }
        if (auto s = sets_.activate(previous, current); !s) {
            return problem(s.error().message());
        }
        out_ << "rolled back: " << (dir_ / "switchyard").string() << " -> " << previous
             << (map->hosts.empty() ? " (the files in place before the first install; no fabric "
                                      "map: the next install is checked against the newest set's)"
                                    : "")
             << (current.empty() ? "" : "; previous: " + current) << "\n";
        // Going forward again if slurmctld does not take it: the set it ran with.
        if (const auto r = reconfigure_or_put_back(previous, *map, current, previous);
            r != InstallResult::Done) {
            return r;
        }
        state_.last_change = state_.last_run;
        state_.last_result = "rolled-back";
        if (!map->hosts.empty()) {
            installed_map_ = std::move(*map);
        }
        return InstallResult::Done;
    }

    /// node_exporter textfile metrics: the installed fabric and this command's record.
    void write_metrics() {
        if (a_.metrics.empty()) {
            return;
        }
        if (!installed_map_) {
            auto m = fabric::read_fabric_map_file((dir_ / "switchyard" / "fabric.map").string());
            if (m) {
                installed_map_ = std::move(*m);
            }
        }
        std::ostringstream o;
        const auto gauge = [&](const std::string& name, const std::string& help) {
            o << "# HELP " << name << " " << help << "\n# TYPE " << name << " gauge\n";
        };
        if (installed_map_) {
            const auto& m = *installed_map_;
            gauge("switchyard_fabric_hosts", "Hosts in the installed fabric map.");
            o << "switchyard_fabric_hosts " << m.hosts.size() << "\n";
            gauge("switchyard_fabric_scalable_units", "Scalable units (leaf groups).");
            o << "switchyard_fabric_scalable_units " << m.sus.size() << "\n";
            gauge("switchyard_fabric_groups", "Dragonfly+ groups or pods.");
            o << "switchyard_fabric_groups " << m.groups.size() << "\n";
            std::map<std::string, std::size_t> kinds;
            for (const auto& an : m.anomalies) {
                kinds[an.kind]++;
            }
            gauge("switchyard_fabric_anomalies", "Anomalies of the installed fabric, by kind.");
            for (const char* k : {"missing-uplink", "uneven-uplinks", "missing-global-cable",
                                  "thin-global-links"}) {
                kinds.try_emplace(k, 0);
            }
            for (const auto& [k, n] : kinds) {
                o << "switchyard_fabric_anomalies{kind=\"" << k << "\"} " << n << "\n";
            }
            gauge("switchyard_fabric_cables_missing",
                  "Leaf uplinks missing against the best-cabled leaf of the same group.");
            o << "switchyard_fabric_cables_missing " << fabric::missing_uplink_cables(m) << "\n";
        }
        if (capture_hosts_) {
            gauge("switchyard_capture_hosts", "Hosts in the capture this run read.");
            o << "switchyard_capture_hosts " << *capture_hosts_ << "\n";
        }
        gauge("switchyard_install_last_run_timestamp_seconds", "When install last ran.");
        o << "switchyard_install_last_run_timestamp_seconds " << state_.last_run << "\n";
        gauge("switchyard_install_last_change_timestamp_seconds",
              "When install last changed the installed set (0: never).");
        o << "switchyard_install_last_change_timestamp_seconds " << state_.last_change << "\n";
        o << "# HELP switchyard_install_refused_total Captures the guard refused.\n"
             "# TYPE switchyard_install_refused_total counter\n"
             "switchyard_install_refused_total "
          << state_.refused << "\n";
        gauge("switchyard_install_last_result",
              "1 for the last run's result: installed, unchanged, refused, failed, "
              "rolled-back.");
        o << "switchyard_install_last_result{result=\"" << state_.last_result << "\"} 1\n";
        if (auto w = write_file_atomic(a_.metrics, o.str()); !w) {
            err_ << "switchyard install: --metrics: " << w.error().message() << "\n";
        }
    }

    const InstallRequest& a_;
    fs::path dir_;
    InstallSets sets_;
    Deps& deps_;
    std::ostream& out_;
    std::ostream& err_;
    InstallRecord state_;
    std::optional<fabric::FabricMap> installed_map_;
    std::optional<std::size_t> capture_hosts_;
};

}  // namespace

int exit_code(InstallResult result) {
    switch (result) {
        case InstallResult::Done:
            return kExitOk;
        case InstallResult::Refused:
            return kExitRefused;
        case InstallResult::Problem:
            break;
    }
    return kExitProblem;
}

InstallResult run_install(const InstallRequest& request, Deps& deps) {
    return Installer(request, deps).run();
}

}  // namespace switchyard::ops
