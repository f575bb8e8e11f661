// SPDX-License-Identifier: Apache-2.0
// Reading and replacing a whole file, for the CLI, the policy loader and the plugin alike.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "switchyard/common/result.hpp"

namespace switchyard {

/// Largest input read by default (an ibnetdiscover dump of a 100k-host fabric is a few hundred
/// MB; the policy, map and XML loaders ask for less).
inline constexpr std::size_t kMaxInputFile = std::size_t{1} << 30;

struct ReadRules {
    std::size_t max_bytes = kMaxInputFile;
    /// When the process runs as root: the file must be owned by root and writable by no one
    /// else (as sshd and sudo require of their configuration). For files that decide what root
    /// runs or loads: the policy, the fabric map, hwloc XML.
    bool trusted_when_root = false;
};

/// The bound for each kind of input. Root trusts only root's copy of the files that decide what
/// it runs, loads or exports: the policy (commands, libraries), the fabric map, hwloc XML.
inline constexpr ReadRules kPolicyInput{std::size_t{4} << 20, true};
inline constexpr ReadRules kFabricInput{std::size_t{512} << 20, true};
/// An ibnetdiscover dump (a 100k-host fabric is a few hundred MB).
inline constexpr ReadRules kDumpInput{kMaxInputFile, false};
/// A GUID → name map, a plan, one node's health verdict.
inline constexpr ReadRules kSmallInput{std::size_t{64} << 20, false};

/// What a file of this st_mode is, for messages: "a directory", "a FIFO", "a symbolic link",
/// "a device", "a socket", or "not a regular file".
[[nodiscard]] std::string file_kind(unsigned mode);

/// A file's permission bits as ls and chmod write them ("0644"), for messages.
[[nodiscard]] std::string file_mode_text(unsigned mode);

/// The bytes of `path`; Error::io naming it. Files that report no size (/proc) are read to
/// their end. Directories, FIFOs, devices and sockets are refused by name without reading (a
/// FIFO is never waited on), and so is anything above rules.max_bytes.
[[nodiscard]] Result<std::string> read_text_file(const std::string& path,
                                                 const ReadRules& rules = {});

/// For files root loads by name (a library named in the policy): as root, `path` (links
/// followed, as dlopen follows them) must be a regular file owned by root and writable by no one
/// else, and so must its directory; anyone may use anything otherwise.
/// \return Error::io naming the file or directory, its owner and mode.
[[nodiscard]] Result<void> check_trusted_when_root(const std::string& path);

/// The directory of `path`, "." for a bare file name.
[[nodiscard]] std::string parent_directory(const std::string& path);

/// Replaces `path` with `content` without a moment where readers see half a file, and without a
/// predictable temporary name another user could plant a link at: a mkstemp file in the same
/// directory, given `mode`, written, then renamed over `path` (a link at `path` is replaced,
/// never followed). \return Error::io naming the path.
[[nodiscard]] Result<void> replace_file(const std::string& path,
                                        std::string_view content,
                                        unsigned mode);

}  // namespace switchyard
