// SPDX-License-Identifier: Apache-2.0
// The installed sets of discover's files in the Slurm configuration directory DIR:
//   DIR/switchyard.sets/<UTC time>-<pid>/   one set: discover's files, and under slurm/ the exact
//                                           topology file written to DIR
//   DIR/switchyard -> switchyard.sets/<set>           the set in use (slurm.conf Includes
//                                                     DIR/switchyard/nodes.conf, the filters
//                                                     read DIR/switchyard/job_submit_hints.lua)
//   DIR/switchyard.previous -> switchyard.sets/<set>  what a rollback goes back to
//   DIR/topology.conf or DIR/topology.yaml            what slurmctld reads
// Each name is replaced by a rename, so a reader sees the old set or the new one, never half.
#pragma once

#include <array>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "switchyard/common/result.hpp"
#include "switchyard/fabric/fabric_map.hpp"
#include "switchyard/slurm/files/discover_files.hpp"

namespace switchyard::ops {

using slurm::kDiscoverFiles;

/// The set file that becomes slurmctld's file for a topology kind (tree, block, yaml), and the
/// name slurmctld reads it under.
[[nodiscard]] std::pair<std::string, std::string> slurm_file_for(std::string_view kind);

/// A set's files: name (one of kDiscoverFiles, or "slurm/<file>") → bytes.
using SetFiles = std::map<std::string, std::string>;

/// The store of installed sets under one directory.
class InstallSets {
public:
    explicit InstallSets(std::filesystem::path dir) : dir_(std::move(dir)) {}

    [[nodiscard]] const std::filesystem::path& dir() const { return dir_; }

    /// The topology kind slurmctld reads from DIR: yaml when topology.yaml is there (Slurm
    /// 25.05+ reads it first), block or tree by topology.conf's lines; "" when neither.
    [[nodiscard]] std::string installed_kind() const;

    /// The set in use and the one before it ("switchyard.sets/<set>"), or "" when the link is
    /// missing or not one of ours.
    [[nodiscard]] std::string current() const;
    [[nodiscard]] std::string previous() const;

    /// Whether set `target` holds exactly `files` (the same bytes, no other discover file).
    [[nodiscard]] bool holds(const std::string& target, const SetFiles& files) const;

    /// Writes `files` as a new set and returns its "switchyard.sets/<set>" name. A `switchyard`
    /// directory left by a hand install, or topology files with no set yet, are first kept as
    /// a set of their own ("-before") so that a rollback can go back to them. Nothing is in use
    /// until activate().
    [[nodiscard]] Result<std::string> add(const SetFiles& files);

    /// Puts set `target` in use and names `previous` ("" for none) as the set a rollback goes
    /// back to: the `switchyard.previous` link first, then the set's Slurm file written to DIR
    /// (a topology.yaml left by a yaml set removed when the set has topology.conf: Slurm
    /// 25.05+ would read it first), then the `switchyard` link swapped. If a step fails, what
    /// was done is undone (DIR's topology files and the previous link as they were); the error
    /// says what is left if even that fails.
    [[nodiscard]] Result<void> activate(const std::string& target, const std::string& previous);

    /// The newest set, other than `except`, holding a fabric.map ("switchyard.sets/<set>"), or
    /// "": what the guard compares a capture with when the set in use is a hand-made one.
    [[nodiscard]] std::string newest_with_map(const std::string& except) const;

    /// Removes sets beyond the newest `keep`, never the current or previous one.
    void prune(unsigned keep) const;

private:
    [[nodiscard]] Result<std::string> write_set(const std::string& name,
                                                const SetFiles& files) const;
    [[nodiscard]] Result<void> adopt_existing();

    std::filesystem::path dir_;
};

/// The files of kDiscoverFiles that the discover output directory `from` holds: fabric.map and
/// its index within the fabric map's bound (kFabricInput), job_submit_hints.lua within 1 MiB
/// (what the Lua filters read), nodes.conf within 64 MiB, the others within four times the
/// map's size and 1 MiB (discover writes them from the map). \return the first file that cannot
/// be read.
[[nodiscard]] Result<SetFiles> read_capture(const std::filesystem::path& from);

/// Whether a capture's files are what discover writes from `map` (read from files'
/// fabric.map): fabric.map.index exactly; topology.conf, topology-block.conf, topology.yaml,
/// node-features.conf and node-features.sh line for line, comment lines aside (they name the
/// source). The hints and nodes.conf depend on slurm.conf and --slurm-nodes when discover ran:
/// bounded only. \return the first file that differs, with its first line that does.
[[nodiscard]] Result<void> check_capture(const fabric::FabricMap& map, const SetFiles& files);

}  // namespace switchyard::ops
