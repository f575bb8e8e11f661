// SPDX-License-Identifier: Apache-2.0
// sysfs (under a root that stands for /sys) → RDMA devices and ports, PCI places, GPUs, NUMA.
// Layout: kernel ABI sysfs-class-infiniband; reference/fabric.md section 5.
#include <algorithm>
#include <charconv>
#include <sstream>

#include "switchyard/common/file.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/node/node_readers.hpp"

namespace switchyard::node {
namespace fs = std::filesystem;
namespace {

class Sysfs {
public:
    Sysfs(fs::path root, std::vector<Diagnostic>& warnings)
        : root_(std::move(root)), warnings_(warnings) {}

    [[nodiscard]] const fs::path& root() const { return root_; }

    /// The trimmed first line of a file; nullopt (and a warning unless `optional`) when unreadable.
    std::optional<std::string> read(const fs::path& p, bool optional = false) {
        auto line = read_first_line(p.string());
        if (!line && !optional) {
            warn("unreadable", p, "cannot read");
        }
        return line;
    }

    std::optional<std::uint64_t> read_number(const fs::path& p, bool optional = false) {
        auto text = read(p, optional);
        if (!text) {
            return std::nullopt;
        }
        std::string_view t = *text;
        int base = 10;
        if (t.starts_with("0x")) {
            t.remove_prefix(2);
            base = 16;
        }
        std::uint64_t v = 0;
        const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v, base);
        if (ec != std::errc{} || ptr != t.data() + t.size()) {
            warn("odd-value", p, "unexpected value '" + *text + "'; expected a number");
            return std::nullopt;
        }
        return v;
    }

    void warn(std::string kind, const fs::path& p, const std::string& what) {
        warnings_.push_back({std::move(kind), SourceLoc{p.string(), 0, 0}, what});
    }

    std::vector<fs::path> list(const fs::path& dir) {
        std::vector<fs::path> out;
        std::error_code ec;
        for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
            out.push_back(it->path());
        }
        std::sort(out.begin(), out.end());
        return out;
    }

    /// The PCI place of a device directory reached through a symlink inside the tree.
    std::optional<PciPlace> place(const fs::path& device_link) {
        std::error_code ec;
        const auto real = fs::canonical(device_link, ec);
        if (ec) {
            warn("unreadable", device_link, "cannot resolve: " + ec.message());
            return std::nullopt;
        }
        PciPlace p;
        fs::path walk = root_;
        std::error_code ec2;
        const auto root_real = fs::canonical(root_, ec2);
        const auto rel = fs::relative(real, ec2 ? root_ : root_real);
        bool in_pci = false;
        for (const auto& part : rel) {
            const auto s = part.string();
            walk /= part;
            if (s.starts_with("pci") && s.find(':') != std::string::npos) {
                p.host_bridge = s;
                in_pci = true;
                continue;
            }
            if (!in_pci || s.size() != 12 || s[4] != ':' || s[7] != ':' || s[10] != '.') {
                continue;
            }
            PciHop hop{s, hex16(walk / "vendor"), hex16(walk / "device"),
                       hex16(walk / "subsystem_vendor"), hex16(walk / "subsystem_device")};
            p.above.push_back(std::move(hop));
        }
        if (p.above.empty()) {
            warn("odd-value", device_link, "resolves outside a PCI hierarchy: " + real.string());
            return std::nullopt;
        }
        p.busid = p.above.back().busid;
        p.above.pop_back();
        const auto numa = read(real / "numa_node", true);
        p.numa = numa && *numa != "-1" ? std::atoi(numa->c_str()) : -1;
        return p;
    }

private:
    std::uint16_t hex16(const fs::path& p) {
        const auto v = read_number(p, true);
        return static_cast<std::uint16_t>(v.value_or(0));
    }

    fs::path root_;
    std::vector<Diagnostic>& warnings_;
};

/// "4: ACTIVE" → (4, "ACTIVE").
std::pair<int, std::string> coded(Sysfs& s, const fs::path& p) {
    const auto text = s.read(p);
    if (!text) {
        return {0, ""};
    }
    const auto colon = text->find(':');
    int code = 0;
    const auto digits = std::string_view(*text).substr(0, colon);
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), code);
    if (colon == std::string::npos || ec != std::errc{} || ptr != digits.data() + digits.size()) {
        s.warn("odd-value", p, "unexpected value '" + *text + "'; expected '<number>: <NAME>'");
        return {0, *text};
    }
    return {code, std::string(trim(std::string_view(*text).substr(colon + 1)))};
}

RdmaPort read_port(Sysfs& s, const fs::path& dir, std::uint32_t number, PortDetail detail) {
    RdmaPort port;
    port.port = number;
    std::tie(port.state_code, port.state) = coded(s, dir / "state");
    std::tie(port.phys_state_code, port.phys_state) = coded(s, dir / "phys_state");
    if (auto rate = s.read(dir / "rate")) {
        port.rate = *rate;
        double gbps = 0;
        const auto [ptr, ec] = std::from_chars(rate->data(), rate->data() + rate->size(), gbps);
        if (ec != std::errc{} || rate->find("Gb/sec") == std::string::npos) {
            s.warn("odd-value", dir / "rate",
                   "unexpected value '" + *rate + "'; expected '<n> Gb/sec (...)'");
        } else {
            port.rate_gbps = gbps;
        }
    }
    port.link_layer = s.read(dir / "link_layer").value_or("");
    port.lid = static_cast<std::uint32_t>(s.read_number(dir / "lid", true).value_or(0));
    // At step launch only RoCE needs GIDs (NCCL picks its GID index); nobody needs counters.
    const bool step = detail == PortDetail::Step;
    for (const auto& g :
         step&& port.link_layer != "Ethernet" ? std::vector<fs::path>{} : s.list(dir / "gids")) {
        const auto value = s.read(g, true);
        if (!value || value->find_first_not_of("0:") == std::string::npos) {
            continue;  // empty slots of the GID table read as all zeros
        }
        Gid gid;
        gid.gid = *value;
        const auto idx = g.filename().string();
        gid.index = std::atoi(idx.c_str());
        gid.type = s.read(dir / "gid_attrs" / "types" / idx, true).value_or("");
        gid.ndev = s.read(dir / "gid_attrs" / "ndevs" / idx, true).value_or("");
        port.gids.push_back(std::move(gid));
    }
    std::sort(port.gids.begin(), port.gids.end(),
              [](const Gid& a, const Gid& b) { return a.index < b.index; });
    for (const char* sub : {"counters", "hw_counters"}) {
        if (step) {
            break;
        }
        for (const auto& c : s.list(dir / sub)) {
            if (auto v = s.read_number(c)) {
                port.counters[c.filename().string()] = *v;
            }
        }
    }
    return port;
}

/// The ports of RDMA device `dev`, sorted by number.
std::vector<RdmaPort> read_ports(Sysfs& s, const fs::path& dev, PortDetail detail) {
    std::vector<RdmaPort> ports;
    for (const auto& p : s.list(dev / "ports")) {
        std::uint32_t number = 0;
        const auto name = p.filename().string();
        const auto [ptr, ec] = std::from_chars(name.data(), name.data() + name.size(), number);
        if (ec != std::errc{} || ptr != name.data() + name.size()) {
            s.warn("odd-value", p, "port directory is not a number");
            continue;
        }
        ports.push_back(read_port(s, p, number, detail));
    }
    std::sort(ports.begin(), ports.end(),
              [](const RdmaPort& a, const RdmaPort& b) { return a.port < b.port; });
    return ports;
}

/// infiniband, roce, efa or rdma, from the ports' link layers (EFA by its PCI vendor).
std::string nic_kind(const std::vector<RdmaPort>& ports, bool efa) {
    const bool all_ib = !ports.empty() &&
                        std::all_of(ports.begin(), ports.end(),
                                    [](const RdmaPort& p) { return p.link_layer == "InfiniBand"; });
    const bool any_eth = std::any_of(ports.begin(), ports.end(),
                                     [](const RdmaPort& p) { return p.link_layer == "Ethernet"; });
    return efa ? "efa" : all_ib ? "infiniband" : any_eth ? "roce" : "rdma";
}

Nic read_device(Sysfs& s, const fs::path& dev, PortDetail detail) {
    Nic n;
    n.name = dev.filename().string();
    n.node_guid = s.read(dev / "node_guid", true).value_or("");
    n.fw_ver = s.read(dev / "fw_ver", true).value_or("");
    n.hca_type = s.read(dev / "hca_type", true).value_or("");
    if (auto p = s.place(dev / "device")) {
        n.place = std::move(*p);
        for (const auto& net : s.list(dev / "device" / "net")) {
            n.netdevs.push_back(net.filename().string());
        }
    }
    n.ports = read_ports(s, dev, detail);
    n.kind = nic_kind(n.ports, s.read(dev / "device" / "vendor", true).value_or("") == "0x1d0f");
    return n;
}

}  // namespace

fs::path expand_node_path(std::string_view pattern, std::string_view node) {
    std::string out;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        if (pattern[i] == '%' && i + 1 < pattern.size() &&
            (pattern[i + 1] == 'n' || pattern[i + 1] == '%')) {
            out += pattern[i + 1] == 'n' ? std::string(node) : std::string("%");
            ++i;
        } else {
            out += pattern[i];
        }
    }
    return out;
}

void attach_rdma_sysfs(NodeTopology& node, const fs::path& root, PortDetail detail) {
    Sysfs s(root, node.warnings);
    const auto class_dir = root / "class" / "infiniband";
    std::error_code ec;
    if (!fs::is_directory(class_dir, ec)) {
        s.warn("no-rdma", class_dir, "no RDMA devices (directory missing)");
        return;
    }
    std::vector<std::string> seen;
    for (const auto& dev : s.list(class_dir)) {
        auto nic = read_device(s, dev, detail);
        seen.push_back(nic.name);
        if (auto* existing = node.find_nic(nic.name)) {
            existing->ports = std::move(nic.ports);
            existing->node_guid = nic.node_guid;
            existing->fw_ver = nic.fw_ver;
            existing->hca_type = nic.hca_type;
            existing->kind = nic.kind;
            if (existing->netdevs.empty()) {
                existing->netdevs = nic.netdevs;
            }
        } else {
            node.nics.push_back(std::move(nic));
        }
    }
    for (const auto& n : node.nics) {
        if (std::find(seen.begin(), seen.end(), n.name) == seen.end()) {
            s.warn("missing-rdma-device", class_dir / n.name,
                   "hwloc lists " + n.name + " but sysfs has no such RDMA device");
        }
    }
    std::sort(node.nics.begin(), node.nics.end(),
              [](const Nic& a, const Nic& b) { return a.name < b.name; });
    derive_paths(node);
}

Result<NodeTopology> read_sysfs_node(const fs::path& root, PortDetail detail) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) {
        return fail(Error::not_found("sysfs root '" + root.string() + "' is not a directory"));
    }
    NodeTopology node;
    Sysfs s(root, node.warnings);
    for (const auto& n : s.list(root / "devices" / "system" / "node")) {
        const auto name = n.filename().string();
        if (!name.starts_with("node")) {
            continue;
        }
        node.numa.push_back(
            {std::atoi(name.c_str() + 4), s.read(n / "cpulist", true).value_or("")});
    }
    std::sort(node.numa.begin(), node.numa.end(),
              [](auto& a, auto& b) { return a.os_index < b.os_index; });
    for (const auto& dev : s.list(root / "bus" / "pci" / "devices")) {
        const auto cls = s.read_number(dev / "class", true).value_or(0) >> 8U;
        const auto vendor = s.read_number(dev / "vendor", true).value_or(0);
        if (!is_gpu_class(cls, vendor)) {
            continue;
        }
        auto place = s.place(dev);
        if (!place) {
            continue;
        }
        Gpu g;
        g.vendor_id = static_cast<std::uint16_t>(vendor);
        g.device_id = static_cast<std::uint16_t>(s.read_number(dev / "device", true).value_or(0));
        g.vendor = vendor == 0x10de ? "nvidia" : "amd";
        char id[16];
        std::snprintf(id, sizeof id, "%04x:%04x", g.vendor_id, g.device_id);
        g.model = id;
        g.place = std::move(*place);
        node.gpus.push_back(std::move(g));
    }
    std::sort(node.gpus.begin(), node.gpus.end(),
              [](const Gpu& a, const Gpu& b) { return a.place.busid < b.place.busid; });
    for (std::size_t i = 0; i < node.gpus.size(); ++i) {
        node.gpus[i].index = static_cast<int>(i);
    }
    attach_rdma_sysfs(node, root, detail);
    return node;
}

void refresh_rdma_ports(NodeTopology& node, const fs::path& root, PortDetail detail) {
    Sysfs s(root, node.warnings);
    const auto class_dir = root / "class" / "infiniband";
    for (auto& nic : node.nics) {
        const auto dev = class_dir / nic.name;
        std::error_code ec;
        if (!fs::is_directory(dev, ec)) {
            s.warn("missing-rdma-device", dev,
                   "the node's facts list " + nic.name + " but sysfs has no such RDMA device");
            nic.ports.clear();
            continue;
        }
        nic.ports = read_ports(s, dev, detail);
        nic.kind = nic_kind(nic.ports, nic.kind == "efa");
    }
    derive_paths(node);
}

std::uint64_t node_device_key(const fs::path& root) {
    // What changes when a device comes or goes, or the node reboots: the boot id, and the
    // entries of the directories the node's facts are read from.
    std::string key = "switchyard " SWITCHYARD_VERSION_STRING "\n" + root.string() + "\n";
    if (auto id = read_text_file("/proc/sys/kernel/random/boot_id", {4096, false})) {
        key += *id;
    }
    for (const auto dir : kDeviceKeyDirs) {
        key += "[" + std::string(dir) + "]";
        std::error_code ec;
        std::vector<std::string> names;
        for (fs::directory_iterator it(root / dir, ec), end; !ec && it != end; it.increment(ec)) {
            names.push_back(it->path().filename().string());
        }
        std::sort(names.begin(), names.end());
        for (const auto& n : names) {
            key += n + ' ';
        }
    }
    return content_digest(key);
}

}  // namespace switchyard::node
