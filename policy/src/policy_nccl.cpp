// SPDX-License-Identifier: Apache-2.0
// The policy's nccl section: the rules' settings and the profiles (match, set, enforce).
#include "policy_sections.hpp"
#include "switchyard/nccl/params.hpp"

namespace switchyard::policy {
namespace {

using fabric::FabricKind;

class NcclReader : public YamlReader {
public:
    using YamlReader::YamlReader;

private:
    nccl::NcclVersion min_version_ =
        nccl::NcclPolicy{}.min_version;  ///< profiles are checked against it

public:
    void read_nccl(const YAML::Node& n, nccl::NcclPolicy& out) {
        if (n["enabled"]) {
            out.enabled = boolean(n["enabled"], "nccl.enabled").value_or(true);
        }
        if (auto v = n["min_version"]) {
            if (auto parsed = nccl::parse_nccl_version(scalar(v))) {
                out.min_version = *parsed;
                min_version_ = *parsed;
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
        if (auto v = n["imex_channel"]) {
            out.imex_channel = scalar(v);
            if (!out.imex_channel.empty() && out.imex_channel.front() != '/') {
                problem(v, "nccl.imex_channel",
                        "expected an absolute path such as "
                        "/dev/nvidia-caps-imex-channels/channel0, or '' to not check, got '" +
                            out.imex_channel + "'");
            }
        }
        if (auto v = n["ras_ports"]) {
            read_ras_ports(v, out);
        }
        if (auto v = n["profiles"]) {
            read_profiles(v, out.profiles);
        }
        if (auto v = n["inspector"]) {
            read_inspector(v, out.inspector);
        }
    }

    /// "28100-28999": the ports R19 gives jobs on shared nodes; '' turns R19 off.
    void read_ras_ports(const YAML::Node& v, nccl::NcclPolicy& out) {
        const auto text = scalar(v);
        if (text.empty()) {
            out.ras_port_first = out.ras_port_last = 0;
            return;
        }
        const auto dash = text.find('-');
        const auto first = parse_uint(std::string_view(text).substr(0, dash));
        const auto last =
            dash == std::string::npos ? first : parse_uint(std::string_view(text).substr(dash + 1));
        if (!first || !last || *first < 1024 || *last > 65535 || *last < *first) {
            problem(v, "nccl.ras_ports",
                    "expected a port range such as 28100-28999 (1024-65535, first <= last), or "
                    "'' to not set NCCL_RAS_ADDR, got '" +
                        text + "'");
            return;
        }
        out.ras_port_first = static_cast<unsigned>(*first);
        out.ras_port_last = static_cast<unsigned>(*last);
    }

    void read_inspector(const YAML::Node& n, nccl::InspectorPolicy& out) {
        const std::string key = "nccl.inspector";
        if (!n.IsMap()) {
            problem(n, key, "expected a mapping with partitions, plugin, dump_dir");
            return;
        }
        keys(n, key + ".", {"partitions", "plugin", "dump_dir"});
        if (auto v = n["partitions"]; v && list_of(v, key + ".partitions", "partition names")) {
            for (std::size_t i = 0; i < v.size(); ++i) {
                out.partitions.push_back(
                    text(v[i], key + ".partitions[" + std::to_string(i) + "]", "a partition"));
            }
        }
        for (const auto& [name, field] :
             {std::pair<const char*, std::string*>{"plugin", &out.plugin},
              {"dump_dir", &out.dump_dir}}) {
            if (auto v = n[name]) {
                *field = scalar(v);
                if (!field->starts_with('/')) {
                    problem(v, key + "." + name, "expected an absolute path, got '" + *field + "'");
                    field->clear();
                }
            }
        }
        if (!out.partitions.empty() && out.plugin.empty()) {
            problem(n, key + ".plugin",
                    "expected the Inspector library's absolute path (NCCL_PROFILER_PLUGIN) when "
                    "partitions opt in");
        }
    }

    void read_profiles(const YAML::Node& list, std::vector<nccl::NcclProfile>& out) {
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
            nccl::NcclProfile p;
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
                if (auto r = nccl::parse_version_range(scalar(v))) {
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

    void read_match(const YAML::Node& m, const std::string& key, nccl::NcclProfile& p) {
        if (!m.IsMap()) {
            problem(m, key, "expected a mapping with shape, fabric, min_nodes, max_nodes");
            return;
        }
        keys(m, key + ".", {"shape", "fabric", "min_nodes", "max_nodes"});
        if (auto v = m["shape"]; v && regex_ok(v, key + ".shape")) {
            p.match_shape = scalar(v);
        }
        if (auto v = m["fabric"]) {
            p.match_fabric = fabric::fabric_kind_from_string(scalar(v));
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
                  nccl::NcclProfile& p,
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
            if (auto why = nccl::obsolete_variable(var)) {
                problem(it->first, vkey, std::string(*why));
                continue;
            }
            // A name no release the policy is for reads: misspelt, or retired (NCCL's own table).
            if (var.starts_with("NCCL_")) {
                if (auto why = nccl::nccl_name_problem(var, min_version_, p.nccl_versions)) {
                    problem(it->first, vkey, *why);
                    continue;
                }
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
            if (nccl::is_debugging_variable(var) && !versions_given) {
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

void read_nccl_section(const std::string& source,
                       std::vector<ConfigProblem>& problems,
                       const YAML::Node& n,
                       nccl::NcclPolicy& out) {
    NcclReader(source, problems).read_nccl(n, out);
}

}  // namespace switchyard::policy
