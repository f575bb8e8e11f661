// SPDX-License-Identifier: Apache-2.0
// What the audit reads of Slurm: squeue's job lines and sinfo's features (captured from the
// Slurm 22.05 test cluster with squeue_job_format), the AdminComment word job_submit.lua
// writes, `scontrol show topology` (22.05 tree; 24.11 block lines), and where slurmctld's units
// and the installed map's disagree.
#include "switchyard/slurm/client/slurm_jobs.hpp"

#include <string>
#include <vector>

#include "catch.hpp"

using namespace switchyard;
using namespace switchyard::slurm;

namespace {

// squeue --noheader --Format=<squeue_job_format(false)> on the 16-node test cluster: a pending
// job, a pipeline job with its record, a job with a matching-OR constraint.
constexpr std::string_view kSqueue =
    "11\tPENDING\tdebug\t\t0\t0:00\t2026-12-05T15:20:41\t2027-12-05T15:20:41\t(null)\tResources\t"
    "(null)\n"
    "9\tRUNNING\tdebug\tnode[001-002,006,011]\t2\t1:00\t2026-12-05T15:20:41\t2026-12-05T15:20:"
    "41\tswitchyard:stages=2,scope=leaf\tNone\t(null)\n"
    "10\tRUNNING\tdebug\tnode[003,005]\t0\t0:00\t2026-12-05T15:20:41\t2026-12-05T15:20:43\t("
    "null)\tNone\t[grp_g1|grp_g2]\n";

constexpr std::string_view kTree =
    "SwitchName=g1-leaf1 Level=0 LinkSpeed=1 Nodes=node[001-002,006,011]\n"
    "SwitchName=g1-leaf2 Level=0 LinkSpeed=1 Nodes=node[003,005,007,010]\n"
    "SwitchName=g2-leaf1 Level=0 LinkSpeed=1 Nodes=node[004,008,012,016]\n"
    "SwitchName=g2-leaf2 Level=0 LinkSpeed=1 Nodes=node[009,013-015]\n"
    "SwitchName=g1 Level=1 LinkSpeed=1 Nodes=node[001-003,005-007,010-011] "
    "Switches=g1-leaf[1-2]\n"
    "SwitchName=g2 Level=1 LinkSpeed=1 Nodes=node[004,008-009,012-016] Switches=g2-leaf[1-2]\n"
    "SwitchName=root Level=2 LinkSpeed=1 Nodes=node[001-016] Switches=g[1-2]\n";

std::vector<ShownUnit> units(std::string_view text) {
    auto u = parse_shown_topology(text, "test");
    REQUIRE(u);
    return *u;
}

std::set<std::string> all_nodes() {
    std::set<std::string> out;
    for (int i = 1; i <= 16; ++i) {
        char name[16];
        std::snprintf(name, sizeof name, "node%03d", i);
        out.insert(name);
    }
    return out;
}

}  // namespace

TEST_CASE("slurm jobs: squeue's lines, the record, times and constraints", "[jobs]") {
    std::vector<std::string> problems;
    auto jobs = parse_squeue_jobs(kSqueue, "squeue", false, problems);
    REQUIRE(jobs);
    CHECK(problems.empty());
    REQUIRE(jobs->size() == 3);
    const auto& pending = (*jobs)[0];
    CHECK(pending.state == "PENDING");
    CHECK(pending.nodes.empty());
    CHECK(pending.switches == 0);
    CHECK(pending.reason == "Resources");
    const auto& pipe = (*jobs)[1];
    CHECK(pipe.id == "9");
    CHECK(pipe.nodes == std::vector<std::string>{"node001", "node002", "node006", "node011"});
    CHECK(pipe.switches == 2);
    CHECK(pipe.switch_wait_s == 60);
    CHECK(pipe.stages == 2);
    CHECK(pipe.scope == "leaf");
    CHECK(pipe.features.empty());
    const auto& constrained = (*jobs)[2];
    CHECK(constrained.features == "[grp_g1|grp_g2]");
    REQUIRE(constrained.submit_time);
    REQUIRE(constrained.start_time);
    CHECK(*constrained.start_time - *constrained.submit_time == 2);
    CHECK(constrained.stages == 0);
}

TEST_CASE("slurm jobs: the format asks SegmentSize only when told, the constraint last", "[jobs]") {
    const auto plain = squeue_job_format(false);
    const auto with = squeue_job_format(true);
    CHECK(plain.find("SegmentSize") == std::string::npos);
    CHECK(with.find("SegmentSize:\t,Feature:") != std::string::npos);
    CHECK(plain.substr(plain.size() - 8) == "Feature:");
    std::vector<std::string> problems;
    auto jobs =
        parse_squeue_jobs("5\tRUNNING\tgpu\tn[1-4]\t0\t0:00\tN/A\tN/A\t(null)\tNone\t2\t(null)\n",
                          "squeue", true, problems);
    REQUIRE(jobs);
    REQUIRE(jobs->size() == 1);
    CHECK((*jobs)[0].segment == 2);
    CHECK_FALSE((*jobs)[0].submit_time);
}

TEST_CASE("slurm jobs: a line squeue would not print is left out, by line and field", "[jobs]") {
    std::vector<std::string> problems;
    const std::string text = std::string(kSqueue) +
                             "12\tRUNNING\tdebug\tnode[009-001]\t0\t0:00\tN/A\tN/A\t(null)\tNone\t"
                             "(null)\n"
                             "13\tRUNNING\tdebug\n"
                             "14\tRUNNING\tdebug\tn1\t0\t0:00\tyesterday\tN/A\t(null)\tNone\tx\n"
                             "15\tRUNNING\tdebug\tn1\t0\t0:00\tN/A\tN/A\tswitchyard:stages=0,"
                             "scope=leaf\tNone\tx\n"
                             "x; rm\tRUNNING\tdebug\tn1\t0\t0:00\tN/A\tN/A\t(null)\tNone\tx\n";
    auto jobs = parse_squeue_jobs(text, "squeue", false, problems);
    REQUIRE(jobs);
    CHECK(jobs->size() == 3);
    REQUIRE(problems.size() == 5);
    CHECK(problems[0].find("squeue:4: job 12: NodeList") != std::string::npos);
    CHECK(problems[1].find("squeue:5: expected 11 tab-separated fields, got 3") !=
          std::string::npos);
    CHECK(problems[2].find("SubmitTime 'yesterday' is not a time") != std::string::npos);
    CHECK(problems[3].find("stages='0': expected a positive count") != std::string::npos);
    CHECK(problems[4].find("JobID 'x; rm' is not a job id") != std::string::npos);
}

TEST_CASE("slurm jobs: the AdminComment word among the site's", "[jobs]") {
    SlurmJob j;
    REQUIRE(read_job_marker("site=1 switchyard:stages=4,scope=group,segment=2,nvl=4;x", j));
    CHECK(j.stages == 4);
    CHECK(j.scope == "group");
    CHECK(j.segment == 2);
    CHECK(j.nvl_group == 4);
    SlurmJob none;
    REQUIRE(read_job_marker("nothing of ours", none));
    CHECK(none.stages == 0);
    SlurmJob bad;
    const auto r = read_job_marker("switchyard:stages=2,scope=rack", bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().message().find("scope='rack': expected leaf, group or any") !=
          std::string::npos);
    SlurmJob later;
    REQUIRE(read_job_marker("switchyard:stages=2,future=1", later));  // a later release's key
    CHECK(later.stages == 2);
}

TEST_CASE("slurm jobs: the record's switch count, which squeue's own field overrides", "[jobs]") {
    SlurmJob j;
    REQUIRE(read_job_marker("switchyard:stages=4,scope=leaf,switches=4@60", j));
    CHECK(j.switches == 4);
    CHECK(j.switch_wait_s == 60);
    SlurmJob shown;
    shown.switches = 2;  // squeue's ReqSwitch, read first
    shown.switch_wait_s = 30;
    REQUIRE(read_job_marker("switchyard:stages=2,switches=4@60", shown));
    CHECK(shown.switches == 2);
    CHECK(shown.switch_wait_s == 30);
    SlurmJob no_wait;
    REQUIRE(read_job_marker("switchyard:stages=2,switches=3", no_wait));
    CHECK(no_wait.switches == 3);
    CHECK_FALSE(no_wait.switch_wait_s);  // the job gave none: Slurm's own, not known here
    for (const char* bad : {"switchyard:switches=0@60", "switchyard:switches=4@",
                            "switchyard:switches=x", "switchyard:switches=4@99999999999"}) {
        SlurmJob b;
        const auto r = read_job_marker(bad, b);
        REQUIRE_FALSE(r);
        CHECK(r.error().message().find("expected a switch count, then '@' and its wait") !=
              std::string::npos);
    }
}

TEST_CASE("slurm jobs: the record's preference, which squeue's own field overrides", "[jobs]") {
    SlurmJob j;
    REQUIRE(read_job_marker("switchyard:stages=2,scope=any,segment=4,prefer=[sy_g1|sy_g2]", j));
    CHECK(j.prefer == "[sy_g1|sy_g2]");
    CHECK(j.segment == 4);
    std::vector<SlurmJob> jobs{j};
    jobs[0].id = "7";
    read_squeue_prefer("7\t[sy_g3|sy_g4]\n", jobs);
    CHECK(jobs[0].prefer == "[sy_g3|sy_g4]");
    read_squeue_prefer("7\t(null)\n", jobs);  // none shown: what was read stays
    CHECK(jobs[0].prefer == "[sy_g3|sy_g4]");
    for (const std::string& bad : std::vector<std::string>{
             "switchyard:prefer=", "switchyard:prefer=(a)", "switchyard:prefer=a*2",
             "switchyard:prefer=" + std::string(kMaxMarkerPrefer + 1, 'g')}) {
        SlurmJob b;
        const auto r = read_job_marker(bad, b);
        REQUIRE_FALSE(r);
        CHECK(r.error().message().find("prefer=") != std::string::npos);
        CHECK(r.error().message().find("expected a preference of feature names") !=
              std::string::npos);
    }
}

TEST_CASE("slurm jobs: sacct's ended and running jobs, and the lines it would not print",
          "[jobs]") {
    std::vector<std::string> problems;
    const std::string text =
        "31\tCOMPLETED\tgpu\tnode[001-004]\t2026-12-05T10:00:00\t2026-12-05T10:00:05\t"
        "2026-12-05T10:01:05\tmaint\tswitchyard:stages=2,scope=leaf,switches=2@60\t[su1|su2]\n"
        "32\tCANCELLED by 0\tgpu\tNone assigned\t2026-12-05T10:00:00\tUnknown\t"
        "2026-12-05T10:00:09\t\t\t\n"
        "33\tRUNNING\tdebug\tnode005\t2026-12-05T10:02:00\t2026-12-05T10:02:00\tUnknown\t\t\t"
        "a b\tc\n"
        "34\tCOMPLETED\tgpu\tnode[004-002]\t2026-12-05T10:00:00\t2026-12-05T10:00:05\t"
        "2026-12-05T10:01:05\t\t\t\n"
        "35\tCOMPLETED\tgpu\tnode001\t2026-12-05T10:00:00\tlater\tUnknown\t\t\t\n"
        "36\tCOMPLETED\tgpu\tnode001\t2026-12-05T10:00:00\tUnknown\tUnknown\t\t\t\n"
        "37\tCOMPLETED\n";
    auto jobs = parse_sacct_jobs(text, "sacct", problems);
    REQUIRE(jobs);
    REQUIRE(jobs->size() == 2);
    const auto& a = (*jobs)[0];
    CHECK(a.id == "31");
    CHECK(a.state == "COMPLETED");
    CHECK(a.nodes.size() == 4);
    CHECK(a.stages == 2);
    CHECK(a.switches == 2);
    CHECK(a.features == "[su1|su2]");
    CHECK(a.reservation == "maint");
    REQUIRE(a.start_time);
    REQUIRE(a.end_time);
    CHECK(*a.end_time - *a.start_time == 60);
    const auto& b = (*jobs)[1];
    CHECK(b.state == "RUNNING");
    CHECK_FALSE(b.end_time);
    CHECK(b.features == "a b\tc");  // the constraint takes the rest of its line
    CHECK(b.reservation.empty());
    REQUIRE(problems.size() == 4);
    CHECK(problems[0].find("sacct:4: job 34: NodeList") != std::string::npos);
    CHECK(problems[1].find("sacct:5: job 35: Start 'later' is not a time") != std::string::npos);
    CHECK(problems[2].find("sacct:6: job 36: it holds nodes but has no Start time") !=
          std::string::npos);
    CHECK(problems[3].find("sacct:7: expected 10 tab-separated fields, got 2") !=
          std::string::npos);
}

TEST_CASE("slurm jobs: accounting's node events, and the lines it would not print", "[jobs]") {
    std::vector<std::string> problems;
    const auto events = parse_node_events(
        "|2026-12-06T01:47:14|Unknown|\n"
        "node[002-003]|2026-12-06T01:47:15|2026-12-06T01:47:17|DRAIN\n"
        "node003|2026-12-06T01:47:17|Unknown|DOWN\n"
        "node004|yesterday|Unknown|DOWN\n"
        "node[9-1]|2026-12-06T01:47:17|Unknown|DOWN\n"
        "node005|2026-12-06T01:47:17\n",
        "sacctmgr", problems);
    REQUIRE(events);
    REQUIRE(events->size() == 2);  // the cluster's own event is not a node's
    CHECK((*events)[0].nodes == std::vector<std::string>{"node002", "node003"});
    REQUIRE((*events)[0].end);
    CHECK(*(*events)[0].end - (*events)[0].start == 2);
    CHECK((*events)[0].state == "DRAIN");
    CHECK_FALSE((*events)[1].end);  // still down
    REQUIRE(problems.size() == 3);
    CHECK(
        problems[0].find("sacctmgr:4: TimeStart 'yesterday' or TimeEnd 'Unknown' is not a time") !=
        std::string::npos);
    CHECK(problems[1].find("sacctmgr:5: NodeName") != std::string::npos);
    CHECK(problems[2].find("sacctmgr:6: expected 4 fields separated by '|', got 2") !=
          std::string::npos);
}

TEST_CASE("slurm jobs: accounting's reservations", "[jobs]") {
    std::vector<std::string> problems;
    const auto r = parse_reservations(
        "node[001-002]|2026-12-06T01:00:00|2026-12-06T02:00:00|maint\n"
        "|2026-12-06T01:00:00|2026-12-06T02:00:00|licences\n"
        "node003|2026-12-06T01:00:00|Unknown|odd|name\n"
        "node004|2026-12-06T01:00:00|never|late\n"
        "node005\n",
        "sacctmgr", problems);
    REQUIRE(r);
    REQUIRE(r->size() == 2);  // one without nodes skipped
    CHECK((*r)[0].name == "maint");
    CHECK((*r)[0].nodes == std::vector<std::string>{"node001", "node002"});
    REQUIRE((*r)[0].end);
    CHECK(*(*r)[0].end - (*r)[0].start == 3600);
    CHECK((*r)[1].name == "odd|name");  // the name, last, takes the rest of its line
    CHECK_FALSE((*r)[1].end);
    REQUIRE(problems.size() == 2);
    CHECK(problems[0].find("sacctmgr:4: Start '2026-12-06T01:00:00' or End 'never' is not a "
                           "time; reservation left out") != std::string::npos);
    CHECK(problems[1].find("sacctmgr:5: expected 4 fields separated by '|', got 1; reservation") !=
          std::string::npos);
}

TEST_CASE("slurm jobs: each partition's nodes from sinfo", "[jobs]") {
    const auto parts = parse_partition_nodes("n1|debug\nn2|debug\nn1|gpu\nbad line\nn3|(null)\n");
    REQUIRE(parts.size() == 2);
    CHECK(parts.at("debug") == std::set<std::string>{"n1", "n2"});
    CHECK(parts.at("gpu") == std::set<std::string>{"n1"});
}

TEST_CASE("slurm jobs: durations and times as Slurm prints them", "[jobs]") {
    CHECK(parse_slurm_duration("1:00") == 60);
    CHECK(parse_slurm_duration("00:05:00") == 300);
    CHECK(parse_slurm_duration("2-00:00:01") == 172801);
    CHECK(parse_slurm_duration("5") == 300);  // bare minutes
    CHECK_FALSE(parse_slurm_duration("1:2:3:4"));
    CHECK_FALSE(parse_slurm_duration("soon"));
    CHECK(parse_slurm_time("1970-01-01T00:00:00") == 0);
    CHECK(parse_slurm_time("2000-03-01T00:00:00") == 951868800);
    CHECK_FALSE(parse_slurm_time("2026-13-01T00:00:00"));
    CHECK_FALSE(parse_slurm_time("Unknown"));
}

TEST_CASE("slurm jobs: sinfo's features per node", "[jobs]") {
    const auto f = parse_node_features(
        "node001|su_g1-leaf1,grp_g1\nnode001|su_g1-leaf1,grp_g1\nnode002|(null)\nbroken\n");
    REQUIRE(f.size() == 2);
    CHECK(f.at("node001") == std::set<std::string>{"grp_g1", "su_g1-leaf1"});
    CHECK(f.at("node002").empty());
}

TEST_CASE("slurm jobs: the nodes sinfo shows usable, once each", "[jobs]") {
    // sinfo --noheader --Node --format=%N|%t: a node once per partition; drained, down,
    // reserved, planned, allocated, mixed and not responding are not usable now.
    const auto usable = parse_usable_nodes(
        "node001|idle\nnode001|idle\nnode002|drain\nnode003|idle~\nnode004|resv\n"
        "node005|alloc\nnode006|mix\nnode007|idle*\nnode008|down\nnode009|planned\n"
        "node010|drng\n|idle\nbroken\nnode011 | idle \n");
    CHECK(usable == std::vector<std::string>{"node001", "node003", "node011"});
}

TEST_CASE("slurm jobs: a pending job's node count", "[jobs]") {
    std::vector<std::string> problems;
    auto jobs = parse_squeue_jobs(kSqueue, "squeue", false, problems);
    REQUIRE(jobs);
    read_squeue_node_counts("11\t8\n9\t4-6\n10\tmany\n", *jobs);
    CHECK((*jobs)[0].node_count == 8);
    CHECK((*jobs)[1].node_count == 4);  // a range: the least it asks
    CHECK((*jobs)[2].node_count == 0);  // not a number: not read
}

TEST_CASE("slurm topology: slurmctld's units read, aggregated blocks left out", "[topology]") {
    const auto tree = units(kTree);
    REQUIRE(tree.size() == 7);
    CHECK(tree[0].name == "g1-leaf1");
    CHECK(tree[0].nodes.size() == 4);
    CHECK(tree[4].children == std::set<std::string>{"g1-leaf1", "g1-leaf2"});
    const auto blocks = units(
        "BlockName=b1 BlockIndex=0 Nodes=n[1-4] BlockSize=4\n"
        "BlockName=b2 BlockIndex=1 Nodes=n[5-8] BlockSize=4\n"
        "AggregatedBlock=b[1-2] BlockIndex=0 Nodes=n[1-8] BlockSize=8\n");
    REQUIRE(blocks.size() == 2);
    CHECK(blocks[1].block);
    CHECK(leaf_unit_of(blocks).at("n6") == "b2");
    const auto bad = parse_shown_topology("SwitchName=s1 Nodes=n[3-1]\n", "scontrol");
    REQUIRE_FALSE(bad);
    CHECK(bad.error().to_string().find("scontrol:1") != std::string::npos);
}

TEST_CASE("slurm topology: a node moved, a node dropped, a unit missing or unknown", "[topology]") {
    const auto expected = units(kTree);
    CHECK(topology_disagreements(expected, units(kTree), all_nodes(), "").empty());
    // node005 moved to g1-leaf1, node009 left out of g2-leaf2, g2 gone, a stale switch.
    std::string moved(kTree);
    moved.replace(moved.find("node[001-002,006,011]"), 21, "node[001-002,005-006,011]");
    moved.replace(moved.find("node[003,005,007,010]"), 21, "node[003,007,010]");
    moved.replace(moved.find("node[009,013-015]"), 17, "node[013-015]");
    moved.erase(moved.find("SwitchName=g2 "),
                moved.find("SwitchName=root") - moved.find("SwitchName=g2 "));
    moved += "SwitchName=old-leaf Level=0 Nodes=node999\n";
    const auto d = topology_disagreements(expected, units(moved), all_nodes(), "fabric");
    const std::vector<std::string> want = {
        "switch g2: in the installed map, missing from slurmctld's topology fabric",
        "switch old-leaf: in slurmctld's topology fabric, not in the installed map",
        "node005: in g1-leaf2 of the installed map, in g1-leaf1 of slurmctld's topology fabric",
        "node009: in g2-leaf2 of the installed map, in no switch of slurmctld's topology fabric",
    };
    CHECK(d == want);
    // Nodes Slurm does not run are no disagreement.
    auto fewer = all_nodes();
    fewer.erase("node005");
    fewer.erase("node009");
    CHECK(topology_disagreements(expected, units(moved), fewer, "").size() == 2);
}
