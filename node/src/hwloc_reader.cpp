// SPDX-License-Identifier: Apache-2.0
// hwloc → NodeTopology: GPUs, NICs, NUMA nodes and PCIe places (live machine or XML text).
#include <hwloc.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>

#include "switchyard/node/node_readers.hpp"
#include "xml_check.hpp"

namespace switchyard::node {
namespace {

struct TopologyDeleter {
    void operator()(hwloc_topology* t) const noexcept { hwloc_topology_destroy(t); }
};
using TopologyPtr = std::unique_ptr<hwloc_topology, TopologyDeleter>;

std::string busid_of(hwloc_obj_t o) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%01x", o->attr->pcidev.domain,
                  o->attr->pcidev.bus, o->attr->pcidev.dev, o->attr->pcidev.func);
    return buf;
}

const char* info(hwloc_obj_t o, const char* name) {
    return hwloc_obj_get_info_by_name(o, name);
}

bool is_pci_bridge(hwloc_obj_t o) {
    return o->type == HWLOC_OBJ_BRIDGE && o->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_PCI;
}

int numa_of(hwloc_topology_t topo, hwloc_obj_t o) {
    hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(topo, o);
    if (anc == nullptr || anc->nodeset == nullptr) {
        return -1;
    }
    const int first = hwloc_bitmap_first(anc->nodeset);
    // An ancestor spanning several NUMA nodes (the machine) means the locality is unknown.
    return hwloc_bitmap_weight(anc->nodeset) == 1 ? first : -1;
}

PciPlace place_of(hwloc_topology_t topo, hwloc_obj_t dev) {
    PciPlace p;
    p.busid = busid_of(dev);
    p.numa = numa_of(topo, dev);
    std::vector<PciHop> up;
    for (hwloc_obj_t b = dev->parent; b != nullptr && b->type == HWLOC_OBJ_BRIDGE; b = b->parent) {
        if (is_pci_bridge(b)) {
            up.push_back({busid_of(b), b->attr->pcidev.vendor_id, b->attr->pcidev.device_id,
                          b->attr->pcidev.subvendor_id, b->attr->pcidev.subdevice_id});
        } else {  // host bridge: name it by its secondary bus range, as sysfs names pci0000:xx
            char hb[24];
            std::snprintf(hb, sizeof hb, "pci%04x:%02x", b->attr->bridge.downstream.pci.domain,
                          b->attr->bridge.downstream.pci.secondary_bus);
            p.host_bridge = hb;
        }
    }
    std::reverse(up.begin(), up.end());
    p.above = std::move(up);
    return p;
}

std::string cpulist(hwloc_const_bitmap_t set) {
    char* s = nullptr;
    hwloc_bitmap_list_asprintf(&s, set);
    std::string out = s != nullptr ? s : "";
    std::free(s);  // NOLINT: hwloc allocates with malloc
    return out;
}

/// OS device type check that works for hwloc 2 (one type) and 3 (a bitmask).
bool osdev_is(hwloc_obj_t o, hwloc_obj_osdev_type_t t) {
#if HWLOC_API_VERSION >= 0x30000
    return (o->attr->osdev.types & t) != 0;
#else
    return o->attr->osdev.type == t;
#endif
}

void add_gpu(hwloc_topology_t topo, hwloc_obj_t pci, NodeTopology& node) {
    Gpu g;
    g.vendor_id = pci->attr->pcidev.vendor_id;
    g.device_id = pci->attr->pcidev.device_id;
    g.vendor = g.vendor_id == 0x10de ? "nvidia" : "amd";
    g.place = place_of(topo, pci);
    for (hwloc_obj_t c = pci->io_first_child; c != nullptr; c = c->next_sibling) {
        if (c->type != HWLOC_OBJ_OS_DEVICE || c->name == nullptr) {
            continue;
        }
        g.osdevs.emplace_back(c->name);
        if (const char* m = info(c, "GPUModel"); m != nullptr && g.model.empty()) {
            g.model = m;
        }
    }
    if (g.model.empty()) {
        if (const char* m = info(pci, "PCIDevice")) {
            g.model = m;
        } else {
            char id[16];
            std::snprintf(id, sizeof id, "%04x:%04x", g.vendor_id, g.device_id);
            g.model = id;
        }
    }
    node.gpus.push_back(std::move(g));
}

/// The ports hwloc recorded for an OpenFabrics OS device (Port<N>State, Port<N>LID,
/// Port<N>GID<k>), so a node described by XML alone has port states; sysfs replaces them when
/// it is read. No rate or physical state: hwloc does not record them.
std::vector<RdmaPort> ports_from_infos(hwloc_obj_t dev, const char* link_layer) {
    static constexpr const char* kStates[] = {"NOP",   "DOWN",   "INIT",
                                              "ARMED", "ACTIVE", "ACTIVE_DEFER"};
    std::vector<RdmaPort> ports;
    for (std::uint32_t n = 1; n <= 64; ++n) {
        const auto key = "Port" + std::to_string(n);
        const char* state = info(dev, (key + "State").c_str());
        if (state == nullptr) {
            continue;
        }
        RdmaPort p;
        p.port = n;
        p.state_code = std::atoi(state);
        p.state = p.state_code >= 0 && p.state_code <= 5 ? kStates[p.state_code] : "UNKNOWN";
        p.link_layer = link_layer;
        if (const char* lid = info(dev, (key + "LID").c_str())) {
            p.lid = static_cast<std::uint32_t>(std::strtoul(lid, nullptr, 0));
        }
        for (int k = 0; k < 256; ++k) {
            const char* gid = info(dev, (key + "GID" + std::to_string(k)).c_str());
            if (gid == nullptr) {
                break;
            }
            p.gids.push_back({k, gid, "", ""});
        }
        ports.push_back(std::move(p));
    }
    return ports;
}

void add_nic(hwloc_topology_t topo, hwloc_obj_t pci, NodeTopology& node) {
    std::vector<std::string> net;
    for (hwloc_obj_t c = pci->io_first_child; c != nullptr; c = c->next_sibling) {
        if (c->type == HWLOC_OBJ_OS_DEVICE && c->name != nullptr &&
            osdev_is(c, HWLOC_OBJ_OSDEV_NETWORK)) {
            net.emplace_back(c->name);
        }
    }
    // HPE Slingshot (Cassini, vendor 0x17db) has no verbs device: NCCL reaches it through the
    // libfabric plugin. Reported with its own kind, never dropped.
    if (pci->attr->pcidev.vendor_id == 0x17db && !net.empty()) {
        Nic n;
        n.name = net.front();
        n.netdevs = net;
        n.kind = "cxi";
        n.place = place_of(topo, pci);
        node.nics.push_back(std::move(n));
        node.warnings.push_back(
            {"nic-without-rdma", SourceLoc{},
             net.front() + " is an HPE Slingshot NIC (cxi), with no RDMA verbs device: NCCL "
                           "reaches it through the libfabric plugin; no NCCL_IB_* is set for it"});
        return;
    }
    // The kind comes from the device, not its netdev's name (sites rename them: hsi0,
    // ibp12s0): PCI class 0x0207 is an InfiniBand controller, 0x0200 an Ethernet one (RoCE when
    // it has an RDMA device). Refined from the ports' link layer when sysfs is read.
    const auto cls = pci->attr->pcidev.class_id;
    const char* kind = pci->attr->pcidev.vendor_id == 0x1d0f ? "efa"
                       : cls == 0x0207                       ? "infiniband"
                       : cls == 0x0200                       ? "roce"
                                                             : "rdma";
    for (hwloc_obj_t c = pci->io_first_child; c != nullptr; c = c->next_sibling) {
        if (c->type != HWLOC_OBJ_OS_DEVICE || c->name == nullptr ||
            !osdev_is(c, HWLOC_OBJ_OSDEV_OPENFABRICS)) {
            continue;
        }
        Nic n;
        n.name = c->name;
        n.netdevs = net;
        n.kind = kind;
        n.place = place_of(topo, pci);
        n.ports = ports_from_infos(c, std::string_view(kind) == "infiniband"
                                          ? "InfiniBand"
                                          : (std::string_view(kind) == "roce" ? "Ethernet" : ""));
        if (const char* guid = info(c, "NodeGUID")) {
            n.node_guid = guid;
        }
        node.nics.push_back(std::move(n));
    }
}

Result<NodeTopology> extract(hwloc_topology_t topo) {
    NodeTopology node;
    for (hwloc_obj_t n = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, nullptr);
         n != nullptr; n = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, n)) {
        node.numa.push_back({static_cast<int>(n->os_index), cpulist(n->cpuset)});
        if (node.numa.back().cpus.empty()) {
            node.warnings.push_back(
                {"cpuless-numa", SourceLoc{},
                 "NUMA node " + std::to_string(n->os_index) +
                     " has no CPUs (GPU or HBM memory exposed as NUMA): not counted in the "
                     "shape"});
        }
    }
    for (hwloc_obj_t pci = hwloc_get_next_pcidev(topo, nullptr); pci != nullptr;
         pci = hwloc_get_next_pcidev(topo, pci)) {
        const auto cls = pci->attr->pcidev.class_id;
        const auto vendor = pci->attr->pcidev.vendor_id;
        if (is_gpu_class(cls, vendor)) {
            add_gpu(topo, pci, node);
        } else {
            add_nic(topo, pci, node);
        }
    }
    std::sort(node.gpus.begin(), node.gpus.end(),
              [](const Gpu& a, const Gpu& b) { return a.place.busid < b.place.busid; });
    for (std::size_t i = 0; i < node.gpus.size(); ++i) {
        node.gpus[i].index = static_cast<int>(i);
    }
    std::sort(node.nics.begin(), node.nics.end(),
              [](const Nic& a, const Nic& b) { return a.name < b.name; });
    derive_paths(node);
    return node;
}

Result<TopologyPtr> make_topology() {
    hwloc_topology_t raw = nullptr;
    if (hwloc_topology_init(&raw) != 0) {
        return fail(Error::internal("hwloc_topology_init failed"));
    }
    TopologyPtr topo(raw);
    // Keep every bridge: NCCL's path classes need the whole PCIe chain.
    hwloc_topology_set_io_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_ALL);
    return topo;
}

/// hwloc 3.x XML (topology version="3.0") for an hwloc 2.x library: the only change that matters
/// here is osdev_type, a bitmask in 3.x (STORAGE 1, MEMORY 2, GPU 4, COPROC 8, NETWORK 16,
/// OPENFABRICS 32, DMA 64) and an enum in 2.x (BLOCK 0, GPU 1, NETWORK 2, OPENFABRICS 3, DMA 4,
/// COPROC 5). Returns the converted text, or nullopt when `xml` is not 3.x.
std::optional<std::string> downgrade_v3_xml(std::string_view xml) {
    constexpr std::string_view kV3 = "<topology version=\"3.";
    const auto at = xml.find(kV3);
    if (HWLOC_API_VERSION >= 0x30000 || at == std::string_view::npos) {
        return std::nullopt;
    }
    std::string out(xml);
    auto minor_end = at + kV3.size();  // "3." and its minor digits become "2.0"
    while (minor_end < out.size() && out[minor_end] >= '0' && out[minor_end] <= '9') {
        ++minor_end;
    }
    out.replace(at, minor_end - at, "<topology version=\"2.0");
    constexpr std::string_view kAttr = "osdev_type=\"";
    for (auto pos = out.find(kAttr); pos != std::string::npos; pos = out.find(kAttr, pos + 1)) {
        const auto start = pos + kAttr.size();
        const auto end = out.find('"', start);
        const unsigned bits = static_cast<unsigned>(
            std::strtoul(out.substr(start, end - start).c_str(), nullptr, 10));
        const int v2 = (bits & 32U) != 0U   ? 3
                       : (bits & 16U) != 0U ? 2
                       : (bits & 8U) != 0U  ? 5
                       : (bits & 4U) != 0U  ? 1
                       : (bits & 64U) != 0U ? 4
                                            : 0;
        out.replace(start, end - start, std::to_string(v2));
    }
    return out;
}

}  // namespace

Result<NodeTopology> read_hwloc_xml(std::string_view xml, std::string_view source) {
    auto topo = make_topology();
    if (!topo) {
        return fail(topo.error());
    }
    if (xml.empty()) {
        return fail(
            Error::parse(SourceLoc{std::string(source), 0, 0}, "empty file; expected hwloc XML"));
    }
    if (const auto problem = xml_problem(xml)) {
        return fail(Error::parse(
            SourceLoc{std::string(source), 0, 0},
            "not well-formed XML (" + *problem + "); expected an 'lstopo --of xml' export"));
    }
    const auto converted = downgrade_v3_xml(xml);
    const std::string buffer = converted ? *converted : std::string(xml);  // NUL counted in size
    if (hwloc_topology_set_xmlbuffer(topo->get(), buffer.c_str(),
                                     static_cast<int>(buffer.size() + 1)) != 0 ||
        hwloc_topology_load(topo->get()) != 0) {
        return fail(
            Error::parse(SourceLoc{std::string(source), 0, 0},
                         "hwloc could not load this XML (expected an 'lstopo --of xml' export, "
                         "hwloc 1.x or 2.x)"));
    }
    auto node = extract(topo->get());
    if (node && converted) {
        node->warnings.push_back({"hwloc-xml-v3", SourceLoc{std::string(source), 0, 0},
                                  "hwloc 3.x XML read by hwloc " HWLOC_VERSION
                                  " after mapping its OS-device types to 2.x"});
    }
    return node;
}

Result<NodeTopology> read_hwloc_live() {
    auto topo = make_topology();
    if (!topo) {
        return fail(topo.error());
    }
    if (hwloc_topology_load(topo->get()) != 0) {
        return fail(Error::io("hwloc could not discover this machine"));
    }
    return extract(topo->get());
}

}  // namespace switchyard::node
