// SPDX-License-Identifier: Apache-2.0
// discover --expect-cabling: the cable counts an admin's design gives, one "<key> <count>" line
// each, instead of the counts judged from the fabric itself.
#include <string>

#include "switchyard/common/strings.hpp"
#include "switchyard/discover/classify/classify.hpp"

namespace switchyard::discover {

Result<ExpectedCabling> parse_expected_cabling(std::string_view text, std::string_view source) {
    ExpectedCabling out;
    std::uint32_t line_no = 0;
    for (auto line : split(text, '\n')) {
        ++line_no;
        auto bad = [&](const std::string& why) {
            return fail(Error::parse(SourceLoc{std::string(source), line_no, 0},
                                     why +
                                         "; expected 'leaf-spine-cables <count>' or "
                                         "'global-cables <count>', a count from 1 to " +
                                         std::to_string(kMaxExpectedCables)));
        };
        if (const auto hash = line.find('#'); hash != std::string_view::npos) {
            line = line.substr(0, hash);
        }
        std::vector<std::string_view> f;
        for (auto w : split(line, ' ')) {
            for (auto t : split(w, '\t')) {
                if (!trim(t).empty()) {
                    f.push_back(trim(t));
                }
            }
        }
        if (f.empty()) {
            continue;
        }
        const std::string key(f[0].substr(0, 60));
        std::optional<std::uint32_t>* slot = key == "leaf-spine-cables" ? &out.leaf_spine
                                             : key == "global-cables"   ? &out.global
                                                                        : nullptr;
        if (slot == nullptr) {
            return bad("unknown key '" + key + "'");
        }
        if (f.size() != 2) {
            return bad(key + " takes one count, got " + std::to_string(f.size() - 1) + " words");
        }
        const auto n = parse_uint(f[1]);
        if (!n || *n < 1 || *n > kMaxExpectedCables) {
            return bad(key + ": '" + std::string(f[1].substr(0, 40)) + "' is not a count");
        }
        if (slot->has_value()) {
            return bad(key + " is given twice");
        }
        *slot = static_cast<std::uint32_t>(*n);
    }
    return out;
}

}  // namespace switchyard::discover
