// SPDX-License-Identifier: Apache-2.0
// The LLDP reader: a directory of lldpctl outputs, parsed on several threads.
#include <algorithm>
#include <filesystem>
#include <optional>
#include <thread>
#include <vector>

#include "switchyard/common/input.hpp"
#include "switchyard/discover/lldp/lldp.hpp"

namespace switchyard::discover {
namespace {

/// The graph of an --lldp directory: every file read and parsed on up to four threads, and
/// added on this one in name order (a file keeps only its cables once added). At most
/// kLldpWindow parsed files wait for their turn.
Result<FabricGraph> read_lldp(const std::string& dir, const LldpOptions& opt) {
    constexpr std::size_t kLldpWindow = 64;
    const auto paths = list_dir_files(dir, "--lldp", "", "lldpctl outputs (one per host or switch)",
                                      kMaxLldpFiles);
    if (!paths) {
        return fail(paths.error());
    }
    if (paths->empty()) {
        return fail(Error::invalid_argument("--lldp " + dir +
                                            ": no file; expected lldpctl outputs (one per host "
                                            "or switch)"));
    }
    LldpFabric fabric(opt);
    std::vector<std::optional<Result<LldpFile>>> parsed(kLldpWindow);
    const auto threads = std::clamp(std::thread::hardware_concurrency(), 1U, 4U);
    auto ok = ordered_pipeline(
        paths->size(), threads, kLldpWindow,
        [&](std::size_t i) {
            const auto& path = (*paths)[i];
            // Users' tasks write these files: a link is refused, never followed.
            auto text = read_input(path, ReadRules{kMaxLldpFileBytes, false, false});
            if (text && lldp_says_nothing(*text)) {
                parsed[i % kLldpWindow] = LldpFile{path, std::nullopt, {}};  // reported, left out
                return;
            }
            parsed[i % kLldpWindow] =
                text ? parse_lldp(*text, path) : Result<LldpFile>(fail(text.error()));
        },
        [&](std::size_t i) -> Result<void> {
            auto& f = *parsed[i % kLldpWindow];
            if (!f) {
                return fail(f.error());
            }
            fabric.add(std::move(*f));
            parsed[i % kLldpWindow].reset();
            return {};
        });
    if (!ok) {
        return fail(ok.error());
    }
    return fabric.finish();
}

class LldpReader final : public FabricReader {
public:
    LldpReader(std::string dir, LldpOptions options)
        : dir_(std::move(dir)), options_(std::move(options)) {}
    [[nodiscard]] std::string source() const override { return dir_; }
    [[nodiscard]] std::string label() const override {
        return std::filesystem::path(dir_).filename().string() + " (LLDP)";
    }
    [[nodiscard]] Result<FabricGraph> read() override { return read_lldp(dir_, options_); }

private:
    std::string dir_;
    LldpOptions options_;
};

}  // namespace

std::unique_ptr<FabricReader> lldp_reader(std::string dir, LldpOptions options) {
    return std::make_unique<LldpReader>(std::move(dir), std::move(options));
}

}  // namespace switchyard::discover
