// SPDX-License-Identifier: Apache-2.0
// Node health checks for the prolog gate and `switchyard health`: each check compares what a
// NodeProbe reports (ports and counters, GPUs on PCI, NVML, memory, filesystems, external
// commands with a timeout, state files) with the policy and says pass / warn / fail with a
// detail that names what is wrong.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "switchyard/common/on_error.hpp"
#include "switchyard/common/pattern.hpp"
#include "switchyard/fabric/fabric_map.hpp"
#include "switchyard/health/fabric_checks.hpp"
#include "switchyard/health/node_probe.hpp"
#include "switchyard/node/node_topology.hpp"

namespace switchyard::health {

enum class HealthStatus { Pass, Warn, Fail };

/// What a check may say, at most (CheckResult::detail after run_health_checks).
inline constexpr std::size_t kMaxDetail = 2048;
[[nodiscard]] std::string_view to_string(HealthStatus s);

struct CheckResult {
    std::string name;  ///< rdma-ports, gpus, memory, filesystem:/tmp, command:nhc
    HealthStatus status = HealthStatus::Pass;
    std::string detail;
    double duration_ms = 0;
    /// How near a passing check came to failing, 0..1 (link-errors: the largest counter growth
    /// over its maximum): a soft signal that `switchyard steer` turns into a higher Weight.
    double soft = 0;
};

struct RdmaPortsCheck {
    unsigned count = 0;  ///< ACTIVE compute ports expected
    double min_rate_gbps = 0;
    std::string link_layer;  ///< "" = any
    Pattern hca;             ///< compute HCA names (whole); unset in the policy: nccl.compute_hca
};

/// Link flaps: growth of the ports' error counters between two runs of the gate.
struct LinkErrorsCheck {
    std::uint64_t max_growth = 0;  ///< per counter and port between two runs
    Pattern hca;  ///< compute HCA names (whole); unset in the policy: nccl.compute_hca
    std::string state = "/var/lib/switchyard/link-errors";  ///< this host's last snapshot
};

/// GPU memory and link health through NVML (libnvidia-ml, dlopen()ed at run time: no build
/// dependency; a node without it warns). Each GPU: retired pages, pending retirement, row
/// remapping (pending / failed), volatile uncorrected ECC errors, active NVLinks.
struct NvmlCheck {
    std::string library = "libnvidia-ml.so.1";
    std::optional<unsigned> gpus;           ///< GPUs NVML must see
    unsigned max_retired_pages = 60;        ///< single + double bit, per GPU (64 is the budget)
    std::uint64_t max_uncorrected_ecc = 0;  ///< volatile, since the last driver load
    std::optional<unsigned> nvlinks;        ///< active NVLinks each GPU must have
    double timeout_s = 10;                  ///< NVML can hang on a sick GPU
    /// A GPU without persistence mode (nvidia-persistenced not running: the driver is torn
    /// down between jobs, and each job's first CUDA call waits for it): Warn by default, Fail,
    /// or Pass (not judged).
    HealthStatus persistence_off = HealthStatus::Warn;
};

struct FilesystemCheck {
    std::string path;
    double min_free_gb = 0;
    bool writable = false;
};

struct CommandCheck {
    std::string name;
    std::vector<std::string> argv;  ///< no shell
    double timeout_s = 10;
    int ok_exit = 0;
    Pattern fail_pattern;  ///< a match in the output (line by line) fails the check
    std::optional<double>
        min_busbw_gbps;  ///< nccl-tests all_reduce_perf: "Avg bus bandwidth" floor
};

/// The checks the gate runs on a node: the health section's own, or a check set's.
struct HealthChecks {
    std::optional<RdmaPortsCheck> rdma_ports;
    std::optional<LinkErrorsCheck> link_errors;
    std::optional<unsigned> gpus;  ///< GPUs expected on PCI (link width/speed not degraded)
    std::optional<NvmlCheck> nvml;
    std::optional<NvlinkCheck> nvlink;
    std::optional<ImexCheck> imex;
    std::optional<XidCheck> xid;
    std::optional<ClockEventsCheck> clock_events;
    std::optional<double> min_memory_gb;
    /// The node's shape fingerprint expected exactly (GPUs, NICs, NUMA, GPU↔NIC pairing), as
    /// `switchyard node` prints it: a GPU that lost its PIX NIC or a missing NIC changes it.
    std::optional<std::string> shape;
    std::vector<FilesystemCheck> filesystems;
    std::vector<CommandCheck> commands;

    /// Whether a check reads the node's facts (PCI devices, RDMA ports, the shape): when none
    /// does, the node need not be scanned (a few hundred sysfs files on a GPU node).
    [[nodiscard]] bool reads_node_facts() const {
        return rdma_ports || link_errors || gpus || shape;
    }
};

/// Checks for the nodes of some shapes or partitions (health.sets[]): the general checks with
/// those the set names replaced.
struct HealthSet {
    std::string name;
    Pattern shape;      ///< found in the shape fingerprint (as NCCL profiles); empty = any
    Pattern partition;  ///< matches a whole partition name (any of a comma list); empty = any
    HealthChecks checks;
};

/// How many drains the gate may make before it stops (health.breaker).
struct BreakerPolicy {
    unsigned max_nodes = 2;  ///< drains allowed per window before the breaker trips
    double max_percent = 10;
    double window_s = 600;
    std::string state = "/var/lib/switchyard/breaker";
};

/// The policy's health section: what applies to every node (on_error, budget, breaker), the
/// general checks and the check sets.
struct HealthPolicy {
    bool enabled = false;
    OnError on_error = OnError::Warn;  ///< the gate's own errors pass the node (or fail the prolog)
    double budget_s = 30;              ///< all checks of a node together
    HealthChecks checks;
    BreakerPolicy breaker;
    /// The first set that matches a node gives its checks.
    std::vector<HealthSet> sets;

    /// The checks for a node: its set's, else the general ones. `set_name` gets the set's
    /// name ("" for the general checks).
    [[nodiscard]] const HealthChecks& for_node(const std::string& node_shape,
                                               const std::string& partition,
                                               std::string* set_name = nullptr) const;

    /// Whether a set is chosen by the node's shape (then the node is read to choose).
    [[nodiscard]] bool sets_by_shape() const {
        return std::any_of(sets.begin(), sets.end(),
                           [](const HealthSet& s) { return !s.shape.empty(); });
    }
};

/// `c` with %n (the node's name) expanded in its paths (link_errors.state, imex.channel,
/// xid.source, the NVML libraries) and the node's name given to the IMEX check: nodes sharing a
/// filesystem, or emulated on one host, keep apart. `expand_node_path` does the same for
/// breaker.state.
[[nodiscard]] HealthChecks with_node_paths(HealthChecks c, std::string_view node_name);

/// `c` with what the fabric map says of `node_name`: the NVLink domain it must be in
/// (nvlink.expected_domain). `map` may be null (no map: nothing to compare).
[[nodiscard]] HealthChecks with_fabric(HealthChecks c,
                                       const fabric::FabricMap* map,
                                       std::string_view node_name);

/// Every drain reason Switchyard sets starts with this; others' reasons are never touched (the
/// prolog gate, `health --resume` and the breaker all recognise their own by it).
inline constexpr std::string_view kOwnedReasonPrefix = "switchyard:";

/// The result of all checks: the worst status wins.
struct HealthReport {
    HealthStatus verdict = HealthStatus::Pass;
    std::vector<CheckResult> checks;
    /// "switchyard: <check>: <detail>" of the first failed check (the drain reason), or "".
    [[nodiscard]] std::string reason() const;
};

/// RDMA ports: ACTIVE compute ports, rate, link layer.
[[nodiscard]] CheckResult check_rdma_ports(NodeProbe& probe, const RdmaPortsCheck& c);

/// Counters watched by the link-errors check (counters/ files of each port).
[[nodiscard]] const std::vector<std::string>& link_error_counters();

/// Compares the ports' error counters with the snapshot in `c.state` (then replaces it): a
/// counter grown by more than max_growth fails. The first run, and counters that went back
/// (a reset or a reboot), only record the baseline.
[[nodiscard]] CheckResult check_link_errors(NodeProbe& probe, const LinkErrorsCheck& c);

/// GPUs present on PCI and their PCIe links not degraded (current vs max width and speed).
[[nodiscard]] CheckResult check_gpus(NodeProbe& probe, unsigned expected);

/// NVML's view of the GPUs (see NvmlCheck). An NVML that does not answer within c.timeout_s
/// fails the check (SystemProbe leaves its thread behind, never joined, never unloaded).
[[nodiscard]] CheckResult check_nvml(NodeProbe& probe, const NvmlCheck& c);

/// The GPUs' multi-node NVLink fabric (see NvlinkCheck): NVML through the probe; a node whose
/// GPUs take part in no multi-node fabric fails only when the map puts it in a domain.
[[nodiscard]] CheckResult check_nvlink(NodeProbe& probe, const NvlinkCheck& c);

/// The IMEX domain UP, this node READY and connected to every peer, and the channel device
/// present (a character device, with the owner and mode asked for).
[[nodiscard]] CheckResult check_imex(NodeProbe& probe, const ImexCheck& c);

/// XID errors in the kernel log since boot, per code, except c.ignore.
[[nodiscard]] CheckResult check_xid(NodeProbe& probe, const XidCheck& c);

/// Clock-event reasons of every GPU (see ClockEventsCheck).
[[nodiscard]] CheckResult check_clock_events(NodeProbe& probe, const ClockEventsCheck& c);

/// The node's shape fingerprint against the one the policy expects.
[[nodiscard]] CheckResult check_shape(NodeProbe& probe, const std::string& expected);

/// MemTotal of `meminfo` text (/proc/meminfo) against a floor.
[[nodiscard]] CheckResult check_memory(std::string_view meminfo, double min_gb);

/// Mounted (exists), free space, writable.
[[nodiscard]] CheckResult check_filesystem(NodeProbe& probe, const FilesystemCheck& c);

/// Runs argv without a shell, kills it at the timeout (counted as failed), checks exit code,
/// a failure pattern and, for nccl-tests output, the average bus bandwidth.
[[nodiscard]] CheckResult check_command(NodeProbe& probe, const CommandCheck& c);

/// Parses nccl-tests output: the "# Avg bus bandwidth : X" line (GB/s), if present.
[[nodiscard]] std::optional<double> parse_nccl_tests_busbw(std::string_view output);

/// The policy keys of the kinds of check, in the order they run ("rdma_ports", "link_errors",
/// ...): one table drives both the gate and the loader's list of valid keys.
[[nodiscard]] std::vector<std::string_view> health_check_keys();

/// Runs every configured check within `budget_s` (checks left when it runs out fail as "not
/// run: time budget"), in the order of the table of check kinds.
[[nodiscard]] HealthReport run_health_checks(const HealthChecks& checks,
                                             NodeProbe& probe,
                                             double budget_s);

}  // namespace switchyard::health
