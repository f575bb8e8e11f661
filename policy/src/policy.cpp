// SPDX-License-Identifier: Apache-2.0
// switchyard.yaml: yaml-cpp at the edge, then a validating walk that reports every problem with
// file:line:col, the key path, what was expected and what was found.
#include "switchyard/policy/policy.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <string>

#include "switchyard/common/strings.hpp"

namespace switchyard::policy {
namespace {

/// Bounds on policy regexes, checked before std::regex compiles them.
constexpr std::size_t kMaxPatternLength = 256;
constexpr unsigned long kMaxPatternRepeat = 1000;

using topology::FabricKind;

class Loader {
public:
    explicit Loader(std::string_view source) : source_(source) {}

    PolicyLoad run(std::string_view text) {
        YAML::Node root;
        try {
            root = YAML::Load(std::string(text));
        } catch (const YAML::ParserException& e) {
            problems_.push_back({SourceLoc{source_, static_cast<std::uint32_t>(e.mark.line + 1),
                                           static_cast<std::uint32_t>(e.mark.column + 1)},
                                 "yaml", "not valid YAML: " + e.msg});
            return finish();
        } catch (const std::exception& e) {
            problems_.push_back(
                {SourceLoc{source_, 0, 0}, "yaml", std::string("not valid YAML: ") + e.what()});
            return finish();
        }
        Policy p;
        p.source = source_;
        try {
            read_root(root, p);
        } catch (const YAML::Exception& e) {
            // Every shape is checked before it is read; reaching here is a bug in this loader
            // (the fuzz harness treats it as a finding), reported like any other problem.
            problems_.push_back({SourceLoc{source_, static_cast<std::uint32_t>(e.mark.line + 1),
                                           static_cast<std::uint32_t>(e.mark.column + 1)},
                                 "yaml", std::string(kUnexpectedShape) + e.msg});
        }
        if (problems_.empty()) {
            result_ = std::move(p);
        }
        return finish();
    }

private:
    std::string source_;
    std::vector<ConfigProblem> problems_;
    std::optional<Policy> result_;

    void read_root(const YAML::Node& root, Policy& p) {
        // One list for the check and for the message (the message once named four of six).
        const std::vector<std::string_view> sections{"version", "fabric",    "node",
                                                     "nccl",    "placement", "health"};
        if (!root.IsMap()) {
            problem(root, "(top)",
                    "the file must be a mapping of sections; expected keys " + join_keys(sections));
            return;
        }
        keys(root, "", sections);
        const auto version = root["version"];
        if (!version) {
            problem(root, "version", "missing; expected 'version: 1' at the top of the file");
        } else if (scalar(version) != "1") {
            problem(version, "version", "unsupported; expected 1, got '" + scalar(version) + "'");
        }
        if (auto fabric = section(root, "fabric", {"map"})) {
            p.fabric_map = path((*fabric)["map"], "fabric.map", false);
        }
        if (auto node = section(root, "node", {"hwloc_xml", "sysfs_root", "cache"})) {
            p.hwloc_xml = path((*node)["hwloc_xml"], "node.hwloc_xml", true);
            if ((*node)["sysfs_root"]) {
                p.sysfs_root = path((*node)["sysfs_root"], "node.sysfs_root", true);
            }
            if (const auto cache = (*node)["cache"]) {
                const bool off =
                    cache.IsScalar() &&
                    (scalar(cache) == "off" || scalar(cache) == "false" || scalar(cache) == "no");
                p.node_cache = off ? "" : path(cache, "node.cache", true);
            }
        }
        if (auto nccl = section(root, "nccl",
                                {"enabled", "min_version", "compute_hca", "socket_ifname",
                                 "rail_optimized", "large_job_nodes", "roce_qps_per_connection",
                                 "ib_addr_family", "ib_addr_range", "profiles"})) {
            read_nccl(*nccl, p.nccl);
        }
        if (auto pl =
                section(root, "placement",
                        {"link_gbps", "alpha_net_us", "alpha_hop_us", "leaf_oversubscription",
                         "global_links", "grad_gbytes", "activation_mbytes", "micro_batches"})) {
            read_placement(*pl, p.placement);
        }
        if (auto h =
                section(root, "health",
                        health_keys({"enabled", "on_error", "budget_s"}, {"breaker", "sets"}))) {
            read_health(*h, p.health);
        }
    }

    PolicyLoad finish() { return {std::move(result_), std::move(problems_)}; }

    void problem(const YAML::Node& at, std::string key, std::string message) {
        const auto m = at.Mark();
        problems_.push_back({SourceLoc{source_, static_cast<std::uint32_t>(m.line + 1),
                                       static_cast<std::uint32_t>(m.column + 1)},
                             std::move(key), std::move(message)});
    }

    static std::string scalar(const YAML::Node& n) {
        return n.IsScalar() ? n.Scalar() : std::string("<not a scalar>");
    }

    /// The text of a scalar `n`; a problem ("expected `what`") and "" when it is a list or map.
    std::string text(const YAML::Node& n, const std::string& key, const char* what) {
        if (!n.IsScalar()) {
            problem(n, key, std::string("expected ") + what + ", got a list or mapping");
            return {};
        }
        return n.Scalar();
    }

    static std::string join_keys(const std::vector<std::string_view>& allowed) {
        std::string s;
        for (const auto k : allowed) {
            s += (s.empty() ? "" : ", ") + std::string(k);
        }
        return s;
    }

    /// `map` must be a mapping whose every key is one of `allowed`; false (one problem) when it
    /// is not a mapping at all, so the caller reads nothing from it.
    bool keys(const YAML::Node& map,
              const std::string& prefix,
              const std::vector<std::string_view>& allowed) {
        if (!map.IsMap()) {
            auto key = prefix;
            if (!key.empty() && key.back() == '.') {
                key.pop_back();
            }
            problem(map, key, "expected a mapping with keys " + join_keys(allowed));
            return false;
        }
        for (auto it = map.begin(); it != map.end(); ++it) {
            const auto k = it->first.IsScalar() ? it->first.Scalar() : std::string("?");
            if (std::find(allowed.begin(), allowed.end(), k) == allowed.end()) {
                problem(it->first, prefix + k,
                        "unknown key; expected one of " + join_keys(allowed));
            }
        }
        return true;
    }

    /// `n` must be a list (of what `what` says); false (one problem) when it is not.
    bool list_of(const YAML::Node& n, const std::string& key, const char* what) {
        if (!n.IsSequence()) {
            problem(n, key, std::string("expected a list of ") + what);
            return false;
        }
        return true;
    }

    std::optional<YAML::Node> section(const YAML::Node& root,
                                      const char* name,
                                      const std::vector<std::string_view>& allowed) {
        const auto n = root[name];
        if (!n || n.IsNull()) {
            return std::nullopt;
        }
        if (!n.IsMap()) {
            problem(n, name, "must be a mapping; expected keys " + join_keys(allowed));
            return std::nullopt;
        }
        keys(n, std::string(name) + ".", allowed);
        return n;
    }

    std::string path(const YAML::Node& n, const std::string& key, bool allow_node_name) {
        if (!n) {
            return {};
        }
        const auto v = scalar(n);
        if (v.empty() || v.front() != '/') {
            problem(n, key,
                    "expected an absolute path" +
                        std::string(allow_node_name ? " (%n = node name)" : "") + ", got '" + v +
                        "'");
            return {};
        }
        return v;
    }

    std::optional<bool> boolean(const YAML::Node& n, const std::string& key) {
        bool b = false;
        if (!n.IsScalar() || !YAML::convert<bool>::decode(n, b)) {
            problem(n, key, "expected true or false, got '" + scalar(n) + "'");
            return std::nullopt;
        }
        return b;
    }

    std::optional<unsigned> number(const YAML::Node& n,
                                   const std::string& key,
                                   unsigned lo,
                                   unsigned hi) {
        const auto v = parse_uint(scalar(n));
        if (!v || *v < lo || *v > hi) {
            problem(n, key,
                    "expected a whole number from " + std::to_string(lo) + " to " +
                        std::to_string(hi) + ", got '" + scalar(n) + "'");
            return std::nullopt;
        }
        return static_cast<unsigned>(*v);
    }

    bool regex_ok(const YAML::Node& n, const std::string& key) {
        const auto text = scalar(n);
        // Bounded before std::regex sees it: its compiler overflows on huge repetition counts
        // (a{77777777777777777777}) and recurses on long patterns.
        if (text.size() > kMaxPatternLength) {
            problem(n, key,
                    "expected a regular expression of at most " +
                        std::to_string(kMaxPatternLength) + " characters, got " +
                        std::to_string(text.size()));
            return false;
        }
        for (std::size_t i = text.find('{'); i != std::string::npos; i = text.find('{', i + 1)) {
            std::size_t j = i + 1;
            while (j < text.size() &&
                   (std::isdigit(static_cast<unsigned char>(text[j])) != 0 || text[j] == ',')) {
                ++j;
            }
            for (auto count : split(std::string_view(text).substr(i + 1, j - i - 1), ',')) {
                if (!count.empty() &&
                    (count.size() > 4 || std::stoul(std::string(count)) > kMaxPatternRepeat)) {
                    problem(n, key,
                            "repetition {" + std::string(count) + "} is above " +
                                std::to_string(kMaxPatternRepeat) + " in '" + text + "'");
                    return false;
                }
            }
        }
        try {
            std::regex re(text);
            (void)re;
            return true;
        } catch (const std::regex_error& e) {
            problem(n, key,
                    std::string("expected a regular expression, got '") + scalar(n) + "' (" +
                        e.what() + ")");
            return false;
        }
    }

    std::optional<double> positive(const YAML::Node& n, const std::string& key, double hi) {
        double v = 0;
        if (!n.IsScalar() || !YAML::convert<double>::decode(n, v) || !(v > 0) || v > hi) {
            problem(n, key,
                    "expected a number above 0 and at most " +
                        std::to_string(static_cast<long long>(hi)) + ", got '" + scalar(n) + "'");
            return std::nullopt;
        }
        return v;
    }

    void read_health(const YAML::Node& n, HealthPolicy& out) {
        out.enabled = n["enabled"] ? boolean(n["enabled"], "health.enabled").value_or(false) : true;
        if (auto v = n["on_error"]) {
            if (scalar(v) != "open" && scalar(v) != "closed") {
                problem(v, "health.on_error", "expected open or closed, got '" + scalar(v) + "'");
            }
            out.fail_closed = scalar(v) == "closed";
        }
        if (auto v = n["budget_s"]) {
            out.budget_s = positive(v, "health.budget_s", 3600).value_or(out.budget_s);
        }
        read_health_checks(n, "health.", out);
        if (auto b = n["breaker"];
            b && keys(b, "health.breaker.", {"max_nodes", "max_percent", "window_s", "state"})) {
            if (b["max_nodes"]) {
                out.breaker_max_nodes =
                    number(b["max_nodes"], "health.breaker.max_nodes", 1, 100000).value_or(2);
            }
            if (b["max_percent"]) {
                out.breaker_max_percent =
                    positive(b["max_percent"], "health.breaker.max_percent", 100).value_or(10);
            }
            if (b["window_s"]) {
                out.breaker_window_s =
                    positive(b["window_s"], "health.breaker.window_s", 86400 * 7).value_or(600);
            }
            if (b["state"]) {
                out.breaker_state = path(b["state"], "health.breaker.state", true);
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

    /// `before`, the check keys (read by read_health_checks, allowed in the section and in each
    /// set), then `after`.
    static std::vector<std::string_view> health_keys(
        std::vector<std::string_view> before, std::initializer_list<std::string_view> after) {
        for (const auto* k : {"rdma_ports", "link_errors", "gpus", "nvml", "min_memory_gb", "shape",
                              "filesystems", "commands"}) {
            before.emplace_back(k);
        }
        before.insert(before.end(), after.begin(), after.end());
        return before;
    }

    /// The checks of the health section, or of one of its sets (key prefix `k`): a set starts
    /// from the general checks and replaces those it names.
    void read_health_checks(const YAML::Node& n, const std::string& k, HealthPolicy& out) {
        if (auto r = n["rdma_ports"];
            r && keys(r, k + "rdma_ports.", {"count", "min_rate_gbps", "link_layer", "hca"})) {
            RdmaPortsCheck c;
            c.count =
                r["count"] ? number(r["count"], k + "rdma_ports.count", 0, 64).value_or(0) : 0;
            if (r["min_rate_gbps"]) {
                c.min_rate_gbps =
                    positive(r["min_rate_gbps"], k + "rdma_ports.min_rate_gbps", 10000).value_or(0);
            }
            if (auto ll = r["link_layer"]) {
                c.link_layer = scalar(ll);
                if (c.link_layer != "InfiniBand" && c.link_layer != "Ethernet") {
                    problem(ll, k + "rdma_ports.link_layer",
                            "expected InfiniBand or Ethernet, got '" + c.link_layer + "'");
                }
            }
            if (auto h = r["hca"]; h && regex_ok(h, k + "rdma_ports.hca")) {
                c.hca = scalar(h);
            }
            out.rdma_ports = c;
        }
        if (auto r = n["link_errors"];
            r && keys(r, k + "link_errors.", {"max_growth", "hca", "state"})) {
            LinkErrorsCheck c;
            if (r["max_growth"]) {
                c.max_growth = static_cast<std::uint64_t>(
                    number(r["max_growth"], k + "link_errors.max_growth", 0, 1000000).value_or(0));
            }
            if (auto h = r["hca"]; h && regex_ok(h, k + "link_errors.hca")) {
                c.hca = scalar(h);
            }
            if (r["state"]) {
                c.state = path(r["state"], k + "link_errors.state", true);
            }
            out.link_errors = c;
        }
        if (auto v = n["gpus"]) {
            out.gpus = number(v, k + "gpus", 0, 64);
        }
        if (auto r = n["nvml"]; r && keys(r, k + "nvml.",
                                          {"library", "gpus", "max_retired_pages",
                                           "max_uncorrected_ecc", "nvlinks", "timeout_s"})) {
            NvmlCheck c;
            if (auto v = r["library"]) {
                c.library = text(v, k + "nvml.library", "a library name or path");
                if (c.library.empty() && v.IsScalar()) {
                    problem(v, k + "nvml.library",
                            "expected a library name or path, e.g. libnvidia-ml.so.1");
                }
            }
            if (auto v = r["gpus"]) {
                c.gpus = number(v, k + "nvml.gpus", 1, 64);
            }
            if (auto v = r["max_retired_pages"]) {
                c.max_retired_pages = number(v, k + "nvml.max_retired_pages", 0, 1000).value_or(60);
            }
            if (auto v = r["max_uncorrected_ecc"]) {
                c.max_uncorrected_ecc =
                    number(v, k + "nvml.max_uncorrected_ecc", 0, 1000000).value_or(0);
            }
            if (auto v = r["nvlinks"]) {
                c.nvlinks = number(v, k + "nvml.nvlinks", 1, 18);
            }
            if (auto v = r["timeout_s"]) {
                c.timeout_s = positive(v, k + "nvml.timeout_s", 600).value_or(10);
            }
            out.nvml = c;
        }
        if (auto v = n["min_memory_gb"]) {
            out.min_memory_gb = positive(v, k + "min_memory_gb", 1e6);
        }
        if (auto v = n["shape"]) {
            if (!v.IsScalar() || scalar(v).empty()) {
                problem(v, k + "shape",
                        "expected the node's shape fingerprint as `switchyard node` prints it, "
                        "e.g. 'gpu:8x10de:2330 nic:8xinfiniband numa:2 best:8xPIX'");
            } else {
                out.shape = scalar(v);
            }
        }
        if (auto list = n["filesystems"];
            list && list_of(list, k + "filesystems", "filesystems ('- path: /...')")) {
            out.filesystems.clear();  // a set's list replaces the general one
            for (std::size_t i = 0; i < list.size(); ++i) {
                const auto f = list[i];
                const auto key = k + "filesystems[" + std::to_string(i) + "]";
                if (!keys(f, key + ".", {"path", "min_free_gb", "writable"})) {
                    continue;
                }
                FilesystemCheck c;
                c.path = path(f["path"], key + ".path", false);
                if (f["min_free_gb"]) {
                    c.min_free_gb =
                        positive(f["min_free_gb"], key + ".min_free_gb", 1e9).value_or(0);
                }
                c.writable =
                    f["writable"] && boolean(f["writable"], key + ".writable").value_or(false);
                out.filesystems.push_back(c);
            }
        }
        if (auto list = n["commands"];
            list && list_of(list, k + "commands", "commands ('- name: ...' with argv)")) {
            out.commands.clear();
            for (std::size_t i = 0; i < list.size(); ++i) {
                read_command(list[i], k + "commands[" + std::to_string(i) + "]", out);
            }
        }
    }

    void read_health_set(const YAML::Node& s, const std::string& key, HealthPolicy& out) {
        if (!keys(s, key + ".", health_keys({"name", "match"}, {}))) {
            return;
        }
        HealthSet set;
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
        set.checks = out;
        set.checks.sets.clear();
        read_health_checks(s, key + ".", set.checks);
        out.sets.push_back(std::move(set));
    }

    void read_command(const YAML::Node& c, const std::string& key, HealthPolicy& out) {
        if (!keys(c, key + ".",
                  {"name", "argv", "timeout_s", "ok_exit", "fail_pattern", "min_busbw_gbps"})) {
            return;
        }
        CommandCheck cmd;
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
            cmd.timeout_s = positive(c["timeout_s"], key + ".timeout_s", 3600).value_or(10);
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

    void read_placement(const YAML::Node& n, PlacementPolicy& out) {
        const std::pair<const char*, double*> reals[] = {
            {"link_gbps", &out.link_gbps},
            {"alpha_net_us", &out.alpha_net_us},
            {"alpha_hop_us", &out.alpha_hop_us},
            {"leaf_oversubscription", &out.leaf_oversubscription},
            {"grad_gbytes", &out.grad_gbytes},
            {"activation_mbytes", &out.activation_mbytes}};
        for (const auto& [key, dest] : reals) {
            if (n[key]) {
                *dest = positive(n[key], std::string("placement.") + key, 1e6).value_or(*dest);
            }
        }
        if (n["global_links"]) {
            out.global_links = number(n["global_links"], "placement.global_links", 1, 4096)
                                   .value_or(out.global_links);
        }
        if (n["micro_batches"]) {
            out.micro_batches = number(n["micro_batches"], "placement.micro_batches", 1, 100000)
                                    .value_or(out.micro_batches);
        }
    }

    void read_nccl(const YAML::Node& n, NcclPolicy& out) {
        if (n["enabled"]) {
            out.enabled = boolean(n["enabled"], "nccl.enabled").value_or(true);
        }
        if (auto v = n["min_version"]) {
            if (auto parsed = parse_nccl_version(scalar(v))) {
                out.min_version = *parsed;
            } else {
                problem(v, "nccl.min_version",
                        "expected an NCCL version such as 2.21 or 2.23.4, got '" + scalar(v) + "'");
            }
        }
        if (auto v = n["compute_hca"]; v && regex_ok(v, "nccl.compute_hca")) {
            out.compute_hca = scalar(v);
        }
        if (auto v = n["socket_ifname"]) {
            out.socket_ifname = scalar(v);
            if (out.socket_ifname.empty() || out.socket_ifname.find(' ') != std::string::npos) {
                problem(v, "nccl.socket_ifname",
                        "expected interface names such as '=eth0' or 'ib,^docker', got '" +
                            out.socket_ifname + "'");
            }
        }
        if (auto v = n["rail_optimized"]) {
            if (scalar(v) != "auto") {
                bool b = false;
                if (v.IsScalar() && YAML::convert<bool>::decode(v, b)) {
                    out.rail_optimized = b;
                } else {
                    problem(v, "nccl.rail_optimized",
                            "expected auto, true or false, got '" + scalar(v) + "'");
                }
            }
        }
        if (auto v = n["large_job_nodes"]) {
            out.large_job_nodes =
                number(v, "nccl.large_job_nodes", 2, 1000000).value_or(out.large_job_nodes);
        }
        if (auto v = n["roce_qps_per_connection"]) {
            out.roce_qps_per_connection = number(v, "nccl.roce_qps_per_connection", 1, 128)
                                              .value_or(out.roce_qps_per_connection);
        }
        if (auto v = n["ib_addr_family"]) {
            out.ib_addr_family = scalar(v);
            if (out.ib_addr_family != "AF_INET" && out.ib_addr_family != "AF_INET6") {
                problem(v, "nccl.ib_addr_family",
                        "expected one of AF_INET, AF_INET6, got '" + out.ib_addr_family + "'");
            }
        }
        if (auto v = n["ib_addr_range"]) {
            out.ib_addr_range = scalar(v);
            if (out.ib_addr_range.find('/') == std::string::npos) {
                problem(v, "nccl.ib_addr_range",
                        "expected a CIDR range such as fd02::/16, got '" + out.ib_addr_range + "'");
            }
        }
        if (auto v = n["profiles"]) {
            read_profiles(v, out.profiles);
        }
    }

    void read_profiles(const YAML::Node& list, std::vector<NcclProfile>& out) {
        if (!list.IsSequence()) {
            problem(list, "nccl.profiles", "expected a list of profiles ('- name: ...')");
            return;
        }
        std::set<std::string> names;
        for (std::size_t i = 0; i < list.size(); ++i) {
            const auto n = list[i];
            const auto key = "nccl.profiles[" + std::to_string(i) + "]";
            if (!n.IsMap()) {
                problem(n, key, "expected a mapping with name, set, ...");
                continue;
            }
            keys(n, key + ".",
                 {"name", "user_selectable", "automatic", "enforce", "nccl_versions", "match",
                  "set"});
            NcclProfile p;
            const auto name = n["name"];
            if (!name) {
                problem(n, key + ".name", "missing; every profile needs a name");
            } else {
                p.name = scalar(name);
                const bool valid =
                    !p.name.empty() && std::all_of(p.name.begin(), p.name.end(), [](char c) {
                        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                               c == '_' || c == '.';
                    });
                if (!valid || p.name == "auto" || p.name == "off") {
                    problem(name, key + ".name",
                            "expected lower-case letters, digits, '-', '_', '.' and not auto/off, "
                            "got '" +
                                p.name + "'");
                } else if (!names.insert(p.name).second) {
                    problem(name, key + ".name", "profile '" + p.name + "' is defined twice");
                }
            }
            for (const auto& [field, dest] :
                 {std::pair{"user_selectable", &p.user_selectable},
                  std::pair{"automatic", &p.automatic}, std::pair{"enforce", &p.enforce}}) {
                if (n[field]) {
                    *dest = boolean(n[field], key + "." + field).value_or(false);
                }
            }
            if (auto v = n["nccl_versions"]) {
                if (auto r = parse_version_range(scalar(v))) {
                    p.nccl_versions = *r;
                } else {
                    problem(v, key + ".nccl_versions",
                            "expected bounds such as '>=2.18,<2.24', got '" + scalar(v) + "'");
                }
            }
            if (auto m = n["match"]) {
                read_match(m, key + ".match", p);
            }
            read_set(n, key, p, static_cast<bool>(n["nccl_versions"]));
            out.push_back(std::move(p));
        }
    }

    void read_match(const YAML::Node& m, const std::string& key, NcclProfile& p) {
        if (!m.IsMap()) {
            problem(m, key, "expected a mapping with shape, fabric, min_nodes, max_nodes");
            return;
        }
        keys(m, key + ".", {"shape", "fabric", "min_nodes", "max_nodes"});
        if (auto v = m["shape"]; v && regex_ok(v, key + ".shape")) {
            p.match_shape = scalar(v);
        }
        if (auto v = m["fabric"]) {
            p.match_fabric = topology::fabric_kind_from_string(scalar(v));
            if (!p.match_fabric) {
                problem(v, key + ".fabric",
                        "expected one of fat-tree, fat-tree-3, dragonfly+, islands, got '" +
                            scalar(v) + "'");
            }
        }
        if (auto v = m["min_nodes"]) {
            p.min_nodes = number(v, key + ".min_nodes", 1, 1000000).value_or(0);
        }
        if (auto v = m["max_nodes"]) {
            p.max_nodes = number(v, key + ".max_nodes", 1, 1000000).value_or(0);
        }
        if (p.max_nodes != 0 && p.min_nodes > p.max_nodes) {
            problem(m["min_nodes"], key + ".min_nodes",
                    "is larger than max_nodes (" + std::to_string(p.max_nodes) +
                        "); expected min_nodes <= max_nodes");
        }
    }

    void read_set(const YAML::Node& profile,
                  const std::string& key,
                  NcclProfile& p,
                  bool versions_given) {
        const auto set = profile["set"];
        if (!set || !set.IsMap() || set.size() == 0) {
            problem(set ? set : profile, key + ".set",
                    "expected a non-empty mapping of variables, e.g. 'NCCL_DEBUG: INFO'");
            return;
        }
        for (auto it = set.begin(); it != set.end(); ++it) {
            const auto var = it->first.Scalar();
            const auto value = it->second.IsScalar() ? it->second.Scalar() : std::string();
            const auto vkey = key + ".set." + var;
            if (!(var.starts_with("NCCL_") || var.starts_with("TORCH_NCCL_") ||
                  var.starts_with("UCX_") || var.starts_with("CUDA_"))) {
                problem(it->first, vkey, "expected an NCCL_, TORCH_NCCL_, UCX_ or CUDA_ variable");
                continue;
            }
            if (auto why = obsolete_variable(var)) {
                problem(it->first, vkey, std::string(*why));
                continue;
            }
            if (!it->second.IsScalar() || value.empty()) {
                problem(it->second, vkey, "expected a value, got '" + value + "'");
                continue;
            }
            if (var == "NCCL_IB_RETRY_CNT" && parse_uint(value).value_or(8) > 7) {
                problem(
                    it->second, vkey,
                    "expected 0 to 7 (NCCL passes it to the QP unchecked), got '" + value + "'");
                continue;
            }
            if (is_debugging_variable(var) && !versions_given) {
                problem(it->first, vkey,
                        "is an NCCL debugging variable; expected the profile to say which NCCL "
                        "versions it is for (nccl_versions: '>=2.x,<2.y')");
                continue;
            }
            p.set.emplace_back(var, value);
        }
    }
};

}  // namespace

std::optional<NcclVersion> parse_nccl_version(std::string_view s) {
    const auto parts = split(trim(s), '.');
    if (parts.size() < 2 || parts.size() > 3) {
        return std::nullopt;
    }
    NcclVersion v;
    int* fields[] = {&v.major, &v.minor, &v.patch};
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const auto n = parse_uint(parts[i]);
        if (!n || *n > 1000) {
            return std::nullopt;
        }
        *fields[i] = static_cast<int>(*n);
    }
    return v;
}

std::string to_string(const NcclVersion& v) {
    return std::to_string(v.major) + "." + std::to_string(v.minor) +
           (v.patch != 0 ? "." + std::to_string(v.patch) : "");
}

std::optional<VersionRange> parse_version_range(std::string_view s) {
    VersionRange r;
    for (auto part : split(s, ',')) {
        part = trim(part);
        std::size_t op_len = 0;
        while (op_len < part.size() &&
               (part[op_len] == '<' || part[op_len] == '>' || part[op_len] == '=')) {
            ++op_len;
        }
        const auto op = std::string(part.substr(0, op_len));
        const auto v = parse_nccl_version(part.substr(op_len));
        if (!v || (op != ">=" && op != ">" && op != "<" && op != "<=" && op != "==")) {
            return std::nullopt;
        }
        r.bounds.emplace_back(op, *v);
    }
    return r.bounds.empty() ? std::nullopt : std::optional(r);
}

bool VersionRange::contains(const NcclVersion& v) const {
    return std::all_of(bounds.begin(), bounds.end(), [&](const auto& b) {
        const auto& [op, x] = b;
        return op == ">="   ? v >= x
               : op == ">"  ? v > x
               : op == "<"  ? v < x
               : op == "<=" ? v <= x
                            : v == x;
    });
}

const NcclProfile* Policy::find_profile(std::string_view name) const {
    for (const auto& p : nccl.profiles) {
        if (p.name == name) {
            return &p;
        }
    }
    return nullptr;
}

std::string Policy::user_profile_names() const {
    std::string s;
    for (const auto& p : nccl.profiles) {
        if (p.user_selectable) {
            s += (s.empty() ? "" : ", ") + p.name;
        }
    }
    return s.empty() ? std::string("(none)") : s;
}

std::string ConfigProblem::to_string() const {
    return where.to_string() + ": " + key + ": " + message;
}

PolicyLoad load_policy(std::string_view yaml, std::string_view source) {
    return Loader(source).run(yaml);
}

bool is_debugging_variable(std::string_view name) {
    static constexpr std::string_view kDebugging[] = {"NCCL_ALGO",
                                                      "NCCL_PROTO",
                                                      "NCCL_NET_GDR_LEVEL",
                                                      "NCCL_BUFFSIZE",
                                                      "NCCL_MIN_NCHANNELS",
                                                      "NCCL_MAX_NCHANNELS",
                                                      "NCCL_MIN_CTAS",
                                                      "NCCL_MAX_CTAS",
                                                      "NCCL_NTHREADS",
                                                      "NCCL_P2P_NET_CHUNKSIZE",
                                                      "NCCL_P2P_LEVEL",
                                                      "NCCL_SHM_DISABLE",
                                                      "NCCL_P2P_DISABLE",
                                                      "NCCL_NET_GDR_READ",
                                                      "NCCL_IB_SPLIT_DATA_ON_QPS"};
    return std::find(std::begin(kDebugging), std::end(kDebugging), name) != std::end(kDebugging);
}

namespace {
constexpr std::pair<std::string_view, std::string_view> kObsolete[] = {
    {"NCCL_IB_CUDA_SUPPORT", "removed in NCCL 2.4.0; use NCCL_NET_GDR_LEVEL"},
    {"NCCL_IB_GDR_LEVEL", "old name of NCCL_NET_GDR_LEVEL"},
    {"NCCL_TIMEOUT",
     "does not exist in NCCL; the collective timeout is PyTorch's init_process_group(timeout=)"},
    {"NCCL_ASYNC_ERROR_HANDLING", "PyTorch's legacy name; use TORCH_NCCL_ASYNC_ERROR_HANDLING"},
    {"NCCL_LL_THRESHOLD", "removed in NCCL 2.5"},
    {"NCCL_TREE_THRESHOLD", "removed in NCCL 2.5"},
    {"NCCL_SINGLE_RING_THRESHOLD", "removed in NCCL 2.3"},
};
}  // namespace

std::optional<std::string_view> obsolete_variable(std::string_view name) {
    for (const auto& [n, why] : kObsolete) {
        if (n == name) {
            return why;
        }
    }
    return std::nullopt;
}

std::vector<std::string_view> suspect_user_variables() {
    std::vector<std::string_view> names;
    for (const auto& [n, why] : kObsolete) {
        names.push_back(n);
    }
    names.emplace_back("NCCL_IB_RETRY_CNT");
    return names;
}

}  // namespace switchyard::policy
