// SPDX-License-Identifier: Apache-2.0
// Reading and replacing a whole file, for the CLI, the policy loader and the plugin alike.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

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
    /// Whether a symbolic link at the path is followed; false refuses it ("is a symbolic
    /// link"), for files copied from a directory another user could have placed links in.
    bool follow_links = true;
};

/// The bound for each kind of input. Root trusts only root's copy of the files that decide what
/// it runs, loads or exports: the policy (commands, libraries), the fabric map, hwloc XML.
inline constexpr ReadRules kPolicyInput{std::size_t{4} << 20, true};
inline constexpr ReadRules kFabricInput{std::size_t{512} << 20, true};
/// An ibnetdiscover dump (a 100k-host fabric is a few hundred MB).
inline constexpr ReadRules kDumpInput{kMaxInputFile, false};
/// A GUID → name map, a plan, one node's health verdict.
inline constexpr ReadRules kSmallInput{std::size_t{64} << 20, false};
/// A file in a directory the job's tasks fill for root (discover's --lldp and --node-facts,
/// written through an srun recipe): a symbolic link there is refused, never followed, so no
/// user can make root read a file of root's and print or map its contents.
inline constexpr ReadRules kGatheredInput{std::size_t{16} << 20, false, false};

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

/// Bytes read by range: a file, or (tests, fuzzers) a string.
class ByteSource {
public:
    virtual ~ByteSource() = default;
    /// For messages: the path, or what the bytes are.
    [[nodiscard]] virtual const std::string& name() const = 0;
    [[nodiscard]] virtual std::uint64_t size() const = 0;
    /// Up to `length` bytes at `offset` (fewer only at the end); Error::io on a read error.
    [[nodiscard]] virtual Result<std::string> read_at(std::uint64_t offset,
                                                      std::size_t length) const = 0;
};

/// A string as a ByteSource.
class StringSource final : public ByteSource {
public:
    StringSource(std::string name, std::string_view bytes)
        : name_(std::move(name)), bytes_(bytes) {}
    [[nodiscard]] const std::string& name() const override { return name_; }
    [[nodiscard]] std::uint64_t size() const override { return bytes_.size(); }
    [[nodiscard]] Result<std::string> read_at(std::uint64_t offset,
                                              std::size_t length) const override {
        return offset >= bytes_.size() ? std::string() : std::string(bytes_.substr(offset, length));
    }

private:
    std::string name_;
    std::string_view bytes_;
};

/// An input file opened under `rules` (O_NONBLOCK, no FIFO waited on, regular files only,
/// root's trust rule, the size bound), read piece by piece with pread: what a reader needs to
/// look up a few records of a large file without reading all of it. Never mmap'd: a file
/// truncated under a mapping raises SIGBUS, which would kill slurmstepd.
class InputFile final : public ByteSource {
public:
    /// \return the open file, or Error::io naming `path` and what is wrong with it.
    [[nodiscard]] static Result<InputFile> open(const std::string& path, const ReadRules& rules);
    /// The same for `name` in the directory open as `dir_fd` (no path looked up again: the
    /// directory cannot be swapped between its check and the read); `path` is for messages.
    [[nodiscard]] static Result<InputFile> open_at(int dir_fd,
                                                   const std::string& name,
                                                   const std::string& path,
                                                   const ReadRules& rules);
    InputFile(InputFile&& other) noexcept;
    InputFile& operator=(InputFile&& other) noexcept;
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;
    ~InputFile() override;

    [[nodiscard]] const std::string& name() const override { return path_; }
    /// Size when opened (0 for /proc files, which report none).
    [[nodiscard]] std::uint64_t size() const override { return size_; }
    [[nodiscard]] Result<std::string> read_at(std::uint64_t offset,
                                              std::size_t length) const override;
    /// The whole file, bounded by the rules it was opened with.
    [[nodiscard]] Result<std::string> read_all() const;
    /// The open descriptor (the CLI maps its largest inputs; see common/input.hpp).
    [[nodiscard]] int descriptor() const { return fd_; }

private:
    [[nodiscard]] static Result<InputFile> checked(int fd,
                                                   const std::string& path,
                                                   const ReadRules& rules);
    InputFile(int fd, std::string path, std::uint64_t size, std::size_t max_bytes)
        : fd_(fd), path_(std::move(path)), size_(size), max_bytes_(max_bytes) {}
    int fd_ = -1;
    std::string path_;
    std::uint64_t size_ = 0;
    std::size_t max_bytes_ = 0;
};

/// A 64-bit digest of `bytes` that changes when any byte does (not a cryptographic hash: it
/// tells a file from a changed copy, not from a forgery). Stable across builds and hosts.
[[nodiscard]] std::uint64_t content_digest(std::string_view bytes);

/// The trimmed first line of a small file (a sysfs attribute, at most 4096 bytes), opened as
/// read_text_file opens it (no FIFO waited on, regular files only); nullopt when unreadable.
[[nodiscard]] std::optional<std::string> read_first_line(const std::string& path);

/// For files root loads by name (a library named in the policy): as root, `path` (links
/// followed, as dlopen follows them) must be a regular file owned by root and writable by no one
/// else, and so must its directory; anyone may use anything otherwise.
/// \return Error::io naming the file or directory, its owner and mode.
[[nodiscard]] Result<void> check_trusted_when_root(const std::string& path);

/// `path` opened as a directory (O_DIRECTORY, for InputFile::open_at): as root it must be owned
/// by root and writable by no one else, so nobody else can have put links or files in it.
/// \return the descriptor (the caller closes it), or Error::io naming the directory, its owner
///         and mode.
[[nodiscard]] Result<int> open_input_dir(const std::string& path);

/// The directory of `path`, "." for a bare file name.
[[nodiscard]] std::string parent_directory(const std::string& path);

/// Replaces `path` with `content` without a moment where readers see half a file, and without a
/// predictable temporary name another user could plant a link at: a mkstemp file in the same
/// directory, given `mode`, written, then renamed over `path` (a link at `path` is replaced,
/// never followed). \return Error::io naming the path.
[[nodiscard]] Result<void> replace_file(const std::string& path,
                                        std::string_view content,
                                        unsigned mode);

/// replace_file with the usual mode of an output others read (topology.conf, the fabric map,
/// metrics, pictures): 0666 under the caller's umask.
[[nodiscard]] Result<void> write_file_atomic(const std::string& path, std::string_view content);

}  // namespace switchyard
