// SPDX-License-Identifier: Apache-2.0
// FakeSysfs: builds a sysfs tree (plain files and relative symlinks, as the kernel lays them out)
// in a temporary directory, for the node readers' tests. Layout: reference/fabric.md section 5.
#pragma once

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace switchyard::test {

class FakeSysfs {
public:
    FakeSysfs() {
        char tmpl[] = "/tmp/switchyard-sysfs.XXXXXX";
        root_ = mkdtemp(tmpl);
    }
    ~FakeSysfs() {
        std::error_code ec;
        std::filesystem::remove_all(root_, ec);
    }
    FakeSysfs(const FakeSysfs&) = delete;
    FakeSysfs& operator=(const FakeSysfs&) = delete;

    [[nodiscard]] const std::filesystem::path& root() const { return root_; }

    void file(const std::filesystem::path& rel, const std::string& content) {
        const auto p = root_ / rel;
        std::filesystem::create_directories(p.parent_path());
        std::ofstream(p) << content << "\n";
    }

    /// A relative symlink at `at` pointing to `target` (both relative to the root).
    /// A directory `rel` under the tree, mode 0755: what root's cache directory looks like.
    std::filesystem::path shared_dir(const std::filesystem::path& rel) {
        const auto d = root_ / rel;
        std::filesystem::create_directories(d);
        std::filesystem::permissions(
            d, std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                   std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
                   std::filesystem::perms::others_exec);
        return d;
    }

    void link(const std::filesystem::path& at, const std::filesystem::path& target) {
        const auto p = root_ / at;
        std::filesystem::create_directories(p.parent_path());
        std::filesystem::create_directory_symlink(
            std::filesystem::relative(root_ / target, p.parent_path()), p);
    }

    void numa(int node, const std::string& cpus) {
        file("devices/system/node/node" + std::to_string(node) + "/cpulist", cpus);
    }

    /// A PCI function: `chain` is "pci0000:15/0000:15:01.0/.../<busid>"; ids as sysfs prints them.
    std::string pci(const std::string& chain,
                    const char* vendor,
                    const char* device,
                    const char* cls,
                    int numa,
                    const char* subvendor = "0x0000",
                    const char* subdevice = "0x0000") {
        const auto dir = "devices/" + chain;
        file(dir + "/vendor", vendor);
        file(dir + "/device", device);
        file(dir + "/class", cls);
        file(dir + "/subsystem_vendor", subvendor);
        file(dir + "/subsystem_device", subdevice);
        file(dir + "/numa_node", std::to_string(numa));
        const auto busid = std::filesystem::path(chain).filename().string();
        link("bus/pci/devices/" + busid, dir);
        return dir;
    }

    /// A bridge (switch port) on the chain, so path classification sees its ids.
    void bridge(const std::string& chain,
                const char* vendor,
                const char* device,
                const char* subvendor,
                const char* subdevice,
                int numa) {
        pci(chain, vendor, device, "0x060400", numa, subvendor, subdevice);
    }

    /// An RDMA device under the PCI function `pci_dir` (as returned by pci()).
    std::string rdma(const std::string& name, const std::string& pci_dir, const std::string& guid) {
        const auto dir = pci_dir + "/infiniband/" + name;
        file(dir + "/node_guid", guid);
        file(dir + "/fw_ver", "28.39.1002");
        file(dir + "/hca_type", "MT4129");
        file(dir + "/node_type", "1: CA");
        link(dir + "/device", pci_dir);
        link("class/infiniband/" + name, dir);
        return dir;
    }

    void netdev(const std::string& pci_dir, const std::string& name) {
        file(pci_dir + "/net/" + name + "/mtu", "4092");
    }

    struct Port {
        std::string state = "4: ACTIVE";
        std::string phys_state = "5: LinkUp";
        std::string rate = "400 Gb/sec (4X NDR)";
        std::string link_layer = "InfiniBand";
        std::string lid = "0x10";
        std::vector<std::pair<std::string, std::string>> counters{{"link_downed", "0"},
                                                                  {"symbol_error", "0"}};
    };

    std::string port(const std::string& rdma_dir, int n, const Port& p) {
        const auto dir = rdma_dir + "/ports/" + std::to_string(n);
        file(dir + "/state", p.state);
        file(dir + "/phys_state", p.phys_state);
        if (!p.rate.empty()) {
            file(dir + "/rate", p.rate);
        }
        file(dir + "/link_layer", p.link_layer);
        file(dir + "/lid", p.lid);
        file(dir + "/gids/0", "fe80:0000:0000:0000:b8ce:f603:00aa:00" + std::to_string(10 + n));
        file(dir + "/gids/1", "0000:0000:0000:0000:0000:0000:0000:0000");
        for (const auto& [k, v] : p.counters) {
            file(dir + "/counters/" + k, v);
        }
        return dir;
    }

private:
    std::filesystem::path root_;
};

}  // namespace switchyard::test
