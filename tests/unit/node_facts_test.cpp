// SPDX-License-Identifier: Apache-2.0
// Tests of the node facts file: it round-trips, a stale or damaged file is refused and says why,
// and the device key changes only with the devices (the cache itself: loaders_test.cpp).
#include "switchyard/node/node_facts.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "catch.hpp"
#include "fake_sysfs.hpp"
#include "switchyard/node/node_readers.hpp"
#include "typical_node.hpp"

using namespace switchyard;
using namespace switchyard::node;
using switchyard::test::FakeSysfs;

namespace {

std::string describe(const PciPlace& p) {
    std::string out = p.busid + "@" + p.host_bridge + "/numa" + std::to_string(p.numa);
    for (const auto& h : p.above) {
        out += " " + h.busid + "=" + std::to_string(h.vendor) + ":" + std::to_string(h.device) +
               ":" + std::to_string(h.subvendor) + ":" + std::to_string(h.subdevice);
    }
    return out;
}

/// Everything a step's rules can see of a node, as text.
std::string describe(const NodeTopology& n) {
    std::ostringstream out;
    for (const auto& m : n.numa) {
        out << "numa " << m.os_index << " " << m.cpus << "\n";
    }
    for (const auto& g : n.gpus) {
        out << "gpu " << g.index << " " << g.vendor << " " << g.vendor_id << ":" << g.device_id
            << " " << g.model << " [";
        for (const auto& o : g.osdevs) {
            out << o << ",";
        }
        out << "] " << describe(g.place) << "\n";
    }
    for (const auto& c : n.nics) {
        out << "nic " << c.name << " " << c.kind << " " << c.node_guid << " " << c.fw_ver << " "
            << c.hca_type << " [";
        for (const auto& d : c.netdevs) {
            out << d << ",";
        }
        out << "] " << describe(c.place) << "\n";
        for (const auto& p : c.ports) {
            out << "  port " << p.port << " " << p.state << " " << p.phys_state << " "
                << p.rate_gbps << " " << p.link_layer << " " << p.lid << " gids " << p.gids.size()
                << " counters " << p.counters.size() << "\n";
        }
    }
    for (const auto& p : n.paths) {
        out << "path " << p.gpu << " " << p.nic << " " << to_string(p.type) << "\n";
    }
    out << "shape " << n.shape << "\n";
    return out.str();
}

}  // namespace

TEST_CASE("node facts: the file round-trips every static fact, ports are read again",
          "[node-facts]") {
    FakeSysfs fs;
    switchyard::test::build_typical_gpu_node(fs);
    auto live = read_sysfs_node(fs.root(), PortDetail::Step);
    REQUIRE(live);
    live->gpus[0].model = "NVIDIA H100 80GB HBM3, 100% odd/model";  // free text survives
    live->gpus[0].osdevs = {"cuda0", "nvml0"};
    const auto text = write_node_facts(*live, 0x1234);
    auto back = read_node_facts(text, "facts", 0x1234);
    REQUIRE(back);
    CHECK(back->nics[0].ports.empty());
    CHECK(write_node_facts(*back, 0x1234) == text);
    refresh_rdma_ports(*back, fs.root(), PortDetail::Step);
    CHECK(describe(*back) == describe(*live));
    CHECK(back->shape == "gpu:8x10de:2330 nic:10xinfiniband numa:2 best:8xPIX");
}

TEST_CASE("node facts: a stale, cut or damaged file is refused by line", "[node-facts]") {
    FakeSysfs fs;
    switchyard::test::build_typical_gpu_node(fs);
    const auto node = read_sysfs_node(fs.root());
    REQUIRE(node);
    const auto text = write_node_facts(*node, 7);
    auto error = [](const std::string& t, std::uint64_t key = 7) {
        auto r = read_node_facts(t, "f", key);
        REQUIRE_FALSE(r);
        return r.error().to_string();
    };
    CHECK_THAT(error(text, 8), Catch::StartsWith("f is stale: written under key "
                                                 "0000000000000007, the node's devices and boot "
                                                 "now give 0000000000000008"));
    CHECK(error(text.substr(0, text.find("\nend")) + "\n") ==
          "f:23: the file ends without its 'end' line: it was cut short");
    CHECK(error("switchyard-node-facts 2\n") == "f:1: expected 'switchyard-node-facts 1'");
    CHECK(error("switchyard-node-facts 1\nkey 7\n") == "f:2: expected 'key <16 hex digits>'");
    std::string gpu = text;
    gpu.replace(gpu.find("gpu 0 nvidia 10de"), 17, "gpu 0 nvidia 1zde");
    CHECK_THAT(error(gpu), Catch::StartsWith("f:5: expected 'gpu <index> <vendor>"));
    std::string escape = text;
    escape.replace(escape.find("nic mlx5_0"), 10, "nic mlx5%Z");
    CHECK_THAT(error(escape), Catch::StartsWith("f:13: expected 'nic <name> <kind>"));
    std::string counts = text;
    counts.erase(counts.find("numa 1"), counts.find("gpu 0") - counts.find("numa 1"));
    CHECK(error(counts) ==
          "f:22: the 'end' line counts other numbers of numa, gpu and nic "
          "lines than the file holds: lines are missing");
    CHECK_THAT(error(text + "numa 3 0\n"), Catch::StartsWith("f:24: a line after the 'end'"));
    // Bounds: hops above one device, and items.
    std::string hops = "switchyard-node-facts 1\nkey 0000000000000007\nnic a b % % % % 1 2 0";
    for (std::size_t i = 0; i <= kMaxPciHops; ++i) {
        hops += " x/0000:0000:0000:0000";
    }
    CHECK_THAT(error(hops + "\n"), Catch::StartsWith("f:3: expected 'nic <name>"));
    std::string many = "switchyard-node-facts 1\nkey 0000000000000007\n";
    for (std::size_t i = 0; i <= kMaxNodeFactsItems; ++i) {
        many += "numa 0 0\n";
    }
    CHECK_THAT(error(many), Catch::StartsWith("f:1027: expected 'numa <index> <cpus>' (at most "
                                              "1024)"));
}

TEST_CASE("node facts: the device key changes on a new device, not on a changed value",
          "[node-facts]") {
    FakeSysfs fs;
    switchyard::test::build_typical_gpu_node(fs);
    const auto key = node_device_key(fs.root());
    CHECK(node_device_key(fs.root()) == key);
    const auto first = *std::filesystem::directory_iterator(fs.root() / "bus/pci/devices");
    std::ofstream(first.path() / "numa_node") << "1\n";  // a value: same key
    CHECK(node_device_key(fs.root()) == key);
    fs.pci("pci0000:f0/0000:f0:01.0", "0x10de", "0x2330", "0x030200", 1);  // a new GPU
    const auto with_gpu = node_device_key(fs.root());
    CHECK(with_gpu != key);
    fs.rdma("mlx5_10", "bus/pci/devices/0000:f0:01.0", "guid");
    CHECK(node_device_key(fs.root()) != with_gpu);
}
