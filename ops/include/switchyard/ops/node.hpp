// SPDX-License-Identifier: Apache-2.0
// `switchyard node`: this node's GPUs, NICs, ports and GPU×NIC paths, from hwloc and sysfs, its
// RDMA ports' LLDP neighbours (lldpcli, with a deadline, or a file) and its NVLink domain from
// NVML (with a deadline). The report prints as text, as `--json`, or with `nvlink_only` as the
// NVLink part alone (text, JSON or the one line discover --node-facts reads).
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "switchyard/node/node_json.hpp"
#include "switchyard/node/node_topology.hpp"
#include "switchyard/ops/deps.hpp"

namespace switchyard::ops {

struct NodeRequest {
    std::string hwloc_xml;
    std::string sysfs_root;
    std::string lldp;  ///< a file of lldpctl output, "lldpcli", "off" or "" (lldpcli when live)
    std::string lldpd_socket;
    std::string nvml;  ///< libnvidia-ml to ask, "off", or "" (the driver's when live)
    bool nvlink_only = false;
    bool line = false;
    std::string host;
    bool json = false;
};

struct NodeReport {
    int rc = 0;
    std::string error;                           ///< why it could not read the node (rc 1)
    std::string host;                            ///< with `line`: the host the line names
    std::optional<node::NodeTopology> topology;  ///< unset with `nvlink_only`
    std::string verbs;                           ///< libibverbs' cross-check, live only
    node::LldpView lldp;
    node::NvlinkView nvlink;
};

[[nodiscard]] NodeReport run_node(const NodeRequest& request, Deps& deps);

/// The report in the form the request asked (text, JSON, the NVLink part, its line); the
/// error to `err`.
void print_node(const NodeRequest& request,
                const NodeReport& report,
                std::ostream& out,
                std::ostream& err);

}  // namespace switchyard::ops
