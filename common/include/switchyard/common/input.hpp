// SPDX-License-Identifier: Apache-2.0
// Inputs of the commands: a file or standard input within a bound, a large dump mapped, the files
// of a directory in name order, and work on several threads handed over in order. For commands
// only (the switchyard command and the libraries it alone uses): the plugin never maps a file
// or installs a signal handler, and lint:layering refuses this header under plugin/.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "switchyard/common/file.hpp"
#include "switchyard/common/result.hpp"

namespace switchyard {

/// The bytes of `path`, or of standard input for "-", within `rules` (see file.hpp).
[[nodiscard]] Result<std::string> read_input(const std::string& path, const ReadRules& rules);

/// A whole input as text: a regular file mapped read-only (a 320 MB ibnetdiscover dump costs
/// no copy and no zeroed page; its pages come in as the two halves of the parse touch them,
/// which measured 20 ms faster than mapping them all first), or read into memory (standard
/// input, files that report no size, file systems that cannot map).
/// Only the command maps files (the plugin never does: a file shrunk under a mapping raises
/// SIGBUS). While a file is mapped, SIGBUS ends the command with a message naming the file
/// ("shrank while it was read"), exit 1, instead of a crash.
class InputText {
public:
    /// `path` ("-": standard input) opened and checked as read_input does, then mapped.
    [[nodiscard]] static Result<InputText> open(const std::string& path, const ReadRules& rules);
    InputText(InputText&& other) noexcept;
    InputText& operator=(InputText&& other) noexcept;
    InputText(const InputText&) = delete;
    InputText& operator=(const InputText&) = delete;
    ~InputText();

    [[nodiscard]] std::string_view text() const {
        return map_ != nullptr ? std::string_view(static_cast<const char*>(map_), size_)
                               : std::string_view(owned_);
    }

private:
    InputText() = default;
    std::string owned_;
    void* map_ = nullptr;
    std::size_t size_ = 0;
};

/// Hands `value` to the end of the process instead of destroying it: the kernel takes its
/// memory back at exit in one go, where running the destructors of a million fabric nodes took
/// 45 ms of `switchyard discover` at 800k HCAs (clang's -disable-free, for the same reason).
/// The value stays reachable from a static pointer, so a leak checker does not report it. For
/// a command's large results, once nothing else will use them; at most once per type.
template <class T>
void keep_until_exit(T&& value) {
    static T* kept = nullptr;
    if (kept == nullptr) {
        kept = new T(std::forward<T>(value));
    }
}

/// Calls `fn(path, bytes)` for each file of `dir` whose name ends in `extension` (empty: all
/// but hidden ones), in name order, each read within kSmallInput and dropped after the call; at
/// most `max_files` of them. Errors (and the first error of `fn`) name `option`, the directory
/// or file, and `what` the directory should hold.
[[nodiscard]] Result<void> for_each_dir_file(
    const std::string& dir,
    const std::string& option,
    std::string_view extension,
    std::string_view what,
    std::size_t max_files,
    const std::function<Result<void>(const std::string&, std::string&&)>& fn);

/// The files of `dir` for_each_dir_file reads, in name order (paths), without reading them.
[[nodiscard]] Result<std::vector<std::string>> list_dir_files(const std::string& dir,
                                                              const std::string& option,
                                                              std::string_view extension,
                                                              std::string_view what,
                                                              std::size_t max_files);

/// Runs `work(i)` for each i in [0, n) on up to `threads` threads, the caller's among them (1:
/// all on the caller's), and `then(i)` on the caller's thread in order of i, each after its
/// work(i) returned. At most `window` indexes are worked ahead of the next `then`, so a caller
/// keeps work(i)'s result in slot i % window. The first `then` that fails ends it: no later
/// work starts, and its error is returned once the running ones are done. An exception out of
/// `work` is thrown again on the caller's thread, after every thread has stopped.
[[nodiscard]] Result<void> ordered_pipeline(std::size_t n,
                                            unsigned threads,
                                            std::size_t window,
                                            const std::function<void(std::size_t)>& work,
                                            const std::function<Result<void>(std::size_t)>& then);

}  // namespace switchyard
