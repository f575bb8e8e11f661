// SPDX-License-Identifier: Apache-2.0
// NCCL release numbers and the version ranges profiles match (nccl_versions: ">=2.19,<2.23").
#include <algorithm>
#include <string>

#include "switchyard/common/strings.hpp"
#include "switchyard/nccl/nccl_policy.hpp"

namespace switchyard::nccl {

std::optional<NcclVersion> parse_nccl_version(std::string_view s) {
    const auto parts = split(trim(s), '.');
    if (parts.size() < 2 || parts.size() > 3) {
        return std::nullopt;
    }
    NcclVersion v;
    int* fields[] = {&v.major, &v.minor, &v.patch};
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const auto n = parse_uint(parts[i]);
        if (!n || *n > 1000) {
            return std::nullopt;
        }
        *fields[i] = static_cast<int>(*n);
    }
    return v;
}

std::string to_string(const NcclVersion& v) {
    return std::to_string(v.major) + "." + std::to_string(v.minor) +
           (v.patch != 0 ? "." + std::to_string(v.patch) : "");
}

std::optional<VersionRange> parse_version_range(std::string_view s) {
    VersionRange r;
    for (auto part : split(s, ',')) {
        part = trim(part);
        std::size_t op_len = 0;
        while (op_len < part.size() &&
               (part[op_len] == '<' || part[op_len] == '>' || part[op_len] == '=')) {
            ++op_len;
        }
        const auto op = std::string(part.substr(0, op_len));
        const auto v = parse_nccl_version(part.substr(op_len));
        if (!v || (op != ">=" && op != ">" && op != "<" && op != "<=" && op != "==")) {
            return std::nullopt;
        }
        r.bounds.emplace_back(op, *v);
    }
    return r.bounds.empty() ? std::nullopt : std::optional(r);
}

bool VersionRange::contains(const NcclVersion& v) const {
    return std::all_of(bounds.begin(), bounds.end(), [&](const auto& b) {
        const auto& [op, x] = b;
        return op == ">="   ? v >= x
               : op == ">"  ? v > x
               : op == "<"  ? v < x
               : op == "<=" ? v <= x
                            : v == x;
    });
}

}  // namespace switchyard::nccl
