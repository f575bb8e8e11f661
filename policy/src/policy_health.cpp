// SPDX-License-Identifier: Apache-2.0
// The policy's health section: the checks (in the section and in each check set), the breaker,
// the sets.
#include "policy_sections.hpp"

namespace switchyard::policy {
namespace {

class HealthReader : public YamlReader {
public:
    using YamlReader::YamlReader;

    void read_health(const YAML::Node& n, health::HealthPolicy& out) {
        out.enabled = n["enabled"] ? boolean(n["enabled"], "health.enabled").value_or(false) : true;
        if (auto v = n["on_error"]) {
            if (const auto e = parse_on_error(scalar(v))) {
                out.on_error = *e;
            } else {
                const auto renamed = scalar(v) == "open"     ? " (open is now warn)"
                                     : scalar(v) == "closed" ? " (closed is now fail)"
                                                             : "";
                problem(v, "health.on_error",
                        "expected one of " + std::string(kOnErrorChoices) + ", got '" + scalar(v) +
                            "'" + renamed);
            }
        }
        if (auto v = n["budget_s"]) {
            out.budget_s = positive(v, "health.budget_s", 3600).value_or(out.budget_s);
        }
        read_health_checks(n, "health.", out.checks);
        if (auto b = n["breaker"];
            b && keys(b, "health.breaker.", {"max_nodes", "max_percent", "window_s", "state"})) {
            if (b["max_nodes"]) {
                out.breaker.max_nodes =
                    number(b["max_nodes"], "health.breaker.max_nodes", 1, 100000)
                        .value_or(out.breaker.max_nodes);
            }
            if (b["max_percent"]) {
                out.breaker.max_percent =
                    positive(b["max_percent"], "health.breaker.max_percent", 100)
                        .value_or(out.breaker.max_percent);
            }
            if (b["window_s"]) {
                out.breaker.window_s = positive(b["window_s"], "health.breaker.window_s", 86400 * 7)
                                           .value_or(out.breaker.window_s);
            }
            if (b["state"]) {
                out.breaker.state = path(b["state"], "health.breaker.state", true);
            }
        }
        if (auto list = n["sets"]) {
            if (!list.IsSequence()) {
                problem(list, "health.sets",
                        "expected a list of check sets, each with a name, a match and checks");
            }
            for (std::size_t i = 0; list.IsSequence() && i < list.size(); ++i) {
                read_health_set(list[i], "health.sets[" + std::to_string(i) + "]", out);
            }
        }
    }

    /// The checks of the health section, or of one of its sets (key prefix `k`): a set starts
    /// from the general checks and replaces those it names. One reader per check, under the keys
    /// of the gate's table (kCheckReaders below).
    void read_health_checks(const YAML::Node& n, const std::string& k, health::HealthChecks& out);

    void read_rdma_ports(const YAML::Node& r, const std::string& k, health::HealthChecks& out) {
        if (!keys(r, k + ".", {"count", "min_rate_gbps", "link_layer", "hca"})) {
            return;
        }
        health::RdmaPortsCheck c;
        c.count = r["count"] ? number(r["count"], k + ".count", 0, 64).value_or(0) : 0;
        if (r["min_rate_gbps"]) {
            c.min_rate_gbps = positive(r["min_rate_gbps"], k + ".min_rate_gbps", 10000).value_or(0);
        }
        if (auto ll = r["link_layer"]) {
            c.link_layer = scalar(ll);
            if (c.link_layer != "InfiniBand" && c.link_layer != "Ethernet") {
                problem(ll, k + ".link_layer",
                        "expected InfiniBand or Ethernet, got '" + c.link_layer + "'");
            }
        }
        if (auto h = r["hca"]; h && regex_ok(h, k + ".hca")) {
            c.hca = scalar(h);
        }
        out.rdma_ports = c;
    }

    void read_link_errors(const YAML::Node& r, const std::string& k, health::HealthChecks& out) {
        if (!keys(r, k + ".", {"max_growth", "hca", "state"})) {
            return;
        }
        health::LinkErrorsCheck c;
        if (r["max_growth"]) {
            c.max_growth = static_cast<std::uint64_t>(
                number(r["max_growth"], k + ".max_growth", 0, 1000000).value_or(0));
        }
        if (auto h = r["hca"]; h && regex_ok(h, k + ".hca")) {
            c.hca = scalar(h);
        }
        if (r["state"]) {
            c.state = path(r["state"], k + ".state", true);
        }
        out.link_errors = c;
    }

    void read_gpus(const YAML::Node& v, const std::string& k, health::HealthChecks& out) {
        out.gpus = number(v, k, 0, 64);
    }

    void read_nvml(const YAML::Node& r, const std::string& k, health::HealthChecks& out) {
        if (!keys(r, k + ".",
                  {"library", "gpus", "max_retired_pages", "max_uncorrected_ecc", "nvlinks",
                   "timeout_s", "persistence"})) {
            return;
        }
        health::NvmlCheck c;
        if (auto v = r["library"]) {
            c.library = text(v, k + ".library", "a library name or path");
            if (c.library.empty() && v.IsScalar()) {
                problem(v, k + ".library",
                        "expected a library name or path, e.g. libnvidia-ml.so.1");
            }
        }
        if (auto v = r["gpus"]) {
            c.gpus = number(v, k + ".gpus", 1, 64);
        }
        if (auto v = r["max_retired_pages"]) {
            c.max_retired_pages =
                number(v, k + ".max_retired_pages", 0, 1000).value_or(c.max_retired_pages);
        }
        if (auto v = r["max_uncorrected_ecc"]) {
            c.max_uncorrected_ecc =
                number(v, k + ".max_uncorrected_ecc", 0, 1000000).value_or(c.max_uncorrected_ecc);
        }
        if (auto v = r["nvlinks"]) {
            c.nvlinks = number(v, k + ".nvlinks", 1, 18);
        }
        if (auto v = r["timeout_s"]) {
            c.timeout_s = positive(v, k + ".timeout_s", 600).value_or(c.timeout_s);
        }
        if (auto v = r["persistence"]) {
            const auto s = scalar(v);
            if (s == "fail" || s == "warn" || s == "ignore") {
                c.persistence_off = s == "fail"   ? health::HealthStatus::Fail
                                    : s == "warn" ? health::HealthStatus::Warn
                                                  : health::HealthStatus::Pass;
            } else {
                problem(v, k + ".persistence",
                        "expected one of fail, warn, ignore (what a GPU without persistence "
                        "mode is), got '" +
                            s + "'");
            }
        }
        out.nvml = c;
    }

    /// An NVML library name or path (health.<check>.library).
    void library(const YAML::Node& r, const std::string& k, std::string& out) {
        if (auto v = r["library"]) {
            out = text(v, k + ".library", "a library name or path");
            if (out.empty() && v.IsScalar()) {
                problem(v, k + ".library",
                        "expected a library name or path, e.g. libnvidia-ml.so.1");
            }
        }
    }

    /// A check that only reads NVML: {library, timeout_s} into `c`; false when a key is unknown.
    template <typename Check>
    bool nvml_reader(const YAML::Node& r, const std::string& k, Check& c) {
        if (!keys(r, k + ".", {"library", "timeout_s"})) {
            return false;
        }
        library(r, k, c.library);
        if (auto v = r["timeout_s"]) {
            c.timeout_s = positive(v, k + ".timeout_s", 600).value_or(c.timeout_s);
        }
        return true;
    }

    void read_nvlink(const YAML::Node& r, const std::string& k, health::HealthChecks& out) {
        if (health::NvlinkCheck c; nvml_reader(r, k, c)) {
            out.nvlink = c;
        }
    }

    void read_imex(const YAML::Node& r, const std::string& k, health::HealthChecks& out) {
        if (!keys(r, k + ".",
                  {"command", "timeout_s", "channel", "channel_owner", "channel_mode"})) {
            return;
        }
        health::ImexCheck c;
        if (r["command"]) {
            c.command = path(r["command"], k + ".command", true);
        }
        if (auto v = r["timeout_s"]) {
            c.timeout_s = positive(v, k + ".timeout_s", 600).value_or(c.timeout_s);
        }
        if (r["channel"]) {
            c.channel = path(r["channel"], k + ".channel", true);
        }
        if (auto v = r["channel_owner"]) {
            c.channel_uid = number(v, k + ".channel_owner", 0, 4294967294U);
        }
        if (auto v = r["channel_mode"]) {
            // An octal string as chmod takes it: "0666", "666".
            const auto m = scalar(v);
            unsigned mode = 0;
            bool ok = !m.empty() && m.size() <= 4;
            for (const char ch : m) {
                ok = ok && ch >= '0' && ch <= '7';
                mode = mode * 8 + static_cast<unsigned>(ch - '0');
            }
            if (!ok) {
                problem(v, k + ".channel_mode",
                        "expected octal permission bits such as \"0666\", got '" + m + "'");
            } else {
                c.channel_mode = mode;
            }
        }
        out.imex = c;
    }

    void read_xid(const YAML::Node& r, const std::string& k, health::HealthChecks& out) {
        if (!keys(r, k + ".", {"source", "ignore"})) {
            return;
        }
        health::XidCheck c;
        if (r["source"]) {
            c.source = path(r["source"], k + ".source", true);
        }
        if (auto list = r["ignore"]) {
            if (!list.IsSequence()) {
                problem(list, k + ".ignore", "expected a list of XID codes, e.g. [13, 31, 43, 45]");
            } else {
                c.ignore.clear();
                for (std::size_t i = 0; i < list.size(); ++i) {
                    if (auto code =
                            number(list[i], k + ".ignore[" + std::to_string(i) + "]", 1, 100000)) {
                        c.ignore.push_back(*code);
                    }
                }
            }
        }
        out.xid = c;
    }

    void read_clock_events(const YAML::Node& r, const std::string& k, health::HealthChecks& out) {
        if (health::ClockEventsCheck c; nvml_reader(r, k, c)) {
            out.clock_events = c;
        }
    }

    void read_min_memory(const YAML::Node& v, const std::string& k, health::HealthChecks& out) {
        out.min_memory_gb = positive(v, k, 1e6);
    }

    void read_shape(const YAML::Node& v, const std::string& k, health::HealthChecks& out) {
        if (!v.IsScalar() || scalar(v).empty()) {
            problem(v, k,
                    "expected the node's shape fingerprint as `switchyard node` prints it, "
                    "e.g. 'gpu:8x10de:2330 nic:8xinfiniband numa:2 best:8xPIX'");
        } else {
            out.shape = scalar(v);
        }
    }

    void read_filesystems(const YAML::Node& list, const std::string& k, health::HealthChecks& out) {
        if (!list_of(list, k, "filesystems ('- path: /...')")) {
            return;
        }
        out.filesystems.clear();  // a set's list replaces the general one
        for (std::size_t i = 0; i < list.size(); ++i) {
            const auto f = list[i];
            const auto key = k + "[" + std::to_string(i) + "]";
            if (!keys(f, key + ".", {"path", "min_free_gb", "writable"})) {
                continue;
            }
            health::FilesystemCheck c;
            c.path = path(f["path"], key + ".path", false);
            if (f["min_free_gb"]) {
                c.min_free_gb = positive(f["min_free_gb"], key + ".min_free_gb", 1e9).value_or(0);
            }
            c.writable = f["writable"] && boolean(f["writable"], key + ".writable").value_or(false);
            out.filesystems.push_back(c);
        }
    }

    void read_commands(const YAML::Node& list, const std::string& k, health::HealthChecks& out) {
        if (!list_of(list, k, "commands ('- name: ...' with argv)")) {
            return;
        }
        out.commands.clear();
        for (std::size_t i = 0; i < list.size(); ++i) {
            read_command(list[i], k + "[" + std::to_string(i) + "]", out);
        }
    }

    void read_health_set(const YAML::Node& s, const std::string& key, health::HealthPolicy& out) {
        if (!keys(s, key + ".", health_keys({"name", "match"}, {}))) {
            return;
        }
        health::HealthSet set;
        set.name = s["name"] ? text(s["name"], key + ".name", "a name") : "";
        if (set.name.empty() && !(s["name"] && !s["name"].IsScalar())) {
            problem(s, key + ".name", "missing; every check set needs a name (used in messages)");
        }
        const auto m = s["match"];
        if (!m || !m.IsMap() || m.size() == 0) {
            problem(m ? m : s, key + ".match",
                    "expected shape and/or partition regexes, e.g. {partition: 'h100.*'}");
        } else {
            keys(m, key + ".match.", {"shape", "partition"});
            if (auto v = m["shape"]; v && regex_ok(v, key + ".match.shape")) {
                set.shape = scalar(v);
            }
            if (auto v = m["partition"]; v && regex_ok(v, key + ".match.partition")) {
                set.partition = scalar(v);
            }
        }
        set.checks = out.checks;
        read_health_checks(s, key + ".", set.checks);
        out.sets.push_back(std::move(set));
    }

    void read_command(const YAML::Node& c, const std::string& key, health::HealthChecks& out) {
        if (!keys(c, key + ".",
                  {"name", "argv", "timeout_s", "ok_exit", "fail_pattern", "min_busbw_gbps"})) {
            return;
        }
        health::CommandCheck cmd;
        cmd.name = c["name"] ? text(c["name"], key + ".name", "a name") : "";
        if (cmd.name.empty() && !(c["name"] && !c["name"].IsScalar())) {
            problem(c, key + ".name", "missing; every command check needs a name");
        }
        const auto argv = c["argv"];
        if (!argv || !argv.IsSequence() || argv.size() == 0) {
            problem(argv ? argv : c, key + ".argv",
                    "expected a non-empty list: the program and its arguments (no shell)");
        } else {
            for (std::size_t j = 0; j < argv.size(); ++j) {
                cmd.argv.push_back(text(argv[j], key + ".argv[" + std::to_string(j) + "]",
                                        "a word (one program argument)"));
            }
            // Run as root from the prolog: no PATH lookup decides which program that is.
            if (argv[0].IsScalar() && !cmd.argv.front().starts_with('/')) {
                problem(argv[0], key + ".argv[0]",
                        "expected an absolute path (the prolog runs it as root, without a PATH "
                        "lookup), got '" +
                            cmd.argv.front() + "'");
            }
        }
        if (c["timeout_s"]) {
            cmd.timeout_s =
                positive(c["timeout_s"], key + ".timeout_s", 3600).value_or(cmd.timeout_s);
        }
        if (c["ok_exit"]) {
            cmd.ok_exit =
                static_cast<int>(number(c["ok_exit"], key + ".ok_exit", 0, 255).value_or(0));
        }
        if (auto f = c["fail_pattern"]; f && regex_ok(f, key + ".fail_pattern")) {
            cmd.fail_pattern = scalar(f);
        }
        if (auto b = c["min_busbw_gbps"]) {
            cmd.min_busbw_gbps = positive(b, key + ".min_busbw_gbps", 1e5);
        }
        out.commands.push_back(cmd);
    }
};

/// The reader of each check's policy key: the keys of the gate's table (health_check_keys(),
/// which also lists the keys the section allows; a unit test reads a bad value under each).
struct CheckReader {
    std::string_view key;
    void (HealthReader::*read)(const YAML::Node&, const std::string&, health::HealthChecks&);
};
constexpr CheckReader kCheckReaders[] = {
    {"rdma_ports", &HealthReader::read_rdma_ports},
    {"link_errors", &HealthReader::read_link_errors},
    {"gpus", &HealthReader::read_gpus},
    {"nvml", &HealthReader::read_nvml},
    {"nvlink", &HealthReader::read_nvlink},
    {"imex", &HealthReader::read_imex},
    {"xid", &HealthReader::read_xid},
    {"clock_events", &HealthReader::read_clock_events},
    {"min_memory_gb", &HealthReader::read_min_memory},
    {"shape", &HealthReader::read_shape},
    {"filesystems", &HealthReader::read_filesystems},
    {"commands", &HealthReader::read_commands},
};

void HealthReader::read_health_checks(const YAML::Node& n,
                                      const std::string& k,
                                      health::HealthChecks& out) {
    for (const auto& r : kCheckReaders) {
        if (const auto v = n[std::string(r.key)]) {
            (this->*r.read)(v, k + std::string(r.key), out);
        }
    }
}

}  // namespace

/// `before`, the check keys (read by read_health_checks, allowed in the section and in each
/// set), then `after`.
std::vector<std::string_view> health_keys(std::vector<std::string_view> before,
                                          std::initializer_list<std::string_view> after) {
    for (const auto k : health::health_check_keys()) {  // the table the gate runs
        before.push_back(k);
    }
    before.insert(before.end(), after.begin(), after.end());
    return before;
}

void read_health_section(const std::string& source,
                         std::vector<ConfigProblem>& problems,
                         const YAML::Node& n,
                         health::HealthPolicy& out) {
    HealthReader(source, problems).read_health(n, out);
}

}  // namespace switchyard::policy
