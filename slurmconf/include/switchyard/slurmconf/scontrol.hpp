// SPDX-License-Identifier: Apache-2.0
// Asking slurmctld through scontrol: the cluster's topologies and partitions for discover's
// hints, and the reconfigure that install must see taken. Every call has a deadline and a bound
// on what it reads; the answers are parsed here (slurm_partitions.hpp for the text forms).
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/common/process.hpp"
#include "switchyard/common/result.hpp"
#include "switchyard/fabric/fabric_map.hpp"
#include "switchyard/slurmconf/slurm_partitions.hpp"

namespace switchyard::slurmconf {

/// Why a call of a Slurm command (scontrol, sinfo) failed, in words an operator can act on.
[[nodiscard]] std::string slurm_problem(const ProcessRun& r, std::string_view command);

/// The output of a Slurm command `argv` (scontrol, squeue, sinfo; `timeout_s`, up to 64 MiB),
/// or why there is none.
[[nodiscard]] Result<std::string> slurm_command(const std::vector<std::string>& argv,
                                                double timeout_s = 30);

/// `scontrol ARGS...`'s output (30 s, up to 64 MiB), or why there is none.
[[nodiscard]] Result<std::string> scontrol(const std::vector<std::string>& args);

/// The cluster's topologies and partitions, asked of slurmctld (the caller's SLURM_CONF):
/// `scontrol show topoconf` when the cluster runs topology.yaml (25.05+), else the one
/// TopologyPlugin of `show config`.
[[nodiscard]] Result<SlurmTopologies> topologies_from_slurm();

/// The cluster's topologies by name and kind: `scontrol show topoconf` (25.05+ with
/// topology.yaml), else one named "default" of the TopologyPlugin's kind (`show config`).
[[nodiscard]] Result<TopologyConfig> topology_config_from_slurm();

/// The unit names `scontrol show topology` lists (SwitchName= or BlockName= words).
[[nodiscard]] std::set<std::string> shown_units(std::string_view output);

/// Makes slurmctld load the files of `dir`: job_submit.lua touched (slurmctld before 23.11
/// reloads it, and with it slurm.conf's features, only when its mtime changes), `scontrol
/// reconfigure`, then slurmctld must answer within 60 s and show every SU of `map` in `scontrol
/// show topology`. \return Error::io saying what slurmctld did not do.
[[nodiscard]] Result<void> reconfigure_and_check(const std::filesystem::path& dir,
                                                 const fabric::FabricMap& map);

}  // namespace switchyard::slurmconf
