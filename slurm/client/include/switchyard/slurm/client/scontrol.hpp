// SPDX-License-Identifier: Apache-2.0
// Asking slurmctld through scontrol, through a Client: the cluster's topologies and partitions
// for discover's hints and the audit, what `show topology` lists, the reconfigure that install
// must see taken, and the node updates (Weight, RESUME) steer and health make. Every call has
// a deadline and a bound on what it reads; the answers are parsed here (slurm_partitions.hpp
// for the text forms).
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/common/result.hpp"
#include "switchyard/fabric/fabric_map.hpp"
#include "switchyard/slurm/client/client.hpp"
#include "switchyard/slurm/files/slurm_partitions.hpp"

namespace switchyard::slurm {

/// `scontrol ARGS...`'s output (30 s, up to 64 MiB), or why there is none.
[[nodiscard]] Result<std::string> scontrol(Client& client, std::vector<std::string> args);

/// `scontrol show partition --oneliner`, read.
[[nodiscard]] Result<std::vector<PartitionLine>> partitions_from_slurm(Client& client);

/// `scontrol show topology [NAME]` ("default": no name; 25.05+ names a topology by a bare
/// word): its output, and the command line as messages name it.
[[nodiscard]] Result<std::pair<std::string, std::string>> show_topology(Client& client,
                                                                        const std::string& name);

/// `scontrol update NodeName=NODES Weight=W`.
[[nodiscard]] Result<void> set_node_weight(Client& client, const std::string& nodes, unsigned w);

/// `scontrol update NodeName=NODE State=DRAIN Reason=REASON` (15 s); the reason as one
/// printable line of at most kMaxDrainReason bytes (common/strings.hpp).
[[nodiscard]] Result<void> drain_node(Client& client,
                                      const std::string& node,
                                      const std::string& reason);

/// `scontrol requeue JOB`, or with `hold` `scontrol requeuehold JOB` (15 s).
[[nodiscard]] Result<void> requeue_job(Client& client, const std::string& job, bool hold);

/// `scontrol update JobId=JOB ExcNodeList=NODES` (a pending job; 15 s).
[[nodiscard]] Result<void> exclude_nodes(Client& client,
                                         const std::string& job,
                                         const std::string& nodes);

/// `scontrol release JOB` (15 s).
[[nodiscard]] Result<void> release_job(Client& client, const std::string& job);

/// The address slurmctld has for `node` (`scontrol show node -o NODE`, its NodeAddr; 15 s).
/// The value of `key`= in one `scontrol show ... -o` line ("" when absent): the word after it,
/// up to a blank or a newline (values have no blank).
[[nodiscard]] std::string scontrol_field(std::string_view line, std::string_view key);

[[nodiscard]] Result<std::string> node_address(Client& client, const std::string& node);

/// The nodes `job` is kept off (`scontrol show job -o JOB`, its ExcNodeList; "" for none; 15 s).
[[nodiscard]] Result<std::string> excluded_nodes(Client& client, const std::string& job);

/// `scontrol update NodeName=NODE State=RESUME` (15 s).
[[nodiscard]] Result<void> resume_node(Client& client, const std::string& node);

/// The cluster's topologies and partitions, asked of slurmctld (the caller's SLURM_CONF):
/// `scontrol show topoconf` when the cluster runs topology.yaml (25.05+), else the one
/// TopologyPlugin of `show config`.
[[nodiscard]] Result<SlurmTopologies> topologies_from_slurm(Client& client);

/// The cluster's topologies by name and kind: `scontrol show topoconf` (25.05+ with
/// topology.yaml), else one named "default" of the TopologyPlugin's kind (`show config`).
[[nodiscard]] Result<TopologyConfig> topology_config_from_slurm(Client& client);

/// The unit names `scontrol show topology` lists (SwitchName= or BlockName= words).
[[nodiscard]] std::set<std::string> shown_units(std::string_view output);

/// Makes slurmctld load the files of `dir`: job_submit.lua touched (slurmctld before 23.11
/// reloads it, and with it slurm.conf's features, only when its mtime changes), `scontrol
/// reconfigure`, then slurmctld must answer within 60 s and show every SU of `map` in `scontrol
/// show topology`. \return Error::io saying what slurmctld did not do.
[[nodiscard]] Result<void> reconfigure_and_check(Client& client,
                                                 const std::filesystem::path& dir,
                                                 const fabric::FabricMap& map);

}  // namespace switchyard::slurm
