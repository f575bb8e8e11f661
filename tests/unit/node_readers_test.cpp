// SPDX-License-Identifier: Apache-2.0
// Tests of the node readers on sysfs trees built here, and of GPU↔NIC path classification.
#include "switchyard/node/node_readers.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>

#include "catch.hpp"
#include "fake_sysfs.hpp"
#include "paths.hpp"

using namespace switchyard::node;
using switchyard::test::FakeSysfs;

namespace {

/// DGX-H100-like node: per NUMA node two root complexes, each with a level-1 switch holding two
/// level-2 switches (one GPU + one compute NIC each); a storage NIC on each NUMA node's first
/// level-1 switch. Complex 0 uses Broadcom PEX Gen5 in base mode at both levels (NCCL flattens
/// it), the others a PLX part. Returns GPU bus ids in order.
struct DgxLike {
    FakeSysfs fs;
    DgxLike() {
        fs.numa(0, "0-55,112-167");
        fs.numa(1, "56-111,168-223");
        int gpu = 0;
        for (int c = 0; c < 4; ++c) {
            const int numa = c / 2;
            char hb[32];
            std::snprintf(hb, sizeof hb, "pci0000:%02x", 0x10 + 0x20 * c);
            const int b = 0x10 + 0x20 * c;
            auto bus = [&](int off, int dev, int fn = 0) {
                char s[16];
                std::snprintf(s, sizeof s, "0000:%02x:%02x.%d", b + off, dev, fn);
                return std::string(s);
            };
            const bool bcm = c == 0;
            const char* v = bcm ? "0x1000" : "0x10b5";
            const char* d = bcm ? "0xc030" : "0x8796";
            const char* sv = bcm ? "0x1000" : "0x10b5";
            const char* sd = bcm ? "0x0001" : "0x8796";
            const std::string root = std::string(hb) + "/" + bus(0, 1);
            fs.bridge(root, "0x8086", "0x352a", "0x8086", "0x0000", numa);
            const std::string l1 = root + "/" + bus(1, 0);
            fs.bridge(l1, v, d, sv, sd, numa);
            for (int s = 0; s < 2; ++s) {
                const int k = 3 + 5 * s;  // l2 on bus k, its downstream ports on k+1
                const std::string down = l1 + "/" + bus(2, s);
                fs.bridge(down, v, d, sv, sd, numa);
                const std::string l2 = down + "/" + bus(k, 0);
                fs.bridge(l2, v, d, sv, sd, numa);
                const std::string gd = l2 + "/" + bus(k + 1, 0);
                fs.bridge(gd, v, d, sv, sd, numa);
                const std::string nd = l2 + "/" + bus(k + 1, 1);
                fs.bridge(nd, v, d, sv, sd, numa);
                fs.pci(gd + "/" + bus(k + 2, 0), "0x10de", "0x2330", "0x030200", numa);
                const auto nic =
                    fs.pci(nd + "/" + bus(k + 3, 0), "0x15b3", "0x1021", "0x020700", numa);
                const auto r = fs.rdma("mlx5_" + std::to_string(gpu), nic,
                                       "b8ce:f603:00aa:000" + std::to_string(gpu));
                fs.netdev(nic, "ibp" + std::to_string(gpu));
                fs.port(r, 1, {});
                ++gpu;
            }
            if (c % 2 == 0) {  // storage NIC on the first complex of each NUMA node
                const std::string down = l1 + "/" + bus(2, 9);
                fs.bridge(down, v, d, sv, sd, numa);
                const auto nic =
                    fs.pci(down + "/" + bus(0x1d, 0), "0x15b3", "0x1021", "0x020000", numa);
                const auto name = "mlx5_" + std::to_string(8 + c / 2);
                const auto r = fs.rdma(name, nic, "b8ce:f603:00bb:000" + std::to_string(c));
                fs.netdev(nic, "eth" + std::to_string(c / 2));
                FakeSysfs::Port p;
                p.link_layer = "Ethernet";
                p.rate = "200 Gb/sec (4X HDR)";
                p.lid = "0x0";
                fs.port(r, 1, p);
            }
        }
    }
};

PathType path(const NodeTopology& n, int gpu, const std::string& nic) {
    for (const auto& p : n.paths) {
        if (p.gpu == gpu && p.nic == nic) {
            return p.type;
        }
    }
    FAIL("no path gpu" << gpu << " - " << nic);
    return PathType::SYS;
}

}  // namespace

TEST_CASE("node_readers: 8 GPU / 8 NDR / 2 storage NIC node from sysfs", "[node]") {
    DgxLike dgx;
    auto r = read_sysfs_node(dgx.fs.root());
    REQUIRE(r);
    const auto& n = *r;
    REQUIRE(n.gpus.size() == 8);
    REQUIRE(n.nics.size() == 10);
    REQUIRE(n.numa.size() == 2);
    CHECK(n.numa[1].cpus == "56-111,168-223");
    CHECK(n.gpus[0].vendor == "nvidia");
    CHECK(n.gpus[0].place.busid == "0000:15:00.0");
    CHECK(n.gpus[0].place.host_bridge == "pci0000:10");
    CHECK(n.gpus[4].place.numa == 1);
    const auto* mlx5_0 = &n.nics[0];
    CHECK(mlx5_0->name == "mlx5_0");
    CHECK(mlx5_0->kind == "infiniband");
    CHECK(mlx5_0->place.busid == "0000:16:00.0");
    CHECK(mlx5_0->netdevs == std::vector<std::string>{"ibp0"});
    CHECK(mlx5_0->node_guid == "b8ce:f603:00aa:0000");
    REQUIRE(mlx5_0->ports.size() == 1);
    const auto& p = mlx5_0->ports[0];
    CHECK(p.state_code == 4);
    CHECK(p.state == "ACTIVE");
    CHECK(p.phys_state_code == 5);
    CHECK(p.phys_state == "LinkUp");
    CHECK(p.rate_gbps == 400.0);
    CHECK(p.link_layer == "InfiniBand");
    CHECK(p.lid == 16);
    REQUIRE(p.gids.size() == 1);  // the all-zero slot is skipped
    CHECK(p.counters.at("symbol_error") == 0);
    const auto* storage = &n.nics[8];
    CHECK(storage->name == "mlx5_8");
    CHECK(storage->kind == "roce");
    CHECK(storage->ports[0].rate_gbps == 200.0);
    CHECK(n.warnings.empty());

    // Complex 0 (BCM base mode, flattened): every GPU/NIC pair of the complex is PIX.
    CHECK(path(n, 0, "mlx5_0") == PathType::PIX);
    CHECK(path(n, 0, "mlx5_1") == PathType::PIX);
    CHECK(path(n, 0, "mlx5_8") == PathType::PIX);
    // Complex 1 (PLX, two levels kept): own NIC PIX, the sibling's PXB.
    CHECK(path(n, 2, "mlx5_2") == PathType::PIX);
    CHECK(path(n, 2, "mlx5_3") == PathType::PXB);
    // Other complex of the same NUMA node: NODE (NCCL: PHB); other socket: SYS.
    CHECK(path(n, 2, "mlx5_0") == PathType::NODE);
    CHECK(nccl_name(PathType::NODE) == "PHB");
    CHECK(path(n, 0, "mlx5_4") == PathType::SYS);
    CHECK(nearest_nics(n, 5) == std::vector<std::string>{"mlx5_5"});
    CHECK(n.shape == "gpu:8x10de:2330 nic:8xinfiniband+2xroce numa:2 best:8xPIX");
}

TEST_CASE("node_readers: dual-port RoCE NIC, one port down, RoCE v1/v2 GIDs", "[node]") {
    FakeSysfs fs;
    fs.numa(0, "0-7");
    const auto nic =
        fs.pci("pci0000:00/0000:00:02.0/0000:03:00.0", "0x15b3", "0x101d", "0x020000", 0);
    fs.netdev(nic, "eth2");
    const auto r = fs.rdma("mlx5_0", nic, "0c42:a103:00aa:0001");
    FakeSysfs::Port up;
    up.link_layer = "Ethernet";
    up.rate = "100 Gb/sec (4X EDR)";
    up.lid = "0x0";
    const auto p1 = fs.port(r, 1, up);
    fs.file(p1 + "/gid_attrs/types/0", "IB/RoCE v1");
    fs.file(p1 + "/gid_attrs/ndevs/0", "eth2");
    fs.file(p1 + "/gids/2", "0000:0000:0000:0000:0000:ffff:0a00:0005");
    fs.file(p1 + "/gid_attrs/types/2", "IB/RoCE v1");
    fs.file(p1 + "/gid_attrs/ndevs/2", "eth2");
    fs.file(p1 + "/gids/3", "0000:0000:0000:0000:0000:ffff:0a00:0005");
    fs.file(p1 + "/gid_attrs/types/3", "RoCE v2");
    fs.file(p1 + "/gid_attrs/ndevs/3", "eth2");
    FakeSysfs::Port down = up;
    down.state = "1: DOWN";
    down.phys_state = "3: Disabled";
    fs.port(r, 2, down);
    auto node = read_sysfs_node(fs.root());
    REQUIRE(node);
    REQUIRE(node->nics.size() == 1);
    const auto& n = node->nics[0];
    CHECK(n.kind == "roce");
    REQUIRE(n.ports.size() == 2);
    CHECK(n.ports[0].state == "ACTIVE");
    CHECK(n.ports[1].state_code == 1);
    CHECK(n.ports[1].phys_state == "Disabled");
    const auto& gids = n.ports[0].gids;
    REQUIRE(gids.size() == 3);
    CHECK(gids[0].type == "IB/RoCE v1");
    CHECK(gids[1].index == 2);
    CHECK(gids[2].index == 3);
    CHECK(gids[2].type == "RoCE v2");
    CHECK(gids[2].gid == "0000:0000:0000:0000:0000:ffff:0a00:0005");
    CHECK(gids[2].ndev == "eth2");
    CHECK(node->gpus.empty());
    CHECK(node->shape == "gpu:0 nic:1xroce numa:1 best:none");
}

TEST_CASE("node_readers: ports ACTIVE, DOWN/Polling and INIT without an SM", "[node]") {
    FakeSysfs fs;
    const char* states[][3] = {{"4: ACTIVE", "5: LinkUp", "0x1a"},
                               {"1: DOWN", "2: Polling", "0x0"},
                               {"2: INIT", "5: LinkUp", "0x0"}};
    for (int i = 0; i < 3; ++i) {
        const auto nic = fs.pci("pci0000:00/0000:00:0" + std::to_string(i + 1) + ".0/0000:0" +
                                    std::to_string(i + 1) + ":00.0",
                                "0x15b3", "0x101b", "0x020700", 0);
        FakeSysfs::Port p;
        p.state = states[i][0];
        p.phys_state = states[i][1];
        p.lid = states[i][2];
        p.rate = i == 1 ? "10 Gb/sec (4X SDR)" : "200 Gb/sec (4X HDR)";
        p.counters = {{"link_downed", std::to_string(i * 7)}, {"port_rcv_errors", "12"}};
        fs.port(fs.rdma("mlx5_" + std::to_string(i), nic, "guid"), 1, p);
    }
    auto node = read_sysfs_node(fs.root());
    REQUIRE(node);
    REQUIRE(node->nics.size() == 3);
    CHECK(node->nics[0].ports[0].state == "ACTIVE");
    CHECK(node->nics[0].ports[0].lid == 0x1a);
    CHECK(node->nics[1].ports[0].state == "DOWN");
    CHECK(node->nics[1].ports[0].phys_state == "Polling");
    CHECK(node->nics[1].ports[0].rate_gbps == 10.0);
    CHECK(node->nics[1].ports[0].counters.at("link_downed") == 7);
    CHECK(node->nics[2].ports[0].state_code == 2);
    CHECK(node->nics[2].ports[0].lid == 0);
    CHECK(node->nics[2].ports[0].counters.at("port_rcv_errors") == 12);
    CHECK(node->warnings.empty());
}

TEST_CASE("node_readers: odd values and unreadable entries are warnings naming the path",
          "[node]") {
    FakeSysfs fs;
    const auto nic =
        fs.pci("pci0000:00/0000:00:01.0/0000:01:00.0", "0x15b3", "0x101b", "0x020700", 0);
    FakeSysfs::Port p;
    p.state = "ACTIVE";  // no code
    p.rate = "fast";     // not "<n> Gb/sec"
    p.counters = {{"symbol_error", "lots"}};
    const auto r = fs.rdma("mlx5_0", nic, "guid");
    const auto dir = fs.port(r, 1, p);
    std::filesystem::remove(fs.root() / dir / "phys_state");
    auto node = read_sysfs_node(fs.root());
    REQUIRE(node);
    std::set<std::string> kinds;
    std::string text;
    for (const auto& w : node->warnings) {
        kinds.insert(w.kind);
        text += w.where.source + ": " + w.message + "\n";
    }
    CHECK(kinds == std::set<std::string>{"odd-value", "unreadable"});
    CHECK_THAT(text, Catch::Contains(
                         "ports/1/state: unexpected value 'ACTIVE'; expected '<number>: <NAME>'"));
    CHECK_THAT(text, Catch::Contains("ports/1/rate: unexpected value 'fast'"));
    CHECK_THAT(text, Catch::Contains("ports/1/phys_state: cannot read"));
    CHECK_THAT(
        text, Catch::Contains("counters/symbol_error: unexpected value 'lots'; expected a number"));
    const auto& port = node->nics[0].ports[0];
    CHECK(port.state == "ACTIVE");  // raw text kept
    CHECK(port.rate_gbps == 0);
    CHECK(port.counters.count("symbol_error") == 0);
}

TEST_CASE("node_readers: a missing root is an error, no RDMA is a warning", "[node]") {
    auto missing = read_sysfs_node("/nonexistent/switchyard-sys");
    REQUIRE_FALSE(missing);
    CHECK(missing.error().message() ==
          "sysfs root '/nonexistent/switchyard-sys' is not a directory");
    FakeSysfs fs;
    fs.numa(0, "0-3");
    auto node = read_sysfs_node(fs.root());
    REQUIRE(node);
    REQUIRE(node->warnings.size() == 1);
    CHECK(node->warnings[0].kind == "no-rdma");
}

TEST_CASE("node_readers: hwloc XML errors name the source", "[node]") {
    auto empty = read_hwloc_xml("", "a.xml");
    REQUIRE_FALSE(empty);
    CHECK(empty.error().to_string() == "a.xml: empty file; expected hwloc XML");
    auto junk = read_hwloc_xml("<not-hwloc/>", "b.xml");
    REQUIRE_FALSE(junk);
    CHECK_THAT(junk.error().to_string(), Catch::StartsWith("b.xml: hwloc could not load this XML"));
}

TEST_CASE("node_readers: a synthetic hwloc topology has NUMA nodes and no devices", "[node]") {
    // hwloc's own XML export of a small synthetic machine, as `lstopo --of xml` writes it.
    auto live = read_hwloc_live();  // this machine: no GPU, no RDMA device here
    REQUIRE(live);
    CHECK_FALSE(live->numa.empty());
    CHECK(cross_check_verbs(*live).starts_with("verbs: "));
}

TEST_CASE("node_readers: switchyard node --sysfs-root --json carries the documented fields",
          "[node][cli]") {
    DgxLike dgx;
    const std::string cmd =
        std::string(SWITCHYARD_CLI) + " node --json --sysfs-root " + dgx.fs.root().string();
    std::FILE* pipe = popen(cmd.c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::string out;
    char buf[4096];
    while (std::fgets(buf, sizeof buf, pipe) != nullptr) {
        out += buf;
    }
    REQUIRE(pclose(pipe) == 0);
    const auto j = nlohmann::json::parse(out);
    REQUIRE(j["gpus"].size() == 8);
    CHECK(j["gpus"][3]["pci"] == "0000:3a:00.0");
    for (const char* key : {"index", "pci", "vendor", "model", "numa"}) {
        CHECK(j["gpus"][0].contains(key));
    }
    REQUIRE(j["nics"].size() == 10);
    for (const char* key : {"name", "pci", "numa", "netdevs", "ports"}) {
        CHECK(j["nics"][0].contains(key));
    }
    const auto& port = j["nics"][0]["ports"][0];
    CHECK(port["port"] == 1);
    CHECK(port["state"] == "ACTIVE");
    CHECK(port["phys_state"] == "LinkUp");
    CHECK(port["rate_gbps"] == 400.0);
    CHECK(port["link_layer"] == "InfiniBand");
    CHECK(port["lid"] == 16);
    CHECK(j["paths"].size() == 80);
    CHECK(j["paths"][0]["type"] == "PIX");
    CHECK(j["shape"] == "gpu:8x10de:2330 nic:8xinfiniband+2xroce numa:2 best:8xPIX");
}

TEST_CASE("node_readers: %n in a policy sysfs root is the node name", "[node]") {
    CHECK(expand_node_path("/srv/fake/%n/sys", "node007") == "/srv/fake/node007/sys");
    CHECK(expand_node_path("/sys", "node007") == "/sys");
    CHECK(expand_node_path("/a/100%%/%x/%n", "n1") == "/a/100%/%x/n1");
}

TEST_CASE("hwloc xml: only well-formed XML reaches hwloc, which crashes on some that is not",
          "[node]") {
    // `<topology version="2.0<` (23 bytes, found by the fuzzer) makes hwloc 2.9's own XML
    // importer segfault; lstopo -i crashes on it too.
    const std::pair<std::string, std::string> cases[] = {
        {"<topology version=\"2.0<", "line 1: attribute version: value never closed"},
        {"<topology version=\"2.0\" a=\"<\"></topology>", "'<' inside the value of attribute a"},
        {"<?xml version=\"1.0\"?>\n<topology version=\"2.0\"><object type=\"Machine\"",
         "line 2: an unclosed <object> tag"},
        {"<a><b></a>", "</a> does not close <b>"},
        {"<a x=\"1\"y=\"2\"/>", "expected a space before an attribute"},
        {"<a x=1/>", "attribute x: expected a quoted value"},
        {"<a></a><b/>", "a second root element"},
        {"junk<a/>", "text outside the root element"},
        {"<a>", "the end of the file inside <a>; expected </a>"},
        {"<!DOCTYPE a [<!ENTITY x \"y\">]><a/>", "a DOCTYPE with an internal subset"},
        {"<!-- never closed <a/>", "an unclosed comment"},
        {std::string("<a>\0</a>", 8), "a NUL byte"},
        {"< a/>", "'<' not followed by an element name"},
        {"<a></ a>", "a malformed closing tag"},
        {"   \n", "no element"},
        // hwloc 2.9 segfaults on an object with a cpuset and no complete_cpuset (fuzzer).
        {"<topology version=\"2.0\"><object type=\"Machine\" cpuset=\"0x1\"/></topology>",
         "an <object> with a cpuset but no complete_cpuset"},
        {"<topology version=\"2.0\"><object type=\"Machine\" nodeset=\"0x1\" cpuset=\"0x1\" "
         "complete_cpuset=\"0x1\"/></topology>",
         "an <object> with a nodeset but no complete_nodeset"},
    };
    for (const auto& [xml, expected] : cases) {
        INFO(xml);
        const auto node = read_hwloc_xml(xml, "in.xml");
        REQUIRE_FALSE(node);
        CHECK_THAT(node.error().to_string(), Catch::Contains(expected));
        CHECK_THAT(node.error().to_string(), Catch::Contains("in.xml"));
    }
    std::string deep;
    for (int i = 0; i < 200; ++i) {
        deep += "<o>";
    }
    const auto node = read_hwloc_xml(deep, "deep.xml");
    REQUIRE_FALSE(node);
    CHECK_THAT(node.error().to_string(), Catch::Contains("nested more than 128"));
}

TEST_CASE("node: CPU-less NUMA nodes and AMD processing accelerators", "[node]") {
    // GPU or HBM memory exposed as NUMA (POWER9, Grace, MI300A) is not a socket: the shape
    // counts NUMA nodes with CPUs only.
    NodeTopology n;
    n.numa = {{0, "0-71"}, {1, "72-143"}, {2, ""}, {3, ""}};
    derive_paths(n);
    CHECK_THAT(n.shape, Catch::Contains(" numa:2 "));
    // MI300A/X show PCI class 0x1200 (processing accelerator); only AMD's count as GPUs.
    CHECK(is_gpu_class(0x1200, 0x1002));
    CHECK_FALSE(is_gpu_class(0x1200, 0x8086));
    CHECK(is_gpu_class(0x0302, 0x10de));
    CHECK_FALSE(is_gpu_class(0x0680, 0x10de));  // NVSwitch
    // The same read from an hwloc XML: cts1-pascal with its two P100s made MI300-class devices.
    auto xml = switchyard::test::slurp(switchyard::test::real_fixtures() / "hwloc-xml" /
                                       "mpibind-cts1-pascal.xml");
    REQUIRE_FALSE(xml.empty());
    for (auto at = xml.find("pci_type=\"0302 [10de:15f8]"); at != std::string::npos;
         at = xml.find("pci_type=\"0302 [10de:15f8]")) {
        xml.replace(at, 26, "pci_type=\"1200 [1002:74a1]");
    }
    const auto node = read_hwloc_xml(xml, "pascal-as-mi300.xml");
    REQUIRE(node);
    REQUIRE(node->gpus.size() == 2);
    CHECK(node->gpus[0].vendor_id == 0x1002);
}
