// SPDX-License-Identifier: Apache-2.0
// `switchyard install`: puts a discover output in place for slurmctld, guarded, and takes it
// back with --rollback.
//
// Layout in the Slurm configuration directory (DIR, /etc/slurm by default):
//   DIR/switchyard.sets/<UTC time>-<pid>/   one installed set: discover's files, and under
//                                           slurm/ the exact topology file written to DIR
//   DIR/switchyard -> switchyard.sets/<set>           the set in use (slurm.conf Includes
//                                                     DIR/switchyard/nodes.conf, the filters
//                                                     read DIR/switchyard/job_submit_hints.lua)
//   DIR/switchyard.previous -> switchyard.sets/<set>  what --rollback goes back to
//   DIR/topology.conf or DIR/topology.yaml            what slurmctld reads
// Each name is replaced by a rename, so a reader sees the old set or the new one, never half.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "commands.hpp"
#include "io.hpp"
#include "switchyard/common/process.hpp"
#include "switchyard/common/state_file.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/fabric/fabric_map.hpp"
#include "switchyard/fabric/map_diff.hpp"
#include "switchyard/slurmconf/install_guard.hpp"

namespace switchyard::cli {
namespace {

namespace fs = std::filesystem;

/// The files of a discover output that make a set (fabric.map is required).
constexpr const char* kSetFiles[] = {
    "fabric.map",          "fabric.map.index",     "topology.conf",
    "topology-block.conf", "topology.yaml",        "node-features.conf",
    "node-features.sh",    "job_submit_hints.lua", "nodes.conf"};

struct InstallArgs {
    std::string from;
    std::string slurm_dir;
    std::string topology = "auto";
    std::string state = "/var/lib/switchyard/install.state";
    std::string metrics;
    double max_hosts_lost = 5.0;
    bool force = false;
    bool rollback = false;
    bool no_reconfigure = false;
    unsigned keep = 4;
};

std::string default_slurm_dir() {
    if (const char* conf = std::getenv("SLURM_CONF"); conf != nullptr && *conf != '\0') {
        const auto dir = fs::path(conf).parent_path();
        if (!dir.empty()) {
            return dir.string();
        }
    }
    return "/etc/slurm";
}

bool is_link(const fs::path& p) {
    std::error_code ec;
    return fs::is_symlink(fs::symlink_status(p, ec));
}

bool exists_no_follow(const fs::path& p) {
    std::error_code ec;
    return fs::exists(fs::symlink_status(p, ec));
}

/// The topology kind slurmctld reads from `dir`: yaml when topology.yaml is there (Slurm 25.05+
/// reads it first), block or tree by topology.conf's lines; "" when there is neither.
std::string installed_kind(const fs::path& dir) {
    if (exists_no_follow(dir / "topology.yaml")) {
        return "yaml";
    }
    if (!exists_no_follow(dir / "topology.conf")) {
        return "";
    }
    auto text = read_text_file((dir / "topology.conf").string(), kSmallInput);
    if (text && text->find("BlockName=") != std::string::npos) {
        return "block";
    }
    return "tree";
}

/// The set file that becomes slurmctld's file for a kind, and the name slurmctld reads.
std::pair<std::string, std::string> slurm_file_for(const std::string& kind) {
    if (kind == "yaml") {
        return {"topology.yaml", "topology.yaml"};
    }
    if (kind == "block") {
        return {"topology-block.conf", "topology.conf"};
    }
    return {"topology.conf", "topology.conf"};
}

std::string utc_stamp() {
    const auto now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
    return buf;
}

/// A directory this command owns: made (mode) when absent; an existing one must be a real
/// directory of the running user that nobody else can write.
Result<void> own_dir(const fs::path& dir, mode_t mode) {
    if (::mkdir(dir.c_str(), mode) == 0) {
        return {};
    }
    if (errno != EEXIST) {
        return fail(Error::io(dir.string() + ": cannot create: " + std::strerror(errno)));
    }
    return check_owned_dir(dir.string(), static_cast<unsigned>(::geteuid()));
}

/// Points `link` at `target` by renaming a new link over it: readers see the old or the new.
Result<void> swap_link(const fs::path& link, const std::string& target) {
    const auto tmp = link.string() + ".tmp-" + std::to_string(::getpid());
    ::unlink(tmp.c_str());
    if (::symlink(target.c_str(), tmp.c_str()) != 0) {
        return fail(Error::io(tmp + ": cannot create a link: " + std::strerror(errno)));
    }
    if (::rename(tmp.c_str(), link.c_str()) != 0) {
        const auto why = std::string(std::strerror(errno));
        ::unlink(tmp.c_str());
        return fail(Error::io(link.string() + ": cannot replace: " + why));
    }
    return {};
}

/// The set a link names ("switchyard.sets/<set>"), or "" when it is not one of ours.
std::string link_target(const fs::path& link) {
    std::error_code ec;
    if (!is_link(link)) {
        return "";
    }
    const auto t = fs::read_symlink(link, ec);
    if (ec || t.is_absolute() || t.parent_path() != "switchyard.sets" ||
        t.filename().string().starts_with(".")) {
        return "";
    }
    return t.string();
}

/// Writes `files` (name → bytes) into a new set directory under `sets`.
Result<std::string> write_set(const fs::path& sets,
                              const std::string& name,
                              const std::map<std::string, std::string>& files) {
    const auto dir = sets / name;
    if (::mkdir(dir.c_str(), 0755) != 0) {
        return fail(Error::io(dir.string() + ": cannot create: " + std::strerror(errno)));
    }
    if (::mkdir((dir / "slurm").c_str(), 0755) != 0) {
        return fail(
            Error::io((dir / "slurm").string() + ": cannot create: " + std::strerror(errno)));
    }
    for (const auto& [file, bytes] : files) {
        if (auto w = write_file_atomic((dir / file).string(), bytes); !w) {
            std::error_code ec;
            fs::remove_all(dir, ec);
            return fail(w.error());
        }
    }
    return std::string("switchyard.sets/") + name;
}

/// The set directory's Slurm file (slurm/topology.conf or slurm/topology.yaml), if any.
std::optional<std::pair<std::string, std::string>> set_slurm_file(const fs::path& set) {
    for (const char* name : {"topology.yaml", "topology.conf"}) {
        auto text = read_text_file((set / "slurm" / name).string(), kSmallInput);
        if (text) {
            return std::make_pair(std::string(name), std::move(*text));
        }
    }
    return std::nullopt;
}

/// Removes sets beyond the newest `keep`, never the current or previous one.
void prune_sets(const fs::path& dir, unsigned keep) {
    const auto sets = dir / "switchyard.sets";
    const std::set<std::string> in_use = {link_target(dir / "switchyard"),
                                          link_target(dir / "switchyard.previous")};
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(sets, ec)) {
        const auto n = e.path().filename().string();
        if (!n.starts_with(".") && e.is_directory(ec) && !e.is_symlink(ec)) {
            names.push_back(n);
        }
    }
    std::sort(names.rbegin(), names.rend());  // newest first: names start with the UTC time
    for (std::size_t i = keep; i < names.size(); ++i) {
        if (!in_use.contains("switchyard.sets/" + names[i])) {
            fs::remove_all(sets / names[i], ec);
        }
    }
}

/// The SU names `scontrol show topology` lists (SwitchName= or BlockName= words).
std::set<std::string> shown_units(std::string_view output) {
    std::set<std::string> out;
    std::string text(output);
    std::replace_if(
        text.begin(), text.end(), [](char c) { return c == '\n' || c == '\t'; }, ' ');
    for (const auto word : split(text, ' ')) {
        for (const std::string_view key : {"SwitchName=", "BlockName="}) {
            if (word.starts_with(key)) {
                out.emplace(word.substr(key.size()));
            }
        }
    }
    return out;
}

/// Makes slurmctld load the files: job_submit.lua touched (slurmctld before 23.11 reloads it,
/// and with it slurm.conf's features, only when its mtime changes), `scontrol reconfigure`,
/// then slurmctld must answer and show every SU of `map` in `scontrol show topology`.
Result<void> reconfigure_and_check(const fs::path& dir, const fabric::FabricMap& map) {
    const auto lua = dir / "job_submit.lua";
    if (exists_no_follow(lua) && !is_link(lua)) {
        ::utimensat(AT_FDCWD, lua.c_str(), nullptr, 0);
    }
    const auto r = run_process({"scontrol", "reconfigure"}, 60);
    if (r.exit_code != 0) {
        return fail(Error::io("scontrol reconfigure: " + slurm_problem(r, "scontrol")));
    }
    // From 23.11 on slurmctld restarts itself to reconfigure: it may not answer at once.
    std::string last;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (true) {
        const auto t =
            run_process({"scontrol", "show", "topology"}, 30, nullptr, std::size_t{64} << 20);
        if (t.exit_code == 0) {
            const auto shown = shown_units(t.output);
            std::vector<std::string> missing;
            for (const auto& su : map.sus) {
                if (!shown.contains(su.name)) {
                    missing.push_back(su.name);
                }
            }
            if (missing.empty()) {
                return {};
            }
            last = "scontrol show topology does not list SU " + missing.front() + " (" +
                   std::to_string(missing.size()) + " of " + std::to_string(map.sus.size()) +
                   " SUs missing)";
        } else {
            last = "scontrol show topology: " + slurm_problem(t, "scontrol");
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            return fail(Error::io(last));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
}

/// Puts the set `target` (a "switchyard.sets/<set>" path) in use: its Slurm file written to
/// `dir`, the links swapped (the current set becomes the previous one).
Result<void> activate(const fs::path& dir, const std::string& target) {
    const auto slurm = set_slurm_file(dir / target);
    if (!slurm) {
        return fail(Error::io((dir / target / "slurm").string() +
                              ": holds neither topology.conf nor topology.yaml"));
    }
    const auto current = link_target(dir / "switchyard");
    if (auto w = write_file_atomic((dir / slurm->first).string(), slurm->second); !w) {
        return fail(w.error());
    }
    if (auto s = swap_link(dir / "switchyard", target); !s) {
        return fail(s.error());
    }
    if (!current.empty() && current != target) {
        if (auto s = swap_link(dir / "switchyard.previous", current); !s) {
            return fail(s.error());
        }
    }
    return {};
}

/// A directory `switchyard` left by a hand install, or topology files with no set yet: kept as
/// a set of their own so that --rollback can go back to them.
Result<void> adopt_existing(const fs::path& dir, const std::string& kind) {
    const auto sets = dir / "switchyard.sets";
    const auto link = dir / "switchyard";
    if (!link_target(link).empty()) {
        return {};
    }
    const auto name = utc_stamp() + "-" + std::to_string(::getpid()) + "-before";
    std::error_code ec;
    if (exists_no_follow(link)) {
        if (is_link(link) || !fs::is_directory(fs::symlink_status(link, ec))) {
            return fail(Error::io(link.string() +
                                  ": not a directory and not a link into switchyard.sets; "
                                  "move it away"));
        }
        if (::rename(link.c_str(), (sets / name).c_str()) != 0) {
            return fail(Error::io(link.string() + ": cannot move into " + sets.string() + ": " +
                                  std::strerror(errno)));
        }
        ::mkdir((sets / name / "slurm").c_str(), 0755);
    } else if (!kind.empty()) {
        if (auto w = write_set(sets, name, {}); !w) {
            return fail(w.error());
        }
    } else {
        return {};  // nothing there: nothing to go back to
    }
    if (!kind.empty()) {
        const auto as = slurm_file_for(kind).second;  // the file slurmctld reads now
        auto text = read_text_file((dir / as).string(), kSmallInput);
        if (text) {
            if (auto w = write_file_atomic((sets / name / "slurm" / as).string(), *text); !w) {
                return fail(w.error());
            }
        }
    }
    return swap_link(link, "switchyard.sets/" + name);
}

/// The uplinks each leaf lacks against the best-cabled leaf of its group, summed: the cables
/// to look for (0 when the map has no cable counts).
std::uint64_t cables_missing(const fabric::FabricMap& m) {
    std::vector<std::uint32_t> best(m.groups.size(), 0);
    for (const auto& su : m.sus) {
        for (const auto l : su.leaves) {
            if (su.group < best.size() && l < m.switches.size()) {
                best[su.group] = std::max(best[su.group], m.switches[l].uplinks);
            }
        }
    }
    std::uint64_t missing = 0;
    for (const auto& su : m.sus) {
        for (const auto l : su.leaves) {
            if (su.group < best.size() && l < m.switches.size()) {
                missing += best[su.group] - m.switches[l].uplinks;
            }
        }
    }
    return missing;
}

class Installer {
public:
    explicit Installer(const InstallArgs& a) : a_(a), dir_(a.slurm_dir) {}

    int run() {
        if (auto d = ensure_private_dir(fs::path(a_.state).parent_path().string()); !d) {
            std::cerr << "switchyard install: --state: " << d.error().message() << "\n";
            return kExitProblem;
        }
        auto text = read_owned_file(a_.state);
        state_ = slurmconf::InstallRecord::parse(text ? *text : "");
        state_.last_run = static_cast<std::uint64_t>(std::time(nullptr));
        const int rc = a_.rollback ? rollback() : install();
        if (auto w = replace_owned_file(a_.state, state_.text()); !w) {
            std::cerr << "switchyard install: --state: " << w.error().message() << "\n";
        }
        write_metrics();
        return rc;
    }

private:
    int problem(const std::string& message, const char* result = "failed") {
        std::cerr << "switchyard install: " << message << "\n";
        state_.last_result = result;
        return kExitProblem;
    }

    int install() {
        const fs::path from(a_.from);
        auto next = load_fabric_map((from / "fabric.map").string());
        if (!next) {
            return problem("--from " + a_.from + ": " + next.error().message() +
                           "; nothing installed");
        }
        capture_hosts_ = next->hosts.size();
        std::string kind = a_.topology;
        if (kind == "auto") {
            kind = installed_kind(dir_);
            if (kind.empty()) {
                return problem(dir_.string() +
                               " holds neither topology.conf nor topology.yaml: name the "
                               "topology slurmctld runs with --topology tree, block or yaml");
            }
        }
        std::map<std::string, std::string> files;
        for (const char* name : kSetFiles) {
            const auto path = from / name;
            if (!exists_no_follow(path)) {
                continue;
            }
            auto bytes = read_text_file(path.string(), kFabricInput);
            if (!bytes) {
                return problem(bytes.error().message() + "; nothing installed");
            }
            files[name] = std::move(*bytes);
        }
        const auto [source, as] = slurm_file_for(kind);
        if (!files.contains(source)) {
            return problem("--from " + a_.from + " has no " + source + " (the " + kind +
                           " topology); run discover again, or name another --topology");
        }
        files["slurm/" + as] = files[source];

        // What changed against the set in use.
        const auto current = link_target(dir_ / "switchyard");
        const auto installed_map = dir_ / "switchyard" / "fabric.map";
        fabric::FabricMap installed;
        if (exists_no_follow(installed_map)) {
            auto m = load_fabric_map(installed_map.string());
            if (!m) {
                if (!a_.force) {
                    state_.refused++;
                    std::cerr << "switchyard install: refused, the installed files stay: the "
                                 "installed map cannot be read ("
                              << m.error().message()
                              << "), so the new capture cannot be checked; --force installs "
                                 "it\n";
                    state_.last_result = "refused";
                    return kExitRefused;
                }
            } else {
                installed = std::move(*m);
            }
        }
        const auto diff = fabric::compare_maps(installed, *next);
        if (installed.hosts.empty()) {
            std::cout << "no installed map to compare with: " << next->hosts.size() << " hosts, "
                      << next->sus.size() << " SUs, " << next->groups.size() << " groups ("
                      << fabric::to_string(next->kind) << ")\n";
        } else {
            std::cout << fabric::format_diff(diff);
        }
        if (!current.empty() && same_files(dir_ / current, files)) {
            std::cout << "installed: unchanged, nothing to do (" << (dir_ / "switchyard").string()
                      << " -> " << current << ")\n";
            state_.last_result = "unchanged";
            return kExitOk;
        }
        const auto refusals =
            slurmconf::install_refusals(installed, *next, diff, {a_.max_hosts_lost});
        if (!refusals.empty()) {
            if (!a_.force) {
                state_.refused++;
                state_.last_result = "refused";
                std::cerr << "switchyard install: refused, the installed files stay ("
                          << (current.empty() ? std::string("none") : current)
                          << "); the new capture is probably wrong:\n";
                for (const auto& r : refusals) {
                    std::cerr << "  " << r << "\n";
                }
                std::cerr << "Check the fabric (subnet manager, cables, a partial "
                             "ibnetdiscover) and discover again; --force installs it anyway.\n";
                return kExitRefused;
            }
            for (const auto& r : refusals) {
                std::cout << "forced: " << r << "\n";
            }
        }

        const auto sets = dir_ / "switchyard.sets";
        if (auto d = own_dir(sets, 0755); !d) {
            return problem(d.error().message() + "; nothing installed");
        }
        if (auto ad = adopt_existing(dir_, installed_kind(dir_)); !ad) {
            return problem(ad.error().message() + "; nothing installed");
        }
        auto target = write_set(sets, utc_stamp() + "-" + std::to_string(::getpid()), files);
        if (!target) {
            return problem(target.error().message() + "; nothing installed");
        }
        const auto before = link_target(dir_ / "switchyard");
        if (auto s = activate(dir_, *target); !s) {
            return problem(s.error().message());
        }
        std::cout << "installed: " << (dir_ / "switchyard").string() << " -> " << *target << ", "
                  << (dir_ / as).string() << " (" << kind << " topology)"
                  << (before.empty() ? "" : "; previous: " + before) << "\n";
        if (!a_.no_reconfigure) {
            if (auto c = reconfigure_and_check(dir_, *next); !c) {
                std::cerr << "switchyard install: slurmctld did not take the new files: "
                          << c.error().message() << "\n";
                if (!before.empty() && activate(dir_, before)) {
                    const auto again = run_process({"scontrol", "reconfigure"}, 60);
                    std::cerr << "switchyard install: put " << before << " back"
                              << (again.exit_code == 0 ? " and reconfigured" : "") << "\n";
                }
                state_.last_result = "failed";
                return kExitProblem;
            }
            std::cout << "slurmctld: reconfigured; scontrol show topology lists the "
                      << next->sus.size() << " SUs\n";
        }
        prune_sets(dir_, a_.keep);
        state_.last_change = state_.last_run;
        state_.last_result = "installed";
        installed_map_ = std::move(*next);
        return kExitOk;
    }

    int rollback() {
        const auto previous = link_target(dir_ / "switchyard.previous");
        if (previous.empty() || !fs::is_directory(dir_ / previous)) {
            return problem((dir_ / "switchyard.previous").string() +
                           ": no previous set to go back to");
        }
        const auto current = link_target(dir_ / "switchyard");
        if (auto s = activate(dir_, previous); !s) {
            return problem(s.error().message());
        }
        std::cout << "rolled back: " << (dir_ / "switchyard").string() << " -> " << previous
                  << (current.empty() ? "" : "; previous: " + current) << "\n";
        auto map = load_fabric_map((dir_ / previous / "fabric.map").string());
        if (!a_.no_reconfigure) {
            if (!map) {
                return problem("the restored set's map: " + map.error().message());
            }
            if (auto c = reconfigure_and_check(dir_, *map); !c) {
                return problem("slurmctld did not take the restored files: " + c.error().message());
            }
            std::cout << "slurmctld: reconfigured; scontrol show topology lists the "
                      << map->sus.size() << " SUs\n";
        }
        state_.last_change = state_.last_run;
        state_.last_result = "rolled-back";
        if (map) {
            installed_map_ = std::move(*map);
        }
        return kExitOk;
    }

    bool same_files(const fs::path& set, const std::map<std::string, std::string>& files) {
        for (const auto& [name, bytes] : files) {
            auto old = read_text_file((set / name).string(), kFabricInput);
            if (!old || *old != bytes) {
                return false;
            }
        }
        for (const char* name : kSetFiles) {
            if (!files.contains(name) && exists_no_follow(set / name)) {
                return false;
            }
        }
        return true;
    }

    /// node_exporter textfile metrics: the installed fabric and this command's record.
    void write_metrics() {
        if (a_.metrics.empty()) {
            return;
        }
        if (!installed_map_) {
            auto m = load_fabric_map((dir_ / "switchyard" / "fabric.map").string());
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
            o << "switchyard_fabric_cables_missing " << cables_missing(m) << "\n";
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
            std::cerr << "switchyard install: --metrics: " << w.error().message() << "\n";
        }
    }

    const InstallArgs& a_;
    fs::path dir_;
    slurmconf::InstallRecord state_;
    std::optional<fabric::FabricMap> installed_map_;
    std::optional<std::size_t> capture_hosts_;
};

int run_install(const InstallArgs& a) {
    if (a.rollback == !a.from.empty()) {
        std::cerr << "switchyard install: give --from DIR (a discover output) or --rollback\n";
        return kExitUsage;
    }
    if (a.topology != "auto" && a.topology != "tree" && a.topology != "block" &&
        a.topology != "yaml") {
        std::cerr << "switchyard install: --topology '" << a.topology
                  << "': expected auto, tree, block or yaml\n";
        return kExitUsage;
    }
    if (!(a.max_hosts_lost >= 0 && a.max_hosts_lost <= 100)) {
        std::cerr << "switchyard install: --max-hosts-lost " << a.max_hosts_lost
                  << ": expected a percentage from 0 to 100\n";
        return kExitUsage;
    }
    InstallArgs args = a;
    if (args.slurm_dir.empty()) {
        args.slurm_dir = default_slurm_dir();
    }
    std::error_code ec;
    if (!fs::is_directory(args.slurm_dir, ec)) {
        std::cerr << "switchyard install: --slurm-dir " << args.slurm_dir
                  << ": not a directory (the directory of slurm.conf)\n";
        return kExitProblem;
    }
    return Installer(args).run();
}

}  // namespace

void setup_install(CLI::App& cmd, Runner& run) {
    auto a = std::make_shared<InstallArgs>();
    cmd.footer(
        "\nPuts a discover output in place for slurmctld: a new set under\n"
        "DIR/switchyard.sets/, DIR/switchyard pointed at it (the previous set kept for\n"
        "--rollback), DIR/topology.conf or topology.yaml replaced by rename; then scontrol\n"
        "reconfigure, and slurmctld must list every SU in scontrol show topology (else the\n"
        "previous set goes back). A capture that is probably wrong is refused, exit 4, the\n"
        "installed files kept: more than --max-hosts-lost % of the hosts gone, a whole SU or\n"
        "group gone, or the fabric kind changed; --force installs it anyway.\n"
        "\nExamples:\n  switchyard install --from /var/lib/switchyard/discover\n"
        "  switchyard install --rollback\n");
    cmd.add_option("--from", a->from, "a discover output directory to install");
    cmd.add_flag("--rollback", a->rollback, "go back to the previous set");
    cmd.add_option("--slurm-dir", a->slurm_dir,
                   "the directory of slurm.conf (default: that of $SLURM_CONF, else /etc/slurm)");
    cmd.add_option("--topology", a->topology,
                   "the topology slurmctld reads: auto (what DIR holds), tree, block or yaml")
        ->capture_default_str();
    cmd.add_option("--max-hosts-lost", a->max_hosts_lost,
                   "refuse a capture without more than this share of the hosts (percent)")
        ->capture_default_str();
    cmd.add_flag("--force", a->force, "install a capture the guard would refuse");
    cmd.add_flag("--no-reconfigure", a->no_reconfigure,
                 "only put the files in place (slurmctld reads them at its next reconfigure)");
    cmd.add_option("--state", a->state,
                   "the run's record: refusals, last change (a file in a directory only you "
                   "can write)")
        ->capture_default_str();
    cmd.add_option("--metrics", a->metrics, "also write node_exporter textfile metrics here");
    cmd.add_option("--keep", a->keep, "sets kept in DIR/switchyard.sets")
        ->capture_default_str()
        ->check(CLI::Range(2U, 100U));
    cmd.callback([&run, a] { run = [a] { return run_install(*a); }; });
}

}  // namespace switchyard::cli
