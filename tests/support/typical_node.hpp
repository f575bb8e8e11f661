// SPDX-License-Identifier: Apache-2.0
// A typical 8-GPU / 10-NIC GPU node as a fake sysfs tree (DGX H100-like: each GPU and its NIC
// behind one PCIe switch, two NUMA nodes, every port ACTIVE with counters, GPU links at max width
// and speed), for the benchmarks of node reading and health checks.
#pragma once

#include <cstdio>
#include <string>

#include "fake_sysfs.hpp"

namespace switchyard::test {

inline void build_typical_gpu_node(FakeSysfs& fs) {
    fs.numa(0, "0-55");
    fs.numa(1, "56-111");
    for (int i = 0; i < 10; ++i) {
        char hb[16];
        char chain[128];
        std::snprintf(hb, sizeof hb, "pci0000:%02x", 0x10 * (i + 1));
        const int b = 0x10 * (i + 1);
        std::snprintf(chain, sizeof chain,
                      "%s/0000:%02x:01.0/0000:%02x:00.0/0000:%02x:00.0/0000:%02x:00.0", hb, b,
                      b + 1, b + 2, b + 3);
        const std::string base(chain);
        fs.bridge(base.substr(0, base.rfind('/')), "0x10b5", "0x8796", "0x10b5", "0x8796", i / 5);
        if (i < 8) {  // the GPU on a sibling downstream port of the same switch
            char gpu[128];
            std::snprintf(gpu, sizeof gpu,
                          "%s/0000:%02x:01.0/0000:%02x:00.0/0000:%02x:01.0/0000:%02x:00.0", hb, b,
                          b + 1, b + 2, b + 4);
            const auto dir = fs.pci(gpu, "0x10de", "0x2330", "0x030200", i / 5);
            fs.file(dir + "/current_link_width", "16");
            fs.file(dir + "/max_link_width", "16");
            fs.file(dir + "/current_link_speed", "32.0 GT/s PCIe");
            fs.file(dir + "/max_link_speed", "32.0 GT/s PCIe");
        }
        const auto nic = fs.pci(base, "0x15b3", "0x1021", "0x020700", i / 5);
        FakeSysfs::Port p;
        p.counters = {{"link_downed", "0"},        {"symbol_error", "0"},
                      {"port_rcv_errors", "0"},    {"link_error_recovery", "0"},
                      {"port_xmit_discards", "0"}, {"local_link_integrity_errors", "0"}};
        fs.port(fs.rdma("mlx5_" + std::to_string(i), nic, "guid"), 1, p);
    }
}

}  // namespace switchyard::test
