// SPDX-License-Identifier: Apache-2.0
#include "switchyard/preflight/schedule.hpp"

#include <algorithm>
#include <bit>
#include <unordered_set>

namespace switchyard::preflight {
namespace {

/// Whether a part is a link that one probe at a time may load: host ports, cables, and the
/// leaf's (or the group pair's) uplink set while it stands for a cable nobody can name.
bool exclusive(PartKind k) {
    switch (k) {
        case PartKind::Port:
        case PartKind::NvlinkPort:
        case PartKind::Uplinks:
        case PartKind::Uplink:
        case PartKind::Globals:
        case PartKind::Global:
            return true;
        default:
            return false;
    }
}

std::uint64_t edge_key(std::uint32_t a, std::uint32_t b) {
    if (a > b) {
        std::swap(a, b);
    }
    return (std::uint64_t{a} << 32) | b;
}

/// First-fit rounds: each exclusive part holds a bitset of the rounds it is busy in.
void assign_rounds(const Model& m, std::vector<Probe>& probes, Schedule& s) {
    std::vector<std::vector<std::uint64_t>> busy(m.parts.size());
    std::vector<std::uint32_t> path;
    std::vector<std::uint64_t> taken;
    // Pairs across leaves first: they hold the scarce uplinks.
    std::stable_sort(probes.begin(), probes.end(), [&](const Probe& x, const Probe& y) {
        const bool cx = m.attachments[x.a].leaf != m.attachments[x.b].leaf;
        const bool cy = m.attachments[y.a].leaf != m.attachments[y.b].leaf;
        return cx > cy;
    });
    std::uint32_t rounds = 0;
    for (auto& p : probes) {
        path_of(m, p, path);
        taken.clear();
        for (auto part : path) {
            if (!exclusive(m.parts[part].kind)) {
                continue;
            }
            const auto& b = busy[part];
            if (taken.size() < b.size()) {
                taken.resize(b.size(), 0);
            }
            for (std::size_t w = 0; w < b.size(); ++w) {
                taken[w] |= b[w];
            }
        }
        std::uint32_t round = 0;
        for (std::size_t w = 0;; ++w) {
            const std::uint64_t word = w < taken.size() ? taken[w] : 0;
            if (word != ~std::uint64_t{0}) {
                round = static_cast<std::uint32_t>(w * 64 +
                                                   static_cast<std::size_t>(std::countr_one(word)));
                break;
            }
        }
        p.round = round;
        rounds = std::max(rounds, round + 1);
        for (auto part : path) {
            if (!exclusive(m.parts[part].kind)) {
                continue;
            }
            auto& b = busy[part];
            if (b.size() <= round / 64) {
                b.resize(round / 64 + 1, 0);
            }
            b[round / 64] |= std::uint64_t{1} << (round % 64);
        }
    }
    std::stable_sort(probes.begin(), probes.end(),
                     [](const Probe& x, const Probe& y) { return x.round < y.round; });
    s.rounds = rounds;
}

/// One plane: attachments [begin, end), sorted by leaf.
void plan_plane(const Model& m,
                std::vector<char>& covered,
                std::uint32_t begin,
                std::uint32_t end,
                std::vector<Probe>& out,
                std::vector<std::string>& notes) {
    // The plane's leaves, each with its attachments, grouped by the map group.
    struct PlaneLeaf {
        std::uint32_t leaf;
        std::uint32_t group;
        std::vector<std::uint32_t> atts;
        std::vector<std::uint32_t> stubs;  // attachments still wanting a pair across leaves
    };
    std::vector<PlaneLeaf> leaves;
    for (std::uint32_t i = begin; i < end; ++i) {
        const auto leaf = m.attachments[i].leaf;
        if (leaves.empty() || leaves.back().leaf != leaf) {
            leaves.push_back(PlaneLeaf{leaf, m.leaves[leaf].group, {}, {}});
        }
        leaves.back().atts.push_back(i);
    }
    const bool nvlink = m.planes[m.attachments[begin].plane].nvlink;
    const std::size_t first_probe = out.size();
    std::unordered_set<std::uint64_t> edges;
    auto add = [&](std::uint32_t a, std::uint32_t b) {
        if (a == b || !edges.insert(edge_key(a, b)).second) {
            return false;
        }
        out.push_back(Probe{a, b, 0});
        return true;
    };
    // A ring inside the leaf (NVLink domains, or a plane with one leaf): every host two pairs.
    auto ring = [&](const std::vector<std::uint32_t>& atts) {
        const auto n = atts.size();
        if (n == 2) {
            add(atts[0], atts[1]);
        } else if (n > 2) {
            for (std::size_t i = 0; i < n; ++i) {
                add(atts[i], atts[(i + 1) % n]);
            }
        }
    };
    const std::string& plane = m.planes[m.attachments[begin].plane].name;
    if (nvlink || leaves.size() == 1) {
        for (const auto& l : leaves) {
            if (l.atts.size() == 1) {
                notes.push_back(plane + ": " + m.hosts[m.attachments[l.atts[0]].host] +
                                " has no peer to measure with on " +
                                m.parts[m.leaves[l.leaf].part].name);
            }
            ring(l.atts);
        }
        return;
    }
    // Pairs inside each leaf; every host then wants one pair across leaves, the odd one two.
    for (auto& l : leaves) {
        const auto n = l.atts.size();
        for (std::size_t i = 0; i + 1 < n; i += 2) {
            add(l.atts[i], l.atts[i + 1]);
            l.stubs.push_back(l.atts[i]);
            l.stubs.push_back(l.atts[i + 1]);
        }
        if (n % 2 == 1) {
            l.stubs.push_back(l.atts[n - 1]);
            l.stubs.push_back(l.atts[n - 1]);
        }
        std::reverse(l.stubs.begin(), l.stubs.end());  // popped from the back: in host order
    }
    const auto count = static_cast<std::uint32_t>(leaves.size());
    std::vector<std::uint32_t> path;
    auto gain = [&](std::uint32_t a, std::uint32_t b) {
        path_of(m, Probe{a, b, 0}, path);
        std::uint32_t g = 0;
        for (auto part : path) {
            g += covered[part] == 0 && exclusive(m.parts[part].kind) ? 1U : 0U;
        }
        return g;
    };
    auto pair_stubs = [&](std::uint32_t x, std::uint32_t y) {
        // The top stub of leaf x with one of leaf y's: with exact paths the one whose pair
        // crosses the most cables no pair crosses yet (which uplink and global cable a pair
        // takes depends on its hosts), else the top one.
        auto& sx = leaves[x].stubs;
        auto& sy = leaves[y].stubs;
        if (sx.empty() || sy.empty()) {
            return false;
        }
        if (m.exact_path) {
            std::size_t best = sy.size() - 1;
            std::uint32_t best_gain = 0;
            for (std::size_t k = sy.size(); k-- > 0;) {
                const auto g = gain(sx.back(), sy[k]);
                if (g > best_gain) {
                    best_gain = g;
                    best = k;
                }
            }
            std::swap(sy[best], sy.back());
        }
        if (!add(sx.back(), sy.back())) {
            return false;
        }
        if (m.exact_path) {
            path_of(m, out.back(), path);
            for (auto part : path) {
                covered[part] = 1;
            }
        }
        sx.pop_back();
        sy.pop_back();
        return true;
    };
    // First every pair of groups once (their global cables), rotating over each group's leaves.
    std::vector<std::uint32_t> groups;
    for (const auto& l : leaves) {
        groups.push_back(l.group);
    }
    std::sort(groups.begin(), groups.end());
    groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
    std::vector<std::vector<std::uint32_t>> group_leaves(groups.size());
    for (std::uint32_t i = 0; i < count; ++i) {
        const auto g =
            std::lower_bound(groups.begin(), groups.end(), leaves[i].group) - groups.begin();
        group_leaves[static_cast<std::size_t>(g)].push_back(i);
    }
    std::vector<std::size_t> turn(groups.size(), 0);
    auto next_leaf = [&](std::size_t g) {
        const auto& gl = group_leaves[g];
        for (std::size_t tries = 0; tries < gl.size(); ++tries) {
            const auto l = gl[turn[g]++ % gl.size()];
            if (!leaves[l].stubs.empty()) {
                return l;
            }
        }
        return kNone;
    };
    for (std::size_t ga = 0; ga < groups.size(); ++ga) {
        for (std::size_t gb = ga + 1; gb < groups.size(); ++gb) {
            // As many pairs as there are cables between them with exact paths (each chosen to
            // cross one no pair crosses yet); twice as many without, as which cable a pair
            // takes is then a draw.
            auto cables = std::min(m.group_cables[groups[ga]], m.group_cables[groups[gb]]);
            cables = std::max<std::uint32_t>(1, cables) * (m.exact_path ? 1 : 2);
            std::uint32_t made = 0;
            for (std::uint32_t k = 0; k < cables; ++k) {
                const auto x = next_leaf(ga);
                const auto y = next_leaf(gb);
                if (x != kNone && y != kNone && pair_stubs(x, y)) {
                    ++made;
                }
            }
            if (made == 0) {
                notes.push_back(plane + ": no pair between " + m.group_names[groups[ga]] + " and " +
                                m.group_names[groups[gb]] + " (no host left to pair)");
            }
        }
    }
    // Then inside each group: each leaf's next stub to the next leaf of its group in turn.
    std::vector<std::uint32_t> pointer(count, 0);
    auto match = [&](const std::vector<std::uint32_t>& pool) {
        const auto n = static_cast<std::uint32_t>(pool.size());
        bool progress = true;
        while (progress) {
            progress = false;
            for (std::uint32_t i = 0; i < n; ++i) {
                const auto x = pool[i];
                if (leaves[x].stubs.empty()) {
                    continue;
                }
                for (std::uint32_t step = 1; step < n; ++step) {
                    const auto y = pool[(i + pointer[x] + step) % n];
                    if (pair_stubs(x, y)) {
                        pointer[x] = (pointer[x] + step) % n;
                        progress = true;
                        break;
                    }
                }
            }
        }
    };
    for (const auto& gl : group_leaves) {
        match(gl);
    }
    // What a group could not match inside itself goes to the other groups.
    std::vector<std::uint32_t> all(count);
    for (std::uint32_t i = 0; i < count; ++i) {
        all[i] = i;
    }
    match(all);
    // Left over on one leaf: pairs inside it, else the host keeps the pairs it has.
    for (auto& l : leaves) {
        while (l.stubs.size() >= 2) {
            const auto a = l.stubs.back();
            l.stubs.pop_back();
            bool paired = false;
            for (std::size_t k = l.stubs.size(); k-- > 0;) {
                if (add(a, l.stubs[k])) {
                    l.stubs.erase(l.stubs.begin() + static_cast<std::ptrdiff_t>(k));
                    paired = true;
                    break;
                }
            }
            if (!paired) {
                break;
            }
        }
        l.stubs.clear();
    }
    // A host still short of two pairs (its last stubs met partners it already had) gets one:
    // with another short host; if the two are partners already, each takes one end of a pair
    // of two other hosts in its place (the count stays N); else with any host of another leaf
    // while the plane has fewer than N pairs. A host in one pair cannot be told from its
    // partner.
    std::vector<std::uint32_t> degree(end - begin, 0);
    for (std::size_t i = first_probe; i < out.size(); ++i) {
        ++degree[out[i].a - begin];
        ++degree[out[i].b - begin];
    }
    auto is_short = [&](std::uint32_t x) { return degree[x - begin] < 2; };
    auto adjacent = [&](std::uint32_t x, std::uint32_t y) {
        return edges.count(edge_key(x, y)) != 0;
    };
    for (std::uint32_t a = begin; a < end; ++a) {
        for (std::uint32_t b = begin; b < end && is_short(a); ++b) {
            if (b == a || !is_short(b)) {
                continue;
            }
            if (add(a, b)) {
                ++degree[a - begin];
                ++degree[b - begin];
                continue;
            }
            for (std::size_t i = first_probe; i < out.size(); ++i) {
                const auto c = out[i].a;
                const auto d = out[i].b;
                if (c == a || c == b || d == a || d == b || adjacent(a, c) || adjacent(b, d)) {
                    continue;
                }
                edges.erase(edge_key(c, d));
                out[i] = Probe{a, c, 0};
                edges.insert(edge_key(a, c));
                add(b, d);
                ++degree[a - begin];
                ++degree[b - begin];
                break;
            }
        }
        // Only while the plane has fewer pairs than hosts: N pairs for N hosts is the bound.
        for (std::uint32_t b = begin;
             b < end && is_short(a) && out.size() - first_probe < end - begin; ++b) {
            if (m.attachments[b].leaf != m.attachments[a].leaf && add(a, b)) {
                ++degree[a - begin];
                ++degree[b - begin];
            }
        }
    }
    // Last, a host still short takes a pair from a host with three: (x, y) becomes (a, y).
    for (std::uint32_t a = begin; a < end; ++a) {
        for (std::size_t i = first_probe; i < out.size() && is_short(a); ++i) {
            for (const bool flip : {false, true}) {
                const auto x = flip ? out[i].b : out[i].a;
                const auto y = flip ? out[i].a : out[i].b;
                if (x == a || y == a || degree[x - begin] < 3 || adjacent(a, y)) {
                    continue;
                }
                edges.erase(edge_key(x, y));
                out[i] = Probe{a, y, 0};
                edges.insert(edge_key(a, y));
                --degree[x - begin];
                ++degree[a - begin];
                break;
            }
        }
    }
}

}  // namespace

Schedule plan_pairs(const Model& m) {
    Schedule s;
    std::vector<Probe> probes;
    std::vector<char> covered(m.parts.size(), 0);  // cables a pair crosses (exact paths)
    const auto n = static_cast<std::uint32_t>(m.attachments.size());
    for (std::uint32_t begin = 0; begin < n;) {
        std::uint32_t end = begin;
        while (end < n && m.attachments[end].plane == m.attachments[begin].plane) {
            ++end;
        }
        plan_plane(m, covered, begin, end, probes, s.notes);
        begin = end;
    }
    assign_rounds(m, probes, s);
    s.probes = std::move(probes);
    bool sets = false;
    for (const auto& p : m.parts) {
        sets = sets || p.kind == PartKind::Uplinks;
    }
    if (sets && !m.exact_path) {
        s.notes.push_back(
            "which uplink and spine each pair across leaves takes is the subnet manager's "
            "choice: without its forwarding tables, a fault above a leaf is named as one of "
            "the leaf's uplinks, a spine of its group or a global cable between two groups");
    }
    return s;
}

Schedule plan_again(const Model& m, std::span<const Probe> probes) {
    Schedule s;
    std::vector<Probe> again(probes.begin(), probes.end());
    assign_rounds(m, again, s);
    s.probes = std::move(again);
    return s;
}

}  // namespace switchyard::preflight
