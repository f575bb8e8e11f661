// SPDX-License-Identifier: Apache-2.0
// The preflight from facts alone: what the probes print, the pairs and rounds the map gives, and
// the part the locator blames for slow pairs.
#include <algorithm>
#include <map>
#include <set>

#include "catch.hpp"
#include "preflight_fabric.hpp"
#include "switchyard/preflight/inspector.hpp"
#include "switchyard/preflight/locate.hpp"
#include "switchyard/preflight/measure.hpp"
#include "switchyard/preflight/schedule.hpp"

using namespace switchyard;
using namespace switchyard::preflight;
using switchyard::testing::SimSpec;

namespace {

// ib_write_lat's client table as perftest 4.5 (Debian 12's perftest 4.5+0.17) prints it: its
// format strings, with one result row.
constexpr const char* kLat =
    R"(---------------------------------------------------------------------------------------
                    RDMA_Write Latency Test
 Dual-port       : OFF		Device         : mlx5_2
 Number of qps   : 1		Transport type : IB
 Connection type : RC		Using SRQ      : OFF
 TX depth        : 1
 Mtu             : 4096[B]
 Link type       : IB
 Max inline data : 220[B]
 rdma_cm QPs	 : OFF
 Data ex. method : Ethernet
---------------------------------------------------------------------------------------
 local address: LID 0x12 QPN 0x0107 PSN 0x5a3b2c RKey 0x1fff00 VAddr 0x007f2a4c600000
 remote address: LID 0x2c QPN 0x0109 PSN 0x7e1d2f RKey 0x1fff00 VAddr 0x007fa1c2800000
---------------------------------------------------------------------------------------
 #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]
 2       1000          1.01           4.37         1.06     	       1.07        	0.06   		1.21    		4.37
---------------------------------------------------------------------------------------
)";

constexpr const char* kBw =
    R"(---------------------------------------------------------------------------------------
                    RDMA_Write BW Test
 Dual-port       : OFF		Device         : mlx5_2
 Number of qps   : 1		Transport type : IB
---------------------------------------------------------------------------------------
 #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]
 65536      5000             392.14             391.87 		   0.747436
---------------------------------------------------------------------------------------
)";

// all_reduce_perf's table as nccl-tests 2.13 prints it (out of place, then in place).
constexpr const char* kAllReduce =
    R"(# nThread 1 nGpus 1 minBytes 536870912 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid  41233 on    node001 device  0 [0x1b] NVIDIA H100 80GB HBM3
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
   536870912     134217728     float     sum      -1   2921.4  183.77  344.57      0   2918.0  183.99  344.98      0
  1073741824     268435456     float     sum      -1   5788.1  185.51  347.83      0   5790.6  185.43  347.68      0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 346.27
)";

std::vector<std::string> all_hosts(const fabric::FabricMap& m) {
    std::vector<std::string> h;
    for (const auto& x : m.hosts) {
        h.push_back(x.name);
    }
    return h;
}

Model model_of(const fabric::FabricMap& map, std::vector<std::string> hosts = {}) {
    if (hosts.empty()) {
        hosts = all_hosts(map);
    }
    auto m = build_model(map, hosts);
    REQUIRE(m.has_value());
    return std::move(*m);
}

/// Verdicts for every probe: slow when `slow(path)` says so.
template <typename Slow>
std::vector<Verdict> measure(const Model& m, const Schedule& s, Slow slow) {
    Limits lim;
    lim.link_rate_gbps = 400;
    std::vector<Verdict> v;
    std::vector<std::uint32_t> path;
    for (std::uint32_t i = 0; i < s.probes.size(); ++i) {
        path_of(m, s.probes[i], path);
        const bool bad = slow(s.probes[i], path);
        v.push_back(judge(i, bad ? 11.2 : 2.0, bad ? 190 : 391, lim));
    }
    return v;
}

std::uint32_t part_named(const Model& m, std::string_view name) {
    for (std::uint32_t i = 0; i < m.parts.size(); ++i) {
        if (m.parts[i].name == name) {
            return i;
        }
    }
    FAIL("no part named " << name);
    return kNone;
}

}  // namespace

TEST_CASE("preflight: ib_write_lat's and ib_write_bw's result rows", "[preflight]") {
    auto lat = parse_ib_write_lat(kLat, "node007 mlx5_2 -> node003");
    REQUIRE(lat.has_value());
    CHECK(lat->bytes == 2);
    CHECK(lat->typical_us == Approx(1.06));
    CHECK(lat->avg_us == Approx(1.07));
    auto bw = parse_ib_write_bw(kBw, "x");
    REQUIRE(bw.has_value());
    CHECK(bw->bytes == 65536);
    CHECK(bw->avg_gbps == Approx(391.87));
    CHECK(bw->peak_gbps == Approx(392.14));

    // Without --report_gbits perftest prints MB/sec, 2^20 bytes each.
    std::string mb = kBw;
    mb.replace(mb.find("BW peak[Gb/sec]"), 15, "BW peak[MB/sec]");
    mb.replace(mb.find("BW average[Gb/sec]"), 18, "BW average[MB/sec]");
    mb.replace(mb.find("392.14"), 6, "46000.00");
    mb.replace(mb.find("391.87"), 6, "45000.00");
    auto mbr = parse_ib_write_bw(mb, "x");
    REQUIRE(mbr.has_value());
    CHECK(mbr->avg_gbps == Approx(45000 * 1048576.0 * 8 / 1e9));

    // Duration mode (-D): bytes, iterations, t_avg, tps.
    auto dur = parse_ib_write_lat(
        " #bytes        #iterations       t_avg[usec]    tps average\n 2   2210000   1.35   "
        "740000\n",
        "x");
    REQUIRE(dur.has_value());
    CHECK(dur->typical_us == Approx(1.35));
}

TEST_CASE("preflight: a probe that printed no table is named, with its last line", "[preflight]") {
    auto e = parse_ib_write_lat(
        " Couldn't connect to node003:18515\nUnable to open file descriptor for socket "
        "connection\n",
        "node007 mlx5_2 -> node003 (ib_write_lat)");
    REQUIRE_FALSE(e.has_value());
    CHECK_THAT(e.error().to_string(), Catch::Contains("node007 mlx5_2 -> node003") &&
                                          Catch::Contains("no result table") &&
                                          Catch::Contains("Unable to open file descriptor"));
    auto g = parse_ib_write_bw(std::string("\x01\x02garbage\xff\n"), "src");
    REQUIRE_FALSE(g.has_value());
    CHECK_THAT(g.error().to_string(), Catch::Contains("garbage"));
    // A row with a text where a number belongs.
    auto row = parse_ib_write_lat(
        " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]\n"
        " 2       1000          1.01           4.37         fast   1.07\n",
        "src");
    REQUIRE_FALSE(row.has_value());
    CHECK_THAT(row.error().to_string(), Catch::Contains("src:2") && Catch::Contains("t_typical"));
    // A negative or infinite reading is not a reading.
    auto neg = parse_ib_write_bw(
        " #bytes #iterations BW peak[Gb/sec] BW average[Gb/sec]\n 65536 "
        "5000 -1 inf\n",
        "src");
    CHECK_FALSE(neg.has_value());
    CHECK_FALSE(parse_ib_write_lat(std::string(kMaxProbeOutput + 1, 'x'), "big").has_value());
}

TEST_CASE("preflight: all_reduce_perf's rows, out of place", "[preflight]") {
    auto rows = parse_all_reduce_perf(kAllReduce, "node001 all_reduce_perf");
    REQUIRE(rows.has_value());
    REQUIRE(rows->size() == 2);
    CHECK((*rows)[0].bytes == 536870912);
    CHECK((*rows)[0].time_us == Approx(2921.4));
    CHECK((*rows)[1].busbw_gbs == Approx(347.83));
    // A header with busbw before time: rows too short for either column are skipped, not read
    // past their end (a fuzzer's find).
    auto odd = parse_all_reduce_perf("#  size  busbw  a  b  time\n  8  1.0\n", "ar");
    CHECK_FALSE(odd.has_value());
    auto none = parse_all_reduce_perf("# nThread 1\nNCCL error: unhandled system error\n", "ar");
    REQUIRE_FALSE(none.has_value());
    CHECK_THAT(none.error().to_string(), Catch::Contains("unhandled system error"));
}

TEST_CASE("preflight: the verdict on a pair names what was over its limit", "[preflight]") {
    Limits lim;
    lim.link_rate_gbps = 400;
    CHECK(judge(0, 2.1, 391, lim).outcome == Outcome::Ok);
    const auto v = judge(3, 11.2, 391, lim);
    CHECK(v.outcome == Outcome::Slow);
    CHECK(v.probe == 3);
    CHECK_THAT(v.detail, Catch::Contains("11.2 us (limit 5)"));
    const auto b = judge(0, 2.0, 190, lim);
    CHECK(b.outcome == Outcome::Slow);
    CHECK_THAT(b.detail, Catch::Contains("190 Gb/s (limit 360: 90% of 400)"));
    lim.link_rate_gbps = 0;  // rate unknown: bandwidth not judged
    CHECK(judge(0, 2.0, 10, lim).outcome == Outcome::Ok);
}

TEST_CASE("preflight: the model names the hosts the map lacks and refuses a host twice",
          "[preflight]") {
    const auto map = switchyard::testing::build_sim_map(SimSpec{1, 2, 4, 2, 2, 1, false, false});
    auto m = build_model(map, std::vector<std::string>{"n00000", "n00001", "ghost1", "n00005"});
    REQUIRE(m.has_value());
    CHECK(m->hosts.size() == 3);
    REQUIRE(m->notes.size() == 1);
    CHECK_THAT(m->notes[0],
               Catch::Contains("1 host(s) not in the fabric map") && Catch::Contains("ghost1"));
    CHECK(m->planes.size() == 2);
    CHECK(m->attachments.size() == 6);
    CHECK(m->rail_leaves);
    auto twice = build_model(map, std::vector<std::string>{"n00000", "n00000"});
    REQUIRE_FALSE(twice.has_value());
    CHECK_THAT(twice.error().to_string(), Catch::Contains("'n00000' is given twice"));
    ModelOptions only;
    only.rails = {"mlx5_1", "mlx5_9"};
    auto one = build_model(map, all_hosts(map), only);
    REQUIRE(one.has_value());
    CHECK(one->planes.size() == 1);
    CHECK_THAT(one->notes.back(), Catch::Contains("rail 'mlx5_9' is not in the fabric map"));
}

TEST_CASE(
    "preflight: N hosts on R rails make R*N pairs, two per host per rail, in rounds that "
    "share no link",
    "[preflight]") {
    for (const auto& spec :
         {SimSpec{1, 4, 8, 2, 4, 1, false, false}, SimSpec{4, 4, 6, 1, 4, 2, false, false},
          SimSpec{2, 3, 5, 4, 4, 1, true, false}, SimSpec{1, 4, 18, 2, 4, 1, false, true}}) {
        const auto map = switchyard::testing::build_sim_map(spec);
        const auto m = model_of(map);
        const auto s = plan_pairs(m);
        const auto n = switchyard::testing::sim_hosts(spec);
        const auto planes = m.planes.size();
        INFO("groups " << spec.groups << " SUs " << spec.sus_per_group << " hosts/SU "
                       << spec.hosts_per_su << " rails " << spec.rails);
        CHECK(s.probes.size() <= planes * n);
        // Every attachment in two pairs (a plane of one leaf: a ring).
        std::map<std::uint32_t, int> degree;
        for (const auto& p : s.probes) {
            ++degree[p.a];
            ++degree[p.b];
            CHECK(m.attachments[p.a].plane == m.attachments[p.b].plane);
            CHECK(p.a != p.b);
        }
        for (std::uint32_t a = 0; a < m.attachments.size(); ++a) {
            CHECK(degree[a] >= 2);
        }
        // No exclusive part (host port, a leaf's uplinks, a global set) twice in a round.
        std::set<std::pair<std::uint32_t, std::uint32_t>> used;
        std::vector<std::uint32_t> path;
        for (const auto& p : s.probes) {
            path_of(m, p, path);
            for (auto part : path) {
                const auto k = m.parts[part].kind;
                if (k == PartKind::Port || k == PartKind::NvlinkPort || k == PartKind::Uplinks ||
                    k == PartKind::Globals) {
                    CHECK(used.insert({p.round, part}).second);
                }
            }
        }
        // At most 2 x (largest SU) + (uplinks per leaf) rounds.
        CHECK(s.rounds <= 2 * spec.hosts_per_su + spec.spines);
        CHECK(s.rounds >= 2);
        // Every pair of groups meets on every plane.
        if (spec.groups > 1) {
            std::set<std::pair<std::uint32_t, std::uint32_t>> met;
            for (const auto& p : s.probes) {
                const auto ga = m.leaves[m.attachments[p.a].leaf].group;
                const auto gb = m.leaves[m.attachments[p.b].leaf].group;
                if (ga != gb) {
                    met.insert({std::min(ga, gb), std::max(ga, gb)});
                }
            }
            CHECK(met.size() == spec.groups * (spec.groups - 1) / 2);
        }
    }
}

TEST_CASE("preflight: a job spread thin over the leaves still has at most R*N pairs",
          "[preflight]") {
    // 128 nodes scattered over a 1,024-host Dragonfly+ with 4 rails: leaves with one, two or
    // three of the job's nodes, odd hosts whose last pairs meet partners they already have.
    const auto map = switchyard::testing::build_sim_map(SimSpec{4, 8, 32, 4, 16, 2, false, false});
    std::vector<std::string> hosts;
    for (std::uint32_t h = 0; h < 128; ++h) {
        hosts.push_back(map.hosts[(h * 7919U) % map.hosts.size()].name);
    }
    const auto m = model_of(map, hosts);
    const auto s = plan_pairs(m);
    CHECK(s.probes.size() <= 4 * 128);
    std::map<std::uint32_t, int> degree;
    for (const auto& p : s.probes) {
        ++degree[p.a];
        ++degree[p.b];
    }
    std::size_t short_of_two = 0;
    for (std::uint32_t a = 0; a < m.attachments.size(); ++a) {
        short_of_two += degree[a] < 2 ? 1U : 0U;
    }
    CHECK(short_of_two == 0);
}

TEST_CASE("preflight: a slow HCA is its node's fault, and drained", "[preflight]") {
    const auto map = switchyard::testing::build_sim_map(SimSpec{1, 4, 4, 4, 4, 1, false, false});
    const auto m = model_of(map);
    const auto s = plan_pairs(m);
    const auto bad = part_named(m, "n00007 mlx5_2");
    const auto loc = locate(m, s.probes, measure(m, s, [&](const Probe&, const auto& path) {
                                return std::find(path.begin(), path.end(), bad) != path.end();
                            }));
    REQUIRE(loc.faults.size() == 1);
    CHECK(loc.faults[0].part == bad);
    CHECK(loc.faults[0].slow.size() == 2);
    CHECK(loc.faults[0].alternatives.empty());
    CHECK(loc.faults[0].drain(m));
    CHECK(loc.slow == 2);
}

TEST_CASE("preflight: a slow leaf blames the leaf, not its hosts, and drains nobody",
          "[preflight]") {
    const auto map = switchyard::testing::build_sim_map(SimSpec{1, 4, 4, 2, 4, 1, false, false});
    const auto m = model_of(map);
    const auto s = plan_pairs(m);
    const auto leaf = part_named(m, "g0-su2-r1");
    const auto loc = locate(m, s.probes, measure(m, s, [&](const Probe&, const auto& path) {
                                return std::find(path.begin(), path.end(), leaf) != path.end();
                            }));
    REQUIRE(loc.faults.size() == 1);
    CHECK(loc.faults[0].part == leaf);
    CHECK_FALSE(loc.faults[0].drain(m));
}

TEST_CASE("preflight: slow pairs leaving one leaf blame its uplinks, not its hosts",
          "[preflight]") {
    const auto map = switchyard::testing::build_sim_map(SimSpec{1, 4, 4, 1, 4, 1, false, false});
    const auto m = model_of(map);
    const auto s = plan_pairs(m);
    // Every pair from su0 to another leaf is slow; the pairs inside su0 are not.
    const auto la = part_named(m, "g0-su0-r0");
    int slow = 0;
    const auto loc = locate(m, s.probes, measure(m, s, [&](const Probe& p, const auto&) {
                                const auto a = m.leaves[m.attachments[p.a].leaf].part;
                                const auto b = m.leaves[m.attachments[p.b].leaf].part;
                                const bool hit = a != b && (a == la || b == la);
                                slow += hit ? 1 : 0;
                                return hit;
                            }));
    REQUIRE(slow >= 2);
    REQUIRE(loc.faults.size() == 1);
    const auto& f = loc.faults[0];
    CHECK(m.parts[f.part].name == "g0-su0-r0 uplinks");
    CHECK(f.slow.size() == static_cast<std::size_t>(slow));
    // The spines of the group are as plausible on these few pairs: named, not blamed.
    for (auto alt : f.alternatives) {
        CHECK(m.parts[alt].kind == PartKind::Spines);
    }
    CHECK_FALSE(f.drain(m));
}

TEST_CASE("preflight: a probe that failed is nobody's fault, one slow moment is unexplained",
          "[preflight]") {
    const auto map = switchyard::testing::build_sim_map(SimSpec{1, 2, 4, 1, 2, 1, false, false});
    const auto m = model_of(map);
    const auto s = plan_pairs(m);
    auto v = measure(m, s, [](const Probe&, const auto&) { return false; });
    v[0].outcome = Outcome::ProbeFailed;
    v[0].detail = "timed out after 10 s";
    auto loc = locate(m, s.probes, v);
    CHECK(loc.faults.empty());
    CHECK(loc.probe_failures == std::vector<std::uint32_t>{0});
    // A pair slow once and fine the second time is fine.
    auto w = measure(m, s, [](const Probe&, const auto&) { return false; });
    w[1] = judge(1, 9.0, 391, Limits{});
    w.push_back(judge(1, 2.0, 391, Limits{}));
    loc = locate(m, s.probes, w);
    CHECK(loc.faults.empty());
    CHECK(loc.slow == 0);
}

TEST_CASE("preflight: NVLink pairs stay inside a domain and blame a tray or the domain",
          "[preflight]") {
    const auto map = switchyard::testing::build_sim_map(SimSpec{1, 2, 6, 1, 2, 1, false, true});
    const auto m = model_of(map);
    const auto s = plan_pairs(m);
    std::size_t nvlink = 0;
    for (const auto& p : s.probes) {
        const auto& a = m.attachments[p.a];
        if (m.planes[a.plane].nvlink) {
            ++nvlink;
            CHECK(a.leaf == m.attachments[p.b].leaf);
        }
    }
    CHECK(nvlink == 12);  // a ring of 6 in each of the two domains
    const auto tray = part_named(m, "n00004 NVLink");
    auto loc = locate(m, s.probes, measure(m, s, [&](const Probe&, const auto& path) {
                          return std::find(path.begin(), path.end(), tray) != path.end();
                      }));
    REQUIRE(loc.faults.size() == 1);
    CHECK(loc.faults[0].part == tray);
    CHECK(loc.faults[0].drain(m));
    const auto domain = part_named(m, "nvl_rack1");
    loc = locate(m, s.probes, measure(m, s, [&](const Probe&, const auto& path) {
                     return std::find(path.begin(), path.end(), domain) != path.end();
                 }));
    REQUIRE(loc.faults.size() == 1);
    CHECK(loc.faults[0].part == domain);
    CHECK_FALSE(loc.faults[0].drain(m));
}

TEST_CASE("preflight: Inspector's records, and the slow rank and leaf among them", "[preflight]") {
    // Two records in Inspector's layout (ext-profiler/inspector/README.md), one after another.
    const std::string text = R"({
  "header": {"id": "0x7f8c496ae9f661", "rank": 2, "n_ranks": 8, "nnodes": 1},
  "metadata": {"inspector_output_format_version": "v4.0", "git_rev": "", "rec_mechanism":
    "profiler_plugin", "dump_timestamp_us": 1748030377748202, "hostname": "n00001", "pid": 1639453},
  "coll_perf": {"coll": "AllReduce", "coll_sn": 1407, "coll_msg_size_bytes": 17179869184,
    "coll_exec_time_us": 61974, "coll_algobw_gbs": 277.210914, "coll_busbw_gbs": 485.119099}
}
{"header": {"id": "0x7f8c496ae9f661", "rank": 3, "n_ranks": 8, "nnodes": 1},
 "metadata": {"hostname": "n00001", "pid": 1639454},
 "coll_perf": {"coll": "AllReduce", "coll_sn": 1407, "coll_msg_size_bytes": 17179869184,
   "coll_exec_time_us": 61980, "coll_timing_source": "kernel_gpu", "coll_algobw_gbs": 277.1,
   "coll_busbw_gbs": 485.0}}
)";
    auto r = parse_inspector(text, "n00001-1639453.log");
    REQUIRE(r.has_value());
    REQUIRE(r->records.size() == 2);
    CHECK(r->records[0].host == "n00001");
    CHECK(r->records[0].rank == 2);
    CHECK(r->records[0].bytes == 17179869184ULL);
    CHECK(r->records[1].busbw_gbs == Approx(485.0));
    // Other kinds of object (dump statistics, point-to-point) are read past.
    auto other = parse_inspector(R"({"dump_stats": {"dropped": 0}} {"header": {}, "p2p_perf": {}})",
                                 "o.log");
    REQUIRE(other.has_value());
    CHECK(other->records.empty());
    CHECK(other->other == 2);

    auto bad = parse_inspector("{\"coll_perf\": {}}\n{\"header\": ", "f.log");
    REQUIRE_FALSE(bad.has_value());
    CHECK_THAT(bad.error().to_string(), Catch::Contains("f.log:1") && Catch::Contains("header"));
    auto cut = parse_inspector("\n\n{\"a\": \"}", "g.log");
    REQUIRE_FALSE(cut.has_value());
    CHECK_THAT(cut.error().to_string(),
               Catch::Contains("g.log:3") && Catch::Contains("does not end"));
    CHECK_FALSE(parse_inspector("[1, 2]", "h.log").has_value());

    // 16 hosts, one rank each: n00003 slow alone, and n00012..n00015 (all of leaf su3) slow.
    std::vector<CollRecord> recs;
    for (std::uint32_t h = 0; h < 16; ++h) {
        for (int sn = 0; sn < 5; ++sn) {
            CollRecord c;
            c.host = switchyard::testing::sim_host_name(h);
            c.rank = h;
            c.ranks = 16;
            c.coll = "AllReduce";
            c.bytes = 1 << 30;
            c.busbw_gbs = 480.0 + sn - (h == 3 ? 200.0 : 0.0) - (h >= 12 ? 150.0 : 0.0) + (h % 2);
            recs.push_back(c);
        }
    }
    const auto rep = slow_ranks(recs);
    CHECK(rep.ranks == 16);
    REQUIRE(rep.slow.size() == 5);
    CHECK(rep.slow[0].host == "n00003");
    std::vector<std::string> slow_hosts;
    for (const auto& s : rep.slow) {
        slow_hosts.push_back(s.host);
    }
    const auto map = switchyard::testing::build_sim_map(SimSpec{1, 4, 4, 1, 4, 1, false, false});
    const auto m = model_of(map);
    const auto placed = place_slow_hosts(m, slow_hosts);
    REQUIRE(placed.size() == 2);
    CHECK(placed[0].part == part_named(m, "g0-su3-r0"));
    CHECK(placed[0].hosts.size() == 4);
    CHECK(placed[1].host == "n00003");
}
