// SPDX-License-Identifier: Apache-2.0
// discover --node-facts: the hosts' facts as `switchyard node` writes them (a directory of
// --json files, or a file of --nvlink-only --line lines), read on several threads, checked
// before anything of them reaches the map.
#include <algorithm>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "switchyard/common/input.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/node/node_json.hpp"

namespace switchyard::node {
namespace {

/// `s` with every byte outside printable ASCII as '?': text from a facts file goes into the
/// map's anomaly lines and the terminal.
std::string printable(std::string s) {
    for (auto& c : s) {
        if (c < 0x20 || c > 0x7e) {
            c = '?';
        }
    }
    return s;
}

/// The "nvlink" object of a node file: its domain, health and problems. A file without one
/// (written with --nvml off, or by an older switchyard) says nothing of the host's domain.
Result<void> read_nvlink_facts(const nlohmann::json& j,
                               const std::string& host,
                               const std::function<Result<void>(const std::string&)>& bad,
                               node::HostNvlinkMap& out) {
    const auto nv = j.find("nvlink");
    if (nv == j.end()) {
        return {};
    }
    if (!nv->is_object()) {
        return bad("\"nvlink\" is not an object");
    }
    auto text = [&](const char* key) -> std::optional<std::string> {
        const auto it = nv->find(key);
        if (it == nv->end() || !it->is_string() || it->get_ref<const std::string&>().size() > 256) {
            return std::nullopt;
        }
        return it->get<std::string>();
    };
    auto flag = [&](const char* key) -> std::optional<bool> {
        const auto it = nv->find(key);
        return it != nv->end() && it->is_boolean() ? std::optional<bool>(it->get<bool>())
                                                   : std::nullopt;
    };
    const auto multi = flag("multi_node");
    const auto healthy = flag("healthy");
    const auto domain = text("domain");
    if (!multi || !healthy || !domain) {
        return bad(
            "\"nvlink\" needs \"multi_node\" and \"healthy\" (true or false) and "
            "\"domain\" (a string of at most 256 characters)");
    }
    // <clusterUuid>.<cliqueId>: hex digits and dashes, a dot, digits. Nothing else reaches the
    // map's lines (a newline there would be a line of its own).
    const auto dot = domain->rfind('.');
    const bool key_ok =
        domain->empty() || (dot != std::string::npos && dot > 0 && dot + 1 < domain->size() &&
                            domain->find_first_not_of("0123456789abcdefABCDEF-") == dot &&
                            domain->find_first_not_of("0123456789", dot + 1) == std::string::npos);
    if (!key_ok) {
        return bad("\"nvlink\".\"domain\" '" + printable(*domain) +
                   "' is not <clusterUuid>.<cliqueId> (hex digits and dashes, a dot, digits)");
    }
    node::HostNvlinkFacts f{*multi, *domain, *healthy, {}};
    if (const auto p = nv->find("problems"); p != nv->end() && p->is_array()) {
        for (const auto& item : *p) {
            if (item.is_string() && f.problems.size() < 16) {
                f.problems.push_back(printable(item.get<std::string>().substr(0, 200)));
            }
        }
    }
    out[host] = std::move(f);
    return {};
}

/// One facts file's part: its host's net device → RDMA device and NVLink domain.
struct OneHostFacts {
    std::string host;
    std::map<std::string, std::string, std::less<>> devices;
    node::HostNvlinkMap nvlink;  ///< at most this host
};

/// A host name from a facts file's name or line: printable ASCII, no space.
bool host_name_ok(const std::string& name) {
    return !name.empty() && printable(name) == name && name.find(' ') == std::string::npos;
}

/// A `switchyard node --json` file (`line` 0), or one line of `--nvlink-only --line`: its
/// NVLink part, and with `nics` (--lldp) each NIC's net devices. \return Error::parse naming
/// the file (and line).
Result<OneHostFacts> parse_host_facts(const std::string& path,
                                      std::string_view text,
                                      bool nics,
                                      std::uint32_t line = 0) {
    auto bad = [&](const std::string& what) -> Result<void> {
        return fail(Error::parse(SourceLoc{path, line, 0},
                                 what + (line == 0 ? "; expected `switchyard node --json` output"
                                                   : "; expected a line of `switchyard node "
                                                     "--nvlink-only --line`")));
    };
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        return fail(bad("not a JSON object").error());
    }
    OneHostFacts out;
    std::string name;
    if (line == 0) {
        name = std::filesystem::path(path).stem().string();
        if (!host_name_ok(name)) {
            return fail(Error::parse(SourceLoc{printable(path), 0, 0},
                                     "the file's name is not <host>.json (a space or a byte that "
                                     "is not printable ASCII)"));
        }
    } else {
        const auto h = j.find("host");
        name = h != j.end() && h->is_string() ? h->get<std::string>() : std::string();
        if (!host_name_ok(name) || name.size() > 256) {
            return fail(bad("no \"host\" name (printable ASCII, no space)").error());
        }
    }
    out.host = name;
    if (auto r = read_nvlink_facts(j, name, bad, out.nvlink); !r) {
        return fail(r.error());
    }
    if (!nics) {
        return out;
    }
    const auto list = j.find("nics");
    if (list == j.end() || !list->is_array()) {
        return fail(bad("no \"nics\" list").error());
    }
    for (const auto& nic : *list) {
        if (!nic.is_object() || !nic.contains("name") || !nic["name"].is_string()) {
            return fail(bad("a NIC without a \"name\"").error());
        }
        // The NIC as node_topology reads it: its net devices, its ports' GIDs' ones.
        node::Nic n;
        n.name = nic["name"].get<std::string>();
        for (const auto& d : nic.value("netdevs", nlohmann::json::array())) {
            if (d.is_string()) {
                n.netdevs.push_back(d.get<std::string>());
            }
        }
        for (const auto& p : nic.value("ports", nlohmann::json::array())) {
            auto& port = n.ports.emplace_back();
            for (const auto& g : p.is_object() ? p.value("gids", nlohmann::json::array())
                                               : nlohmann::json::array()) {
                if (g.is_object() && g.value("ndev", nlohmann::json()).is_string()) {
                    port.gids.push_back({0, "", "", g["ndev"].get<std::string>()});
                }
            }
        }
        // A NIC with net devices on several ports keeps their names: one CA per port, and
        // one RDMA device name for two would collide.
        std::vector<std::vector<std::string>> per_port;
        for (const auto& port : n.ports) {
            if (auto devs = node::port_netdevs(n, port); !devs.empty()) {
                per_port.push_back(std::move(devs));
            }
        }
        if (per_port.size() == 1) {
            for (const auto& d : per_port.front()) {
                out.devices.try_emplace(d, n.name);
            }
        }
    }
    return out;
}

/// --node-facts: `switchyard node --json` of each host, in <host>.json, read and parsed on up
/// to four threads and gathered in name order (the first error in name order is the one
/// reported): host → net device → RDMA device (a port's RoCE GIDs' devices, or its NIC's own
/// when it has one port; with --lldp only, where the files must list their NICs) and host →
/// NVLink domain.
Result<HostFacts> read_node_facts(const std::string& dir, bool nics) {
    constexpr std::size_t kWindow = 256;
    const auto paths =
        list_dir_files(dir, "--node-facts", ".json",
                       "`switchyard node --json` outputs, one per host", kMaxFactsFiles);
    if (!paths) {
        return fail(paths.error());
    }
    HostFacts facts;
    std::vector<std::optional<Result<OneHostFacts>>> parsed(kWindow);
    const auto threads = std::clamp(std::thread::hardware_concurrency(), 1U, 4U);
    auto ok = ordered_pipeline(
        paths->size(), threads, kWindow,
        [&](std::size_t i) {
            const auto& path = (*paths)[i];
            auto text = read_input(path, kGatheredInput);
            parsed[i % kWindow] = text ? parse_host_facts(path, *text, nics)
                                       : Result<OneHostFacts>(fail(text.error()));
        },
        [&](std::size_t i) -> Result<void> {
            auto& f = *parsed[i % kWindow];
            if (!f) {
                return fail(f.error());
            }
            if (!f->devices.empty()) {
                facts.devices[f->host] = std::move(f->devices);
            }
            for (auto& [host, nv] : f->nvlink) {
                facts.nvlink.emplace(host, std::move(nv));
            }
            parsed[i % kWindow].reset();
            return {};
        });
    if (!ok) {
        return fail(ok.error());
    }
    return facts;
}

/// --node-facts FILE: one `switchyard node --nvlink-only --line` per line (blank lines
/// skipped), parsed in chunks on up to four threads and gathered in file order; a host on two
/// lines is an error naming both. NVLink domains only (no NIC list: not for --lldp).
Result<HostFacts> read_node_facts_lines(const std::string& path) {
    constexpr std::size_t kChunk = 4096;
    auto text = InputText::open(path, ReadRules{kMaxInputFile, false, false});
    if (!text) {
        return fail(text.error());
    }
    std::vector<std::pair<std::string_view, std::uint32_t>> lines;  // (text, line number)
    std::uint32_t number = 0;
    for (const auto l : split(text->text(), '\n')) {
        ++number;
        if (l.size() > kMaxFactsLine) {  // before the JSON parser sees it
            return fail(Error::parse(SourceLoc{path, number, 0},
                                     std::to_string(l.size()) + " bytes, more than " +
                                         std::to_string(kMaxFactsLine) +
                                         "; expected a line of `switchyard node --nvlink-only "
                                         "--line`"));
        }
        if (!trim(l).empty()) {
            lines.emplace_back(l, number);
        }
    }
    const std::size_t chunks = (lines.size() + kChunk - 1) / kChunk;
    std::vector<std::vector<Result<OneHostFacts>>> parsed(chunks);
    const auto threads = std::clamp(std::thread::hardware_concurrency(), 1U, 4U);
    HostFacts facts;
    std::map<std::string, std::uint32_t, std::less<>> seen;
    auto ok = ordered_pipeline(
        chunks, threads, std::size_t{2} * threads,
        [&](std::size_t c) {
            for (std::size_t i = c * kChunk; i < std::min(lines.size(), (c + 1) * kChunk); ++i) {
                parsed[c].push_back(parse_host_facts(path, lines[i].first, false, lines[i].second));
            }
        },
        [&](std::size_t c) -> Result<void> {
            for (std::size_t k = 0; k < parsed[c].size(); ++k) {
                auto& f = parsed[c][k];
                if (!f) {
                    return fail(f.error());
                }
                const auto at = lines[c * kChunk + k].second;
                if (auto [it, fresh] = seen.emplace(f->host, at); !fresh) {
                    return fail(Error::parse(SourceLoc{path, at, 0},
                                             "host '" + f->host + "' again (first on line " +
                                                 std::to_string(it->second) + ")"));
                }
                for (auto& [host, nv] : f->nvlink) {
                    facts.nvlink.emplace(host, std::move(nv));
                }
            }
            parsed[c].clear();
            parsed[c].shrink_to_fit();
            return {};
        });
    if (!ok) {
        return fail(ok.error());
    }
    return facts;
}

}  // namespace

/// --node-facts: a directory of files, or a file of lines.
Result<HostFacts> read_facts(const std::string& path, bool nics) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        return read_node_facts(path, nics);
    }
    if (nics) {
        return fail(Error::invalid_argument(
            path +
            ": with --lldp, --node-facts is a directory of `switchyard node --json` "
            "files (one per host, with its NICs); a file of --nvlink-only lines has none"));
    }
    return read_node_facts_lines(path);
}

}  // namespace switchyard::node
