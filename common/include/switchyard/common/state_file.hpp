// SPDX-License-Identifier: Apache-2.0
// State files that root code owns (the health gate's breaker, link-error snapshots): opened
// without following links or blocking, checked with fstat, replaced atomically, kept in a
// directory nobody else can write. Any local user can plant files in /tmp or /var/tmp; root code
// trusts none of them.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "switchyard/common/result.hpp"

namespace switchyard {

/// Largest state file read (the breaker's list and a node's counters are a few KiB).
inline constexpr std::size_t kMaxStateFile = 1u << 20;

/// The directory of a state file, made 0700 when absent (its parent must exist). An existing
/// one must be a real directory (not a link) owned by the running user and writable by nobody
/// else. \return Error::io naming the directory, its owner and mode, and what to change.
[[nodiscard]] Result<void> ensure_private_dir(const std::string& dir);

/// The contents of a state file the running user owns; "" when it does not exist. Opened with
/// O_NOFOLLOW|O_NONBLOCK|O_CLOEXEC, then fstat: it must be a regular file owned by the running
/// user, writable by nobody else, and at most kMaxStateFile bytes.
/// \return Error::io naming the file and why it is not trusted (a link, a FIFO, a directory, its
///         owner, its mode, its size); the caller ignores it and replaces it.
[[nodiscard]] Result<std::string> read_owned_file(const std::string& path);

/// The same for a file `owner` must own: root's files read by code that runs with the user's
/// effective uid (a step's user_init, whose real uid is still root: pass getuid()).
[[nodiscard]] Result<std::string> read_file_owned_by(const std::string& path, unsigned owner);

/// An existing directory (not a link) owned by `owner` that nobody else can write.
/// \return Error::io naming it, its owner and mode.
[[nodiscard]] Result<void> check_owned_dir(const std::string& dir, unsigned owner);

/// Replaces `path` with `content`: a mkstemp file (0600) in the same private directory, written
/// and renamed over the old name. A link at `path` is replaced, never followed.
[[nodiscard]] Result<void> replace_owned_file(const std::string& path, std::string_view content);

/// Opens (creating it 0600 if absent) a lock file for flock, with the same checks as
/// read_owned_file; a planted file, link or FIFO at `path` is replaced first.
/// \return the open descriptor (the caller closes it), or Error::io.
[[nodiscard]] Result<int> open_owned_lock(const std::string& path);

/// Whether `dir` accepts a new file: an unnamed O_TMPFILE file there (mkstemp + unlink where the
/// filesystem has no O_TMPFILE), so no name in a shared directory can be raced.
[[nodiscard]] Result<void> probe_writable(const std::string& dir);

}  // namespace switchyard
