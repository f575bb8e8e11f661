// SPDX-License-Identifier: Apache-2.0
// The ibnetdiscover reader: one dump, mapped, parsed, unmapped.
#include <filesystem>

#include "switchyard/common/input.hpp"
#include "switchyard/discover/ib/ibnetdiscover.hpp"

namespace switchyard::discover {
namespace {

class IbnetdiscoverReader final : public FabricReader {
public:
    explicit IbnetdiscoverReader(std::string path) : path_(std::move(path)) {}
    [[nodiscard]] std::string source() const override { return path_ == "-" ? "<stdin>" : path_; }
    [[nodiscard]] std::string label() const override {
        return path_ == "-" ? source() : std::filesystem::path(path_).filename().string();
    }
    [[nodiscard]] Result<FabricGraph> read() override {
        auto text = InputText::open(path_, kDumpInput);
        if (!text) {
            return fail(text.error());
        }
        return parse_ibnetdiscover(text->text(), source());
    }  // the dump is unmapped (or freed) here: the graph holds copies of what it needs

private:
    std::string path_;
};

}  // namespace

std::unique_ptr<FabricReader> ibnetdiscover_reader(std::string path) {
    return std::make_unique<IbnetdiscoverReader>(std::move(path));
}

}  // namespace switchyard::discover
