// SPDX-License-Identifier: Apache-2.0
// The site's NodeName lines with the fabric's SU and group features merged in.
#include "switchyard/slurm/files/slurm_nodes.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <vector>

#include "switchyard/common/hostlist.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/slurm/files/slurm_text.hpp"
#include "switchyard/slurm/files/slurm_writers.hpp"

namespace switchyard::slurm {

using fabric::FabricMap;

namespace {

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

using detail::shown;

/// The words of a slurm.conf line without its comment (a '#' not escaped by '\').
std::vector<std::string_view> words_of(std::string_view line) {
    for (std::size_t i = 0; i < line.size(); ++i) {
        if (line[i] == '#' && (i == 0 || line[i - 1] != '\\')) {
            line = line.substr(0, i);
            break;
        }
    }
    return split_words(line);
}

/// A word of a NodeName line: its key and value ("" for a word without '=').
struct Word {
    std::string_view key;
    std::string_view value;
    std::string_view text;
};

Word word(std::string_view w) {
    const auto eq = w.find('=');
    return eq == std::string_view::npos ? Word{{}, {}, w}
                                        : Word{w.substr(0, eq), w.substr(eq + 1), w};
}

std::string unquoted(std::string_view v) {
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') {
        v = v.substr(1, v.size() - 2);
    }
    return std::string(v);
}

}  // namespace

bool switchyard_feature(std::string_view f) {
    if (f.substr(0, 3) == "su_" || f.substr(0, 4) == "grp_") {
        return true;
    }
    if (f.substr(0, 3) != "grp") {
        return false;
    }
    std::size_t i = 3;
    while (i < f.size() && f[i] >= '0' && f[i] <= '9') {
        ++i;
    }
    return i > 3 && i < f.size() && f[i] == '_';
}

Result<NodesConf> merge_node_features(std::string_view site,
                                      std::string_view source,
                                      const FabricMap& map,
                                      std::string_view header) {
    NodesConf out;
    for (std::size_t start = 0; start < header.size();) {
        const auto nl = header.find('\n', start);
        out.text += "# " + std::string(header.substr(start, nl - start)) + "\n";
        start = nl == std::string_view::npos ? header.size() : nl + 1;
    }
    out.text +=
        "# The site's NodeName lines with switchyard's SU and group features: include this file "
        "in slurm.conf\n# in place of those lines, so slurmctld has the features whenever it "
        "reads its configuration.\n";
    std::size_t n = 0;
    for (std::size_t start = 0; start <= site.size();) {
        const auto nl = site.find('\n', start);
        const auto line = site.substr(start, nl == std::string_view::npos ? nl : nl - start);
        start = nl == std::string_view::npos ? site.size() + 1 : nl + 1;
        ++n;
        const auto words = words_of(line);
        if (words.empty() || !iequals(word(words[0]).key, "NodeName")) {
            continue;
        }
        const auto at = [&](const std::string& what) {
            return Error::parse({std::string(source), static_cast<std::uint32_t>(n), 0}, what);
        };
        ++out.site_lines;
        const auto names_text = word(words[0]).value;
        if (iequals(names_text, "DEFAULT")) {
            out.text += join(std::vector<std::string>(words.begin(), words.end()), " ") + "\n";
            ++out.lines;
            continue;
        }
        auto names = expand_hostlist(names_text);
        if (!names) {
            return fail(at("NodeName=" + shown(names_text) + ": " + names.error().message()));
        }
        // The other words: per-host lists (NodeAddr, NodeHostname) and shared words.
        std::vector<std::string> site_features;
        std::vector<std::pair<std::string, std::vector<std::string>>> per_host;
        std::vector<std::string> shared;
        for (std::size_t i = 1; i < words.size(); ++i) {
            const auto w = word(words[i]);
            if (w.key.empty()) {
                return fail(at("'" + shown(w.text) + "': expected Key=Value"));
            }
            if (iequals(w.key, "Feature") || iequals(w.key, "Features")) {
                const auto list = unquoted(w.value);
                for (const auto f : split(list, ',')) {
                    if (!f.empty() && !switchyard_feature(f)) {
                        site_features.emplace_back(f);
                    }
                }
            } else if (iequals(w.key, "NodeAddr") || iequals(w.key, "NodeHostname")) {
                auto values = expand_hostlist(w.value);
                if (!values || (values->size() != 1 && values->size() != names->size())) {
                    return fail(at(std::string(w.key) + "=" + shown(w.value) + ": expected one " +
                                   "name, or one per node of NodeName (" +
                                   std::to_string(names->size()) + ")"));
                }
                if (values->size() == 1 || names->size() == 1) {
                    shared.emplace_back(w.text);
                } else {
                    per_host.emplace_back(std::string(w.key), std::move(*values));
                }
            } else if (iequals(w.key, "Port") && names->size() > 1 &&
                       w.value.find_first_of(",-[") != std::string_view::npos) {
                return fail(at("Port=" + shown(w.value) +
                               ": a port range for several nodes; give each node its own "
                               "NodeName line with its Port"));
            } else {
                shared.emplace_back(w.text);
            }
        }
        // Hosts grouped by their features, in first-seen order; one line per host when a
        // per-host list must follow it.
        std::vector<std::pair<std::string, std::vector<std::size_t>>> groups;
        std::map<std::string, std::size_t> group_of;
        for (std::size_t h = 0; h < names->size(); ++h) {
            std::vector<std::string> features = site_features;
            if (const auto* host = map.find_host((*names)[h])) {
                const auto ours = host_features(map, *host);
                for (const auto f : split(ours, ',')) {
                    if (std::find(features.begin(), features.end(), f) == features.end()) {
                        features.emplace_back(f);
                    }
                }
            } else {
                ++out.outside;
            }
            const auto key = join(features, ",");
            if (!per_host.empty()) {
                groups.push_back({key, {h}});
                continue;
            }
            const auto [it, fresh] = group_of.try_emplace(key, groups.size());
            if (fresh) {
                groups.push_back({key, {}});
            }
            groups[it->second].second.push_back(h);
        }
        out.hosts += names->size();
        for (const auto& [features, hosts] : groups) {
            std::vector<std::string> these;
            for (const auto h : hosts) {
                these.push_back((*names)[h]);
            }
            std::string l = "NodeName=" + compress_hostlist(these);
            for (const auto& [key, values] : per_host) {
                l += " " + key + "=" + values[hosts.front()];
            }
            for (const auto& w : shared) {
                l += " " + w;
            }
            if (!features.empty()) {
                l += " Features=" + features;
            }
            out.text += l + "\n";
            ++out.lines;
        }
    }
    if (out.site_lines == 0) {
        return fail(Error::parse({std::string(source), 0, 0},
                                 "no NodeName line; expected the site's slurm.conf or the file "
                                 "its NodeName lines are in"));
    }
    return out;
}

}  // namespace switchyard::slurm
