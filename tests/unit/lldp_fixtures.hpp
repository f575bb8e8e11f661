// SPDX-License-Identifier: Apache-2.0
// What the LLDP reader's tests share: the real captures and a file's error as text.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "switchyard/discover/lldp/lldp.hpp"

namespace switchyard::discover::test {

/// A file of tests/data/lldp/clos-variant (real lldpd output).
inline std::string capture(const std::string& name) {
    std::ifstream in(std::string(SWITCHYARD_SOURCE_DIR) + "/tests/data/lldp/clos-variant/" + name);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

/// parse_lldp's error for `text` read as x.json, or "parsed".
inline std::string error_of(std::string_view text) {
    auto r = parse_lldp(text, "x.json");
    return r ? std::string("parsed") : r.error().to_string();
}

}  // namespace switchyard::discover::test
