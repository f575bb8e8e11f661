// SPDX-License-Identifier: Apache-2.0
// The step cache: what a step's user_init decided on this node, kept by slurmstepd (root) in a
// root-owned file, so that a later step with the same inputs is set up by the front
// (spank_switchyard.so) alone, without loading the step module (the C++ runtime, yaml-cpp and
// hwloc: 0.8 ms of every step) or reading the policy, the map and the node again.
//
// The file is text, one entry per step decision, newest first:
//   switchyard-step-cache 1 <build>
//   entry
//   words <plugstack word> ...        the key: every line up to the first output
//   node <name> | tasks <n> | env <NAME> =<value> | env <NAME> -
//   stat <path> <dev> <ino> <size> <mtime s ns> <ctime s ns> | stat <path> -
//   text <path> =<content> | text <path> -
//   list <path> <entries> <hash> | list <path> -
//   set <0|1> <NAME> =<value>            the outputs: spank_setenv(NAME, value, overwrite)
//   gpu <index> =<cpu list>              a GPU's NUMA-local CPUs (the task CPU affinity rule)
//   affinity <NAME> <value> <why>        what the rule sets when a task's CPUs are on none of them
//   end
// Every field is escaped (%XX for bytes up to ' ', '%' and from 0x7f), so fields split on
// spaces and lines on '\n'. An input line holds when the line made from the file system (or the
// job) now is the same text: the step module writes them with the functions that check them.
//
// Used by the front, which has no C++ runtime: no allocation through new, no exception, no
// function-local static, libc only.
#pragma once

#include <cstddef>
#include <cstdint>

namespace switchyard::spank::step_cache {

inline constexpr std::size_t kMaxFile = 128 * 1024;  ///< a cache file, read whole
inline constexpr std::size_t kMaxEntry = 32 * 1024;  ///< one entry
inline constexpr int kMaxEntries = 8;                ///< the newest kept per node
inline constexpr std::size_t kMaxText = 256;         ///< a `text` input's content
inline constexpr std::size_t kMaxListNames = 4096;   ///< a `list` input's entries

/// The variable that names the NCCL variables switchyard set for a step.
inline constexpr char kEnvNcclSet[] = "SWITCHYARD_NCCL_SET";

/// Step ids at or above this are Slurm's special steps (batch script, extern, interactive): the
/// step module decides them (and refreshes the node cache) each time.
inline constexpr std::uint32_t kFirstSpecialStepId = 0xfffffff0U;

/// Text appended to a caller's fixed buffer, kept NUL-terminated; `ok` turns false for good
/// when something did not fit (what did fit stays).
struct Out {
    char* data;
    std::size_t cap;  ///< bytes of `data`, the NUL included
    std::size_t len = 0;
    bool ok = true;

    Out(char* buffer, std::size_t size);
    Out& raw(const char* s, std::size_t n);
    Out& str(const char* s);
    Out& num(std::uint64_t v);
    /// `s` escaped: %XX for bytes up to ' ', '%' and from 0x7f.
    Out& esc(const char* s, std::size_t n);
    Out& esc(const char* s);
};

/// Reverses Out::esc into `out` (NUL-terminated); \return its length, or SIZE_MAX when a '%'
/// is not followed by two hex digits or `out` is too small.
std::size_t unescape(const char* s, std::size_t n, char* out, std::size_t cap);

/// The input lines (newline included) that describe `path` as it is now; false when it cannot
/// be described (an error other than its absence, a `text` file over kMaxText bytes, a
/// directory of over kMaxListNames entries) or `o` is full.
bool stat_line(Out& o, const char* path);  ///< its identity: device, inode, size, times
bool text_line(Out& o, const char* path);  ///< its content (a small file: sysfs, boot id)
bool list_line(Out& o, const char* path);  ///< its entries' names (count and a hash)

/// Whether the input line `line` (no newline) of kind stat, text or list still holds; false
/// for another kind.
bool file_input_holds(const char* line, std::size_t len);

/// Checks the job lines of an entry (words, node, tasks, env): the caller knows the job.
using JobCheck = bool (*)(void* ctx, const char* line, std::size_t len);

/// The outputs (from the first `set`/`gpu`/`affinity` line up to `end`, excluded) of the first
/// entry of `text` whose key holds, or {nullptr, 0}. `header` is the file's first line for this
/// build (no newline); a file with another is no match. `files` checks the stat, text and list
/// lines (the file system; the fuzz harness's stands in).
struct Span {
    const char* data = nullptr;
    std::size_t len = 0;
};
Span find_entry(const char* text,
                std::size_t len,
                const char* header,
                JobCheck job,
                void* ctx,
                bool (*files)(const char* line, std::size_t len) = file_input_holds);

/// Splits `line` (no newline) into at most `max` space-separated fields; \return their count.
int split_fields(const char* line, std::size_t len, Span* fields, int max);

/// The file to write: `header`, then `entry` (from "entry\n" to "end\n"), then the entries of
/// `old` (a file of the same header, or anything else, which is dropped) whose keys differ,
/// kMaxEntries in all.
bool merge(Out& o,
           const char* header,
           const char* old,
           std::size_t old_len,
           const char* entry,
           std::size_t entry_len);

/// Reads the cache file `path` into `buf` when it can be trusted: a regular file of this
/// process's effective uid that no one else may write, of at most kMaxFile bytes, in a
/// directory of that uid that no one else may write, opened without following a link or
/// blocking. \return 1 read, 0 absent, -1 refused (`why` says what is wrong, naming the file).
int read_file(const char* path, char* buf, std::size_t cap, std::size_t* len, Out& why);

/// Replaces `path` with `text` (mode 0600) through a new file in the same directory and
/// rename(); makes the directory (0700) when it is missing, refuses one that is not this uid's
/// alone. \return false with `why` set.
bool write_file(const char* path, const char* text, std::size_t len, Out& why);

/// `pattern` with every %n replaced by `node` and %% by %.
bool expand_node(Out& o, const char* pattern, const char* node);

}  // namespace switchyard::spank::step_cache
