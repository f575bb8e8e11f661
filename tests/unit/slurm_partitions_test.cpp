// SPDX-License-Identifier: Apache-2.0
// Partitions and their topologies from scontrol's text (captured from a real Slurm 26.05.5
// cluster running discover's topology.yaml) and from --partition-topology.
#include "switchyard/slurm/files/slurm_partitions.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "catch.hpp"
#include "switchyard/slurm/files/slurm_nodes.hpp"

using namespace switchyard;
using namespace switchyard::fabric;
using namespace switchyard::slurm;

namespace {
std::string data(const std::string& name) {
    std::ifstream in(std::filesystem::path(SWITCHYARD_SOURCE_DIR) / "tests/data/slurm" / name);
    REQUIRE(in);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}
}  // namespace

TEST_CASE("slurm partitions: 26.05's topoconf names each topology and its kind", "[partitions]") {
    const auto c = parse_topoconf(data("show-topoconf-26.05.txt"), "topoconf");
    REQUIRE(c);
    REQUIRE(c->topologies.size() == 2);
    CHECK(c->topologies[0] == std::pair<std::string, std::string>{"fabric", "tree"});
    CHECK(c->topologies[1] == std::pair<std::string, std::string>{"blocks", "block"});
    CHECK(c->cluster_default == "fabric");
    CHECK(c->kind_of("blocks") == "block");
    CHECK(c->kind_of("nope").empty());
}

TEST_CASE("slurm partitions: 26.05's partition lines with Topology= and Default=", "[partitions]") {
    const auto p = parse_partitions(data("show-partition-26.05.txt"), "partitions");
    REQUIRE(p);
    REQUIRE(p->size() == 2);
    CHECK((*p)[0].name == "debug");
    CHECK((*p)[0].is_default);
    CHECK((*p)[0].topology.empty());
    CHECK((*p)[1].name == "gpu");
    CHECK_FALSE((*p)[1].is_default);
    CHECK((*p)[1].topology == "blocks");
    const auto t = slurm_topologies(*p, *parse_topoconf(data("show-topoconf-26.05.txt"), "t"));
    REQUIRE(t);
    CHECK(t->default_kind == "tree");
    CHECK(t->default_partition == "debug");
    REQUIRE(t->partitions.size() == 1);
    CHECK(t->partitions[0] == std::pair<std::string, std::string>{"gpu", "block"});
}

TEST_CASE("slurm partitions: flat and ring entries, and the default that is not first",
          "[partitions]") {
    const auto c = parse_topoconf(
        "%YAML 1.1\n---\n- topology: a\n  cluster_default: false\n  flat: {}\n  tree: {}\n"
        "- topology: r\n  cluster_default: true\n  ring:\n    rings:\n    - ring: r0\n"
        "- topology: f\n  flat: true\n...\n",
        "t");
    REQUIRE(c);
    CHECK(c->kind_of("a") == "flat");
    CHECK(c->kind_of("r") == "other");
    CHECK(c->kind_of("f") == "flat");
    CHECK(c->cluster_default == "r");
}

TEST_CASE("slurm partitions: what scontrol never prints is refused by line", "[partitions]") {
    auto c = parse_topoconf("- topology: a\n  tree:\n    x: 1\n  block:\n    y: 2\n", "topo");
    REQUIRE_FALSE(c);
    CHECK(c.error().to_string() ==
          "topo:1: topology 'a' has tree and block content; expected one kind");
    c = parse_topoconf("- topology: a b\n", "topo");
    REQUIRE_FALSE(c);
    CHECK(c.error().to_string() ==
          "topo:1: topology name 'a b': expected letters, digits, '_', '-' or '.'");
    c = parse_topoconf("  tree: {}\n", "topo");
    REQUIRE_FALSE(c);
    CHECK(c.error().to_string() == "topo:1: 'tree: {}' before any '- topology:'");
    c = parse_topoconf("hello\n", "topo");
    REQUIRE_FALSE(c);
    CHECK_THAT(c.error().to_string(), Catch::StartsWith("topo:1: 'hello': expected"));
    c = parse_topoconf("", "topo");
    REQUIRE_FALSE(c);
    CHECK(c.error().message() == "no '- topology: <name>' entry");
    c = parse_topoconf("- topology: a\n- topology: a\n", "topo");
    REQUIRE_FALSE(c);
    CHECK(c.error().to_string() == "topo:2: topology 'a' appears twice");

    auto p = parse_partitions("PartitionName=ok Default=YES\nNodes=x\n", "parts");
    REQUIRE_FALSE(p);
    CHECK_THAT(p.error().to_string(),
               Catch::StartsWith("parts:2: 'Nodes=x': expected 'PartitionName=...'"));
    p = parse_partitions("PartitionName=a\"b\n", "parts");
    REQUIRE_FALSE(p);
    CHECK_THAT(p.error().to_string(), Catch::Contains("partition name 'a\"b'"));
    p = parse_partitions("PartitionName=a Topology=x;y\n", "parts");
    REQUIRE_FALSE(p);
    CHECK_THAT(p.error().to_string(), Catch::Contains("partition a: Topology='x;y'"));
    // A partition naming a topology the configuration lacks (slurmctld would not start).
    const auto t = slurm_topologies({{"gpu", "gone", false}}, discover_topology_names());
    REQUIRE_FALSE(t);
    CHECK(t.error().message() ==
          "partition gpu: Topology=gone is not one of the cluster's topologies");
}

TEST_CASE("slurm partitions: --partition-topology items, kinds or discover's names",
          "[partitions]") {
    SlurmTopologies t;
    REQUIRE(add_partition_topologies("gpu=blocks, cpu=flat", discover_topology_names(), t));
    REQUIRE(add_partition_topologies("gpu=tree,x=torus3d", discover_topology_names(), t));
    REQUIRE(t.partitions.size() == 3);
    CHECK(t.partitions[0] == std::pair<std::string, std::string>{"gpu", "tree"});  // last wins
    CHECK(t.partitions[1] == std::pair<std::string, std::string>{"cpu", "flat"});
    CHECK(t.partitions[2] == std::pair<std::string, std::string>{"x", "other"});
    for (const auto* bad : {"gpu", "=tree", "gpu=", "g pu=tree", "gpu=\"tree\""}) {
        INFO(bad);
        const auto r = add_partition_topologies(bad, discover_topology_names(), t);
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().message(), Catch::StartsWith("--partition-topology: "));
    }
    CHECK(topology_kind("topology/block") == "block");
    CHECK(topology_kind("topology/3d_torus") == "other");
    CHECK(topology_kind("topology/default") == "flat");
    CHECK(topology_kind("topology/hypercube").empty());
}

TEST_CASE("slurm nodes: switchyard's own features are recognised, and replaced", "[slurm-nodes]") {
    CHECK(switchyard_feature("su_g1-leaf1"));
    CHECK(switchyard_feature("grp_g1"));
    CHECK(switchyard_feature("grp16_g1"));
    CHECK_FALSE(switchyard_feature("grp"));
    CHECK_FALSE(switchyard_feature("grp2"));
    CHECK_FALSE(switchyard_feature("gpu"));
    CHECK_FALSE(switchyard_feature("grpx_1"));
    const FabricMap empty;
    auto r = merge_node_features("NodeName=n[1-2] Features=gpu,grp_old,su_x Weight=3\n", "site",
                                 empty, "h");
    REQUIRE(r);
    CHECK_THAT(r->text, Catch::EndsWith("NodeName=n[1-2] Weight=3 Features=gpu\n"));
    CHECK(r->outside == 2);
}

TEST_CASE("slurm nodes: what cannot be merged is refused by line and word", "[slurm-nodes]") {
    const FabricMap empty;
    for (const auto& [text, want] : std::vector<std::pair<std::string, std::string>>{
             {"ClusterName=x\n", "site: no NodeName line"},
             {"\nNodeName=n[2-1]\n", "site:2: NodeName=n[2-1]: "},
             {"NodeName=n[1-2] CPUs\n", "site:1: 'CPUs': expected Key=Value"},
             {"NodeName=n[1-3] NodeHostname=h[1-2]\n",
              "site:1: NodeHostname=h[1-2]: expected one name, or one per node of NodeName (3)"},
             {"NodeName=n[1-2] Port=[6818-6819]\n",
              "site:1: Port=[6818-6819]: a port range for several nodes"}}) {
        INFO(text);
        const auto m = merge_node_features(text, "site", empty, "h");
        REQUIRE_FALSE(m);
        CHECK_THAT(m.error().to_string(), Catch::StartsWith(want));
    }
}
