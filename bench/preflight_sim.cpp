// SPDX-License-Identifier: Apache-2.0
// The preflight's fault simulator: on fabrics built in memory (a 1,024-host Dragonfly+, a
// 2,048-host three-tier fat tree with rails, a RoCE Clos, four NVL72 racks), inject faults of
// every kind at random, measure every scheduled pair as the fabric would answer (latency
// 2 us +-10 %, bandwidth 390 Gb/s +-2 % of a 400 Gb/s link; a part at fault triples the latency
// and halves the bandwidth of every pair through it; 1 % of all measurements slow at random),
// measure the slow pairs again, locate, and count how often the blamed part is the injected
// one. Routing is destination-modulo-k; the locator sees it only in the "forwarding tables"
// mode. Then the speed figures. Printed, never asserted: bench/preflight-sim.sh runs it.
//
//   preflight_sim [--trials N] [--seed S] [--quick] [--show-misses N]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "preflight_fabric.hpp"
#include "switchyard/preflight/locate.hpp"
#include "switchyard/preflight/schedule.hpp"

using namespace switchyard;
using namespace switchyard::preflight;
using switchyard::testing::SimSpec;

namespace {

struct Fixture {
    std::string name;
    SimSpec spec;
};

/// The exact parts of a simulated fabric, added to the model, and the routing over them.
struct Exact {
    SimSpec s;
    std::uint32_t hosts = 0;
    std::vector<std::uint32_t> port;      // host * rails + rail -> part
    std::vector<std::uint32_t> nvport;    // host -> part
    std::vector<std::uint32_t> leaf;      // leaf switch -> part
    std::vector<std::uint32_t> uplink;    // leaf switch * spines + k -> part
    std::vector<std::uint32_t> spine;     // (group * rails + rail) * spines + k -> part
    std::vector<std::uint32_t> global;    // ((ga * groups + gb) * rails + rail) * C + c -> part
    std::vector<std::uint32_t> rail;      // rail -> part
    std::vector<std::uint32_t> domain;    // su -> part
    std::vector<std::uint32_t> coarse;    // exact part -> the map model's part
    std::vector<std::uint32_t> att_rail;  // attachment -> rail (kNone: NVLink)
};

std::uint32_t host_of(const Model& m, std::uint32_t att) {
    return static_cast<std::uint32_t>(
        std::strtoul(m.hosts[m.attachments[att].host].c_str() + 1, nullptr, 10));
}

Exact make_exact(Model& m, const SimSpec& s) {
    Exact e;
    e.s = s;
    e.hosts = switchyard::testing::sim_hosts(s);
    const std::uint32_t leaves = s.groups * s.sus_per_group * s.rails;
    e.port.assign(static_cast<std::size_t>(e.hosts) * s.rails, kNone);
    e.nvport.assign(e.hosts, kNone);
    e.leaf.assign(leaves, kNone);
    e.domain.assign(s.groups * s.sus_per_group, kNone);
    e.rail.assign(s.rails, kNone);
    e.att_rail.assign(m.attachments.size(), kNone);
    for (std::uint32_t i = 0; i < m.attachments.size(); ++i) {
        const auto& a = m.attachments[i];
        const auto h = host_of(m, i);
        const auto& plane = m.planes[a.plane];
        if (plane.nvlink) {
            e.nvport[h] = a.port;
            e.domain[h / s.hosts_per_su] = m.leaves[a.leaf].part;
            continue;
        }
        const auto r =
            static_cast<std::uint32_t>(std::strtoul(plane.name.c_str() + 5, nullptr, 10));
        e.att_rail[i] = r;
        e.port[h * s.rails + r] = a.port;
        e.leaf[switchyard::testing::sim_leaf(s, h, r)] = m.leaves[a.leaf].part;
        e.rail[r] = plane.rail_part;
    }
    const auto base = m.parts.size();
    e.coarse.resize(base);
    for (std::uint32_t i = 0; i < base; ++i) {
        e.coarse[i] = i;
    }
    auto coarse_leaf_uplinks = [&](std::uint32_t leaf_part) {
        for (const auto& l : m.leaves) {
            if (l.part == leaf_part) {
                return l.uplinks;
            }
        }
        return kNone;
    };
    for (std::uint32_t l = 0; l < leaves; ++l) {
        const auto up = coarse_leaf_uplinks(e.leaf[l]);
        for (std::uint32_t k = 0; k < s.spines; ++k) {
            e.uplink.push_back(m.add_part(PartKind::Uplink,
                                          "uplink " + std::to_string(l) + "/" + std::to_string(k)));
            e.coarse.push_back(up);
        }
    }
    for (std::uint32_t g = 0; g < s.groups; ++g) {
        for (std::uint32_t r = 0; r < s.rails; ++r) {
            for (std::uint32_t k = 0; k < s.spines; ++k) {
                e.spine.push_back(m.add_part(PartKind::Spine, "spine"));
                // The map's view: the spines above this group's leaves of this rail.
                std::uint32_t coarse = kNone;
                for (const auto& l : m.leaves) {
                    if (l.group == g && l.uplinks != kNone &&
                        e.leaf[(g * s.sus_per_group) * s.rails + r] == l.part) {
                        coarse = l.spines;
                    }
                }
                e.coarse.push_back(coarse);
            }
        }
    }
    const std::uint32_t c = s.globals_per_pair;
    e.global.assign(static_cast<std::size_t>(s.groups) * s.groups * s.rails * c, kNone);
    for (std::uint32_t ga = 0; ga < s.groups; ++ga) {
        for (std::uint32_t gb = ga + 1; gb < s.groups; ++gb) {
            for (std::uint32_t r = 0; r < s.rails; ++r) {
                // The map's view: the global set on the path of a pair between the groups.
                std::uint32_t coarse = kNone;
                {
                    std::vector<std::uint32_t> path;
                    std::uint32_t xa = kNone;
                    std::uint32_t xb = kNone;
                    for (std::uint32_t i = 0; i < m.attachments.size(); ++i) {
                        const auto h = host_of(m, i);
                        if (e.att_rail[i] != r) {
                            continue;
                        }
                        if (switchyard::testing::sim_group(s, h) == ga && xa == kNone) {
                            xa = i;
                        }
                        if (switchyard::testing::sim_group(s, h) == gb && xb == kNone) {
                            xb = i;
                        }
                    }
                    if (xa != kNone && xb != kNone) {
                        path_of(m, Probe{xa, xb, 0}, path);
                        for (auto part : path) {
                            if (m.parts[part].kind == PartKind::Globals) {
                                coarse = part;
                            }
                        }
                    }
                }
                for (std::uint32_t k = 0; k < c; ++k) {
                    const auto id = m.add_part(PartKind::Global, "global");
                    e.global[((ga * s.groups + gb) * s.rails + r) * c + k] = id;
                    e.global[((gb * s.groups + ga) * s.rails + r) * c + k] = id;
                    e.coarse.push_back(coarse);
                }
            }
        }
    }
    return e;
}

/// The physical path (both directions) of a probe: destination-modulo-k routing.
void exact_path(const Exact& e, const Model& m, const Probe& p, std::vector<std::uint32_t>& out) {
    const auto& s = e.s;
    const auto a = host_of(m, p.a);
    const auto b = host_of(m, p.b);
    const auto r = e.att_rail[p.a];
    if (r == kNone) {
        out.push_back(e.nvport[a]);
        out.push_back(e.nvport[b]);
        out.push_back(e.domain[a / s.hosts_per_su]);
        return;
    }
    out.push_back(e.port[a * s.rails + r]);
    out.push_back(e.port[b * s.rails + r]);
    const auto la = switchyard::testing::sim_leaf(s, a, r);
    const auto lb = switchyard::testing::sim_leaf(s, b, r);
    out.push_back(e.leaf[la]);
    if (la != lb) {
        out.push_back(e.leaf[lb]);
        const auto ga = switchyard::testing::sim_group(s, a);
        const auto gb = switchyard::testing::sim_group(s, b);
        auto one_way = [&](std::uint32_t from_leaf, std::uint32_t from_g, std::uint32_t to_leaf,
                           std::uint32_t to_g, std::uint32_t dest) {
            if (from_g == to_g) {
                const auto k = dest % s.spines;
                out.push_back(e.uplink[from_leaf * s.spines + k]);
                out.push_back(e.spine[(from_g * s.rails + r) * s.spines + k]);
                out.push_back(e.uplink[to_leaf * s.spines + k]);
                return;
            }
            const auto c = dest % s.globals_per_pair;
            const auto k = (from_g + to_g + c) % s.spines;
            out.push_back(e.uplink[from_leaf * s.spines + k]);
            out.push_back(e.spine[(from_g * s.rails + r) * s.spines + k]);
            out.push_back(
                e.global[((from_g * s.groups + to_g) * s.rails + r) * s.globals_per_pair + c]);
            out.push_back(e.spine[(to_g * s.rails + r) * s.spines + k]);
            out.push_back(e.uplink[to_leaf * s.spines + k]);
        };
        one_way(la, ga, lb, gb, b);
        one_way(lb, gb, la, ga, a);
    }
    out.push_back(e.rail[r]);
}

struct Tally {
    std::uint32_t trials = 0, right = 0, located = 0, missed = 0, blamed = 0, blamed_right = 0;
    std::uint32_t double_trials = 0, double_found = 0;
    double rounds = 0, again_rounds = 0;
};

/// A random fault of a random kind that the fabric has.
std::uint32_t random_fault(const Exact& e, std::mt19937_64& rng) {
    std::vector<const std::vector<std::uint32_t>*> kinds;
    for (const auto* v :
         {&e.port, &e.nvport, &e.leaf, &e.uplink, &e.spine, &e.global, &e.rail, &e.domain}) {
        bool any = false;
        for (auto x : *v) {
            any = any || x != kNone;
        }
        if (any) {
            kinds.push_back(v);
        }
    }
    // A rail only where there are several (one rail is the whole fabric).
    if (e.s.rails < 2) {
        std::erase(kinds, &e.rail);
    }
    while (true) {
        const auto& v = *kinds[rng() % kinds.size()];
        const auto x = v[rng() % v.size()];
        if (x != kNone) {
            return x;
        }
    }
}

void measure(const Model& m,
             const Exact& e,
             std::span<const Probe> probes,
             const std::vector<char>& faulty,
             std::mt19937_64& rng,
             const Limits& lim,
             std::vector<Verdict>& out,
             std::span<const std::uint32_t> index) {
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<std::uint32_t> path;
    for (std::size_t i = 0; i < probes.size(); ++i) {
        path.clear();
        exact_path(e, m, probes[i], path);
        bool bad = false;
        for (auto part : path) {
            bad = bad || faulty[part] != 0;
        }
        double lat = 2.0 * (0.9 + 0.2 * u(rng));
        double bw = 390 * (0.98 + 0.04 * u(rng));
        if (bad) {
            lat *= 3;
            bw *= 0.5;
        }
        if (u(rng) < 0.01) {
            lat *= 3;
            bw *= 0.5;
        }
        out.push_back(
            judge(index.empty() ? static_cast<std::uint32_t>(i) : index[i], lat, bw, lim));
    }
}

int g_show_misses = 0;

void show_miss(const Model& m, std::uint32_t truth, const Location& loc) {
    if (g_show_misses <= 0) {
        return;
    }
    --g_show_misses;
    std::printf("  miss: injected %s (%s); blamed:", m.parts[truth].name.c_str(),
                std::string(to_string(m.parts[truth].kind)).c_str());
    for (const auto& b : loc.faults) {
        std::printf(" [%s (%s), %zu slow, %u through, alternatives %zu]",
                    m.parts[b.part].name.c_str(),
                    std::string(to_string(m.parts[b.part].kind)).c_str(), b.slow.size(), b.through,
                    b.alternatives.size());
    }
    std::printf(" unexplained %zu\n", loc.unexplained.size());
}

void run_fixture(const Fixture& f, std::uint32_t trials, std::uint64_t seed) {
    const auto map = switchyard::testing::build_sim_map(f.spec);
    std::vector<std::string> hosts;
    for (const auto& h : map.hosts) {
        hosts.push_back(h.name);
    }
    auto built = build_model(map, hosts);
    if (!built) {
        std::printf("%s: %s\n", f.name.c_str(), built.error().to_string().c_str());
        return;
    }
    Model m = std::move(*built);
    const Exact e = make_exact(m, f.spec);
    Limits lim;
    lim.link_rate_gbps = 400;
    for (int mode = 0; mode < 2; ++mode) {
        if (mode == 1) {
            m.exact_path = [&e](const Model& mm, const Probe& p, std::vector<std::uint32_t>& out) {
                exact_path(e, mm, p, out);
            };
        }
        // With the forwarding tables the pairs are chosen to cross every cable, and the
        // locator sees each pair's cables.
        const auto sched = plan_pairs(m);
        auto truth_of = [&](std::uint32_t exact) { return mode == 1 ? exact : e.coarse[exact]; };
        std::mt19937_64 rng(seed);
        Tally t;
        std::vector<char> faulty(m.parts.size(), 0);
        std::vector<Verdict> verdicts;
        for (std::uint32_t trial = 0; trial < trials * 2; ++trial) {
            const bool twice = trial >= trials;
            std::vector<std::uint32_t> injected{random_fault(e, rng)};
            if (twice) {
                std::uint32_t other = random_fault(e, rng);
                while (other == injected[0]) {
                    other = random_fault(e, rng);
                }
                injected.push_back(other);
            }
            std::fill(faulty.begin(), faulty.end(), 0);
            for (auto x : injected) {
                faulty[x] = 1;
            }
            verdicts.clear();
            measure(m, e, sched.probes, faulty, rng, lim, verdicts, {});
            // The slow pairs again.
            std::vector<Probe> again;
            std::vector<std::uint32_t> index;
            for (const auto& v : verdicts) {
                if (v.outcome == Outcome::Slow) {
                    again.push_back(sched.probes[v.probe]);
                    index.push_back(v.probe);
                }
            }
            const auto re = plan_again(m, again);
            // plan_again keeps the order only by round: measure its probes by their indices.
            std::vector<std::uint32_t> re_index;
            for (const auto& p : re.probes) {
                for (std::size_t k = 0; k < again.size(); ++k) {
                    if (again[k].a == p.a && again[k].b == p.b) {
                        re_index.push_back(index[k]);
                        break;
                    }
                }
            }
            measure(m, e, re.probes, faulty, rng, lim, verdicts, re_index);
            t.rounds += sched.rounds;
            t.again_rounds += re.rounds;
            const auto loc = locate(m, sched.probes, verdicts);
            if (!twice) {
                ++t.trials;
                const auto truth = truth_of(injected[0]);
                t.blamed += static_cast<std::uint32_t>(loc.faults.size());
                for (const auto& b : loc.faults) {
                    t.blamed_right += b.part == truth ? 1 : 0;
                }
                if (loc.faults.size() != 1 || loc.faults[0].part != truth) {
                    show_miss(m, truth, loc);
                }
                if (loc.faults.empty()) {
                    ++t.missed;
                } else if (loc.faults.size() == 1) {
                    const auto& b = loc.faults[0];
                    t.right += b.part == truth ? 1 : 0;
                    bool in = b.part == truth;
                    for (auto a : b.alternatives) {
                        in = in || a == truth;
                    }
                    t.located += in ? 1 : 0;
                }
            } else {
                ++t.double_trials;
                for (auto x : injected) {
                    const auto truth = truth_of(x);
                    bool found = false;
                    for (const auto& b : loc.faults) {
                        found = found || b.part == truth;
                        for (auto a : b.alternatives) {
                            found = found || a == truth;
                        }
                    }
                    t.double_found += found ? 1 : 0;
                }
            }
        }
        std::printf(
            "%-34s %-20s %6u pairs %3u rounds (+%4.1f again) | single: right %5.1f %%, "
            "within alternatives %5.1f %%, missed %4.1f %%, precision %.3f | double: "
            "found %5.1f %%\n",
            f.name.c_str(), mode == 0 ? "map only" : "forwarding tables",
            static_cast<unsigned>(sched.probes.size()), sched.rounds,
            t.again_rounds / (2.0 * trials), 100.0 * t.right / t.trials,
            100.0 * t.located / t.trials, 100.0 * t.missed / t.trials,
            t.blamed == 0 ? 1.0 : static_cast<double>(t.blamed_right) / t.blamed,
            100.0 * t.double_found / (2.0 * t.double_trials));
    }
}

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void speed() {
    // The schedule for a 4,096-node job on 8 rails.
    {
        SimSpec s{4, 32, 32, 8, 16, 4, false, false};
        const auto map = switchyard::testing::build_sim_map(s);
        std::vector<std::string> hosts;
        for (const auto& h : map.hosts) {
            hosts.push_back(h.name);
        }
        double best = 1e9;
        std::uint32_t rounds = 0;
        std::size_t pairs = 0;
        for (int i = 0; i < 5; ++i) {
            const auto t0 = std::chrono::steady_clock::now();
            auto m = build_model(map, hosts);
            const auto s2 = plan_pairs(*m);
            best = std::min(best, ms_since(t0));
            rounds = s2.rounds;
            pairs = s2.probes.size();
        }
        std::printf(
            "schedule, 4096-node job, 8 rails: %.1f ms (best of 5; model and pairs), %zu "
            "pairs, %u rounds\n",
            best, pairs, rounds);
    }
    // Locating 100k pair results on a 100k-host map.
    {
        SimSpec s{4, 200, 125, 1, 16, 4, false, false};
        const auto map = switchyard::testing::build_sim_map(s);
        std::vector<std::string> hosts;
        for (const auto& h : map.hosts) {
            hosts.push_back(h.name);
        }
        auto m = build_model(map, hosts);
        const auto sched = plan_pairs(*m);
        std::vector<Verdict> verdicts;
        Limits lim;
        lim.link_rate_gbps = 400;
        std::mt19937_64 rng(7);
        for (std::uint32_t i = 0; i < sched.probes.size(); ++i) {
            const bool slow =
                m->attachments[sched.probes[i].a].host % 5000 == 17 || rng() % 1000 == 0;
            verdicts.push_back(judge(i, slow ? 7.0 : 2.0, slow ? 190 : 390, lim));
        }
        double best = 1e9;
        std::size_t faults = 0;
        for (int i = 0; i < 5; ++i) {
            // The model from the map, then the location: what a run does after its rounds.
            const auto t0 = std::chrono::steady_clock::now();
            auto again = build_model(map, hosts);
            const auto loc = locate(*again, sched.probes, verdicts);
            best = std::min(best, ms_since(t0));
            faults = loc.faults.size();
        }
        std::printf(
            "locate, %zu pair results on a %zu-host map: %.1f ms (best of 5, the model from the "
            "map included), %zu parts blamed\n",
            verdicts.size(), map.hosts.size(), best, faults);
    }
    // Rounds for 16, 128 and 1,024 nodes of a Dragonfly+ with 4 rails, and the wall time with a
    // 1 s probe (the slow pairs' second round not counted: it is as long as the faults make it).
    for (std::uint32_t n : {16u, 128u, 1024u}) {
        SimSpec s{4, 8, 32, 4, 16, 2, false, false};
        const auto map = switchyard::testing::build_sim_map(s);
        std::vector<std::string> hosts;
        for (std::uint32_t h = 0; h < n; ++h) {
            hosts.push_back(map.hosts[(h * 7919u) % map.hosts.size()].name);
        }
        const auto t0 = std::chrono::steady_clock::now();
        auto m = build_model(map, hosts);
        const auto sched = plan_pairs(*m);
        const double plan_ms = ms_since(t0);
        std::printf(
            "preflight of %4u nodes (4 rails, spread over a 1024-host Dragonfly+): %5zu pairs, "
            "%3u rounds -> %u s of 1 s probes + %.1f ms to plan\n",
            n, sched.probes.size(), sched.rounds, sched.rounds, plan_ms);
    }
}

}  // namespace

int main(int argc, char** argv) {
    std::uint32_t trials = 300;
    std::uint64_t seed = 1;
    bool quick = false;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a == "--trials" && i + 1 < argc) {
            trials = static_cast<std::uint32_t>(std::strtoul(argv[++i], nullptr, 10));
        } else if (a == "--seed" && i + 1 < argc) {
            seed = std::strtoull(argv[++i], nullptr, 10);
        } else if (a == "--show-misses" && i + 1 < argc) {
            g_show_misses = std::atoi(argv[++i]);
        } else if (a == "--quick") {
            quick = true;
        } else {
            std::fprintf(
                stderr,
                "usage: preflight_sim [--trials N] [--seed S] [--quick] [--show-misses N]\n");
            return 2;
        }
    }
    if (quick) {
        trials = 20;
    }
    const std::vector<Fixture> fixtures = {
        {"Dragonfly+ 1024 hosts, 4 groups", SimSpec{4, 8, 32, 1, 8, 2, false, false}},
        {"3-tier fat tree 2048 hosts, 4 rails", SimSpec{4, 16, 32, 4, 8, 4, true, false}},
        {"RoCE Clos 512 hosts", SimSpec{1, 16, 32, 1, 8, 1, false, false}},
        {"NVL72 4 x 18, 4 rails", SimSpec{1, 4, 18, 4, 4, 1, false, true}},
    };
    for (const auto& f : fixtures) {
        run_fixture(f, trials, seed);
    }
    if (!quick) {
        speed();
    }
    return 0;
}
