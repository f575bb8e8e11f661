// SPDX-License-Identifier: Apache-2.0
// What several use cases read (ops/inputs.hpp).
#include "switchyard/ops/inputs.hpp"

#include <unistd.h>

#include <utility>

#include "switchyard/common/file.hpp"
#include "switchyard/common/strings.hpp"

namespace switchyard::ops {

std::string short_hostname() {
    char buf[256] = {};
    gethostname(buf, sizeof buf - 1);
    const std::string h = buf;
    return h.substr(0, h.find('.'));
}

Result<fabric::FabricMap> load_fabric_map(const std::string& path) {
    if (path != "-") {
        return fabric::read_fabric_map_file(path);
    }
    auto text = read_input(path, kFabricInput);
    if (!text) {
        return fail(text.error());
    }
    return fabric::read_fabric_map(*text, path);
}

Result<std::vector<std::pair<std::string, std::string>>> read_json_dir(const std::string& dir,
                                                                       const std::string& option) {
    std::vector<std::pair<std::string, std::string>> out;
    auto ok = for_each_dir_file(dir, option, ".json", "`switchyard health --json` outputs",
                                1'000'000, [&](const std::string& path, std::string&& text) {
                                    out.emplace_back(path, std::move(text));
                                    return Result<void>{};
                                });
    if (!ok) {
        return fail(ok.error());
    }
    return out;
}

}  // namespace switchyard::ops
