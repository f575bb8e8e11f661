// SPDX-License-Identifier: Apache-2.0
// NodeProbe: everything the health checks ask of a node, behind one seam. The checks themselves
// (health.hpp) only compare these facts with the policy; the prolog gate, `switchyard health`
// and `--resume` use SystemProbe, tests a fake one.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/common/process.hpp"
#include "switchyard/common/result.hpp"
#include "switchyard/node/node_topology.hpp"
#include "switchyard/node/nvml.hpp"

namespace switchyard::health {

/// NVML's answer (read by the node reader in topology/, judged here).
using NvmlGpu = node::NvmlGpu;
using NvmlFacts = node::NvmlFacts;

/// What lstat says of a path (the IMEX channel device).
struct FileStatus {
    bool exists = false;
    bool char_device = false;
    std::uint32_t uid = 0;
    std::uint32_t mode = 0;  ///< permission bits
    std::string error;       ///< why it could not be looked at, other than being absent
};

/// Free space of a filesystem, in GB (10^9 bytes).
struct FsSpace {
    double free_gb = 0;
};

class NodeProbe {
public:
    virtual ~NodeProbe() = default;
    /// The node's GPUs, NICs (ports and counters included) and shape.
    [[nodiscard]] virtual const node::NodeTopology& node() const = 0;
    /// The first line of a PCI device's attribute ("current_link_width", ...), "" if unreadable.
    [[nodiscard]] virtual std::string pci_attribute(const std::string& busid,
                                                    const std::string& attribute) = 0;
    /// /proc/meminfo's text ("" if unreadable).
    [[nodiscard]] virtual std::string meminfo() = 0;
    [[nodiscard]] virtual Result<FsSpace> filesystem(const std::string& path) = 0;
    /// Whether a new file can be made in `dir` (an unnamed one: nothing to race).
    [[nodiscard]] virtual Result<void> writable(const std::string& dir) = 0;
    /// Runs argv without a shell, in a clean environment, killed at the timeout.
    [[nodiscard]] virtual ProcessRun run(const std::vector<std::string>& argv,
                                         double timeout_s) = 0;
    [[nodiscard]] virtual NvmlFacts nvml(const std::string& library,
                                         bool nvlinks,
                                         double timeout_s) = 0;
    /// lstat of `path` (links are not followed).
    [[nodiscard]] virtual FileStatus file_status(const std::string& path) = 0;
    /// The kernel log since boot: /dev/kmsg's records (read without blocking), or the text of
    /// another file standing for it; at most kMaxKernelLog bytes, the newest kept.
    [[nodiscard]] virtual Result<std::string> kernel_log(const std::string& source) = 0;
    /// A state file this process owns ("" when absent); Error::io when it is not trusted.
    [[nodiscard]] virtual Result<std::string> read_state(const std::string& path) = 0;
    [[nodiscard]] virtual Result<void> write_state(const std::string& path,
                                                   std::string_view content) = 0;
    /// Monotonic seconds (the gate's time budget).
    [[nodiscard]] virtual double seconds() = 0;
};

/// The real node: `node` as read, PCI attributes under `sysfs_root`, /proc/meminfo, statvfs,
/// run_process, libnvidia-ml (dlopen()ed, queried in a thread it leaves behind when NVML hangs),
/// state files through state_file.hpp, the steady clock.
class SystemProbe final : public NodeProbe {
public:
    SystemProbe(const node::NodeTopology& node, std::filesystem::path sysfs_root)
        : node_(node), root_(std::move(sysfs_root)) {}
    [[nodiscard]] const node::NodeTopology& node() const override { return node_; }
    [[nodiscard]] std::string pci_attribute(const std::string& busid,
                                            const std::string& attribute) override;
    [[nodiscard]] std::string meminfo() override;
    [[nodiscard]] Result<FsSpace> filesystem(const std::string& path) override;
    [[nodiscard]] Result<void> writable(const std::string& dir) override;
    [[nodiscard]] ProcessRun run(const std::vector<std::string>& argv, double timeout_s) override;
    [[nodiscard]] NvmlFacts nvml(const std::string& library,
                                 bool nvlinks,
                                 double timeout_s) override;
    [[nodiscard]] FileStatus file_status(const std::string& path) override;
    [[nodiscard]] Result<std::string> kernel_log(const std::string& source) override;
    [[nodiscard]] Result<std::string> read_state(const std::string& path) override;
    [[nodiscard]] Result<void> write_state(const std::string& path,
                                           std::string_view content) override;
    [[nodiscard]] double seconds() override;

private:
    const node::NodeTopology& node_;
    std::filesystem::path root_;
    /// The last NVML answer: the checks that read NVML share one query per gate run.
    std::optional<NvmlFacts> nvml_;
    std::string nvml_library_;
    bool nvml_nvlinks_ = false;
};

/// The most of the kernel log a check reads.
inline constexpr std::size_t kMaxKernelLog = std::size_t{16} << 20;

}  // namespace switchyard::health
