// SPDX-License-Identifier: Apache-2.0
// NodeControl over libslurm (available in every Slurm process the plugin is loaded into).
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <string>
#include <string_view>

#include "node_control.hpp"
#include "slurm_compat.hpp"
#include "switchyard/health/drain.hpp"

namespace switchyard::spank {
namespace {

/// Whether Slurm holds the node out of service: drained or draining, down, or failing. Its reason
/// only means something then — Slurm 24.11 keeps a node's last reason after it is resumed
/// (22.05 cleared it), and a stale reason must neither protect a node nor count as a drain.
bool held(const node_info_t& n) {
    return (n.node_state & NODE_STATE_DRAIN) != 0 || (n.node_state & NODE_STATE_FAIL) != 0 ||
           (n.node_state & NODE_STATE_BASE) == NODE_STATE_DOWN;
}

class SlurmNodeControl final : public NodeControl {
public:
    Result<std::string> reason(const std::string& node) override {
        slurm_compat::ensure_api();
        node_info_msg_t* msg = nullptr;
        std::string name = node;
        if (slurm_load_node_single(&msg, name.data(), SHOW_ALL) != SLURM_SUCCESS ||
            msg == nullptr) {
            return fail(Error::io("cannot read node " + node +
                                  " from slurmctld: " + slurm_strerror(errno)));
        }
        std::string out;
        if (msg->record_count > 0 && msg->node_array[0].reason != nullptr &&
            held(msg->node_array[0])) {
            out = msg->node_array[0].reason;
        }
        slurm_free_node_info_msg(msg);
        return out;
    }

    Result<unsigned> partition_size(const std::string& node) override {
        slurm_compat::ensure_api();
        // node_info_t.partitions is only filled by clients that join the two tables, so the
        // membership is read from each partition's node list.
        partition_info_msg_t* msg = nullptr;
        if (slurm_load_partitions(0, &msg, SHOW_ALL) != SLURM_SUCCESS || msg == nullptr) {
            return fail(Error::io("cannot read partitions from slurmctld: " +
                                  std::string(slurm_strerror(errno))));
        }
        unsigned smallest = 0;
        for (uint32_t i = 0; i < msg->record_count; ++i) {
            const auto& p = msg->partition_array[i];
            if (p.nodes == nullptr || (smallest != 0 && p.total_nodes >= smallest)) {
                continue;
            }
            if (slurm_compat::hostlist_contains(p.nodes, node.c_str())) {
                smallest = p.total_nodes;
            }
        }
        slurm_free_partition_info_msg(msg);
        return smallest;
    }

    Result<unsigned> recent_owned_drains(double window_s, double now) override {
        slurm_compat::ensure_api();
        node_info_msg_t* msg = nullptr;
        if (slurm_load_node(0, &msg, SHOW_ALL) != SLURM_SUCCESS || msg == nullptr) {
            return fail(Error::io("cannot read nodes from slurmctld: " +
                                  std::string(slurm_strerror(errno))));
        }
        unsigned n = 0;
        for (uint32_t i = 0; i < msg->record_count; ++i) {
            const auto& node = msg->node_array[i];
            if (node.reason != nullptr && held(node) && health::owned_reason(node.reason) &&
                now - static_cast<double>(node.reason_time) <= window_s) {
                ++n;
            }
        }
        slurm_free_node_info_msg(msg);
        return n;
    }

    Result<void> drain(const std::string& node, const std::string& reason) override {
        slurm_compat::ensure_api();
        update_node_msg_t msg;
        slurm_init_update_node_msg(&msg);
        std::string names = node;
        std::string text = reason;
        msg.node_names = names.data();
        msg.node_state = NODE_STATE_DRAIN;
        msg.reason = text.data();
        slurm_compat::set_reason_uid(msg, static_cast<std::uint32_t>(getuid()));
        if (slurm_update_node(&msg) != SLURM_SUCCESS) {
            return fail(Error::io("cannot drain " + node + ": " + slurm_strerror(errno)));
        }
        return {};
    }
};

}  // namespace

NodeControl& slurm_node_control() {
    static SlurmNodeControl* control =
        new SlurmNodeControl();  // NOLINT: no static destructor in the .so
    return *control;
}

}  // namespace switchyard::spank
