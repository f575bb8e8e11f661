// SPDX-License-Identifier: Apache-2.0
// The policy loader's YAML helpers (internal to the policy library): every read checks the
// node's shape first and records a problem with file:line:col, the key path, what was expected
// and what was found; section readers derive from it and share one list of problems.
#pragma once

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/common/strings.hpp"
#include "switchyard/policy/policy.hpp"

namespace switchyard::policy {

class YamlReader {
public:
    YamlReader(std::string source, std::vector<ConfigProblem>& problems)
        : source_(std::move(source)), problems_(problems) {}

protected:
    std::string source_;
    std::vector<ConfigProblem>& problems_;

    void problem(const YAML::Node& at, std::string key, std::string message) {
        const auto m = at.Mark();
        problems_.push_back({SourceLoc{source_, static_cast<std::uint32_t>(m.line + 1),
                                       static_cast<std::uint32_t>(m.column + 1)},
                             std::move(key), std::move(message)});
    }

    static std::string scalar(const YAML::Node& n) {
        return n.IsScalar() ? n.Scalar() : std::string("<not a scalar>");
    }

    /// The text of a scalar `n`; a problem ("expected `what`") and "" when it is a list or map.
    std::string text(const YAML::Node& n, const std::string& key, const char* what) {
        if (!n.IsScalar()) {
            problem(n, key, std::string("expected ") + what + ", got a list or mapping");
            return {};
        }
        return n.Scalar();
    }

    static std::string join_keys(const std::vector<std::string_view>& allowed) {
        std::string s;
        for (const auto k : allowed) {
            s += (s.empty() ? "" : ", ") + std::string(k);
        }
        return s;
    }

    /// `map` must be a mapping whose every key is one of `allowed`; false (one problem) when it
    /// is not a mapping at all, so the caller reads nothing from it.
    bool keys(const YAML::Node& map,
              const std::string& prefix,
              const std::vector<std::string_view>& allowed) {
        if (!map.IsMap()) {
            auto key = prefix;
            if (!key.empty() && key.back() == '.') {
                key.pop_back();
            }
            problem(map, key, "expected a mapping with keys " + join_keys(allowed));
            return false;
        }
        for (auto it = map.begin(); it != map.end(); ++it) {
            const auto k = it->first.IsScalar() ? it->first.Scalar() : std::string("?");
            if (std::find(allowed.begin(), allowed.end(), k) == allowed.end()) {
                problem(it->first, prefix + k,
                        "unknown key; expected one of " + join_keys(allowed));
            }
        }
        return true;
    }

    /// `n` must be a list (of what `what` says); false (one problem) when it is not.
    bool list_of(const YAML::Node& n, const std::string& key, const char* what) {
        if (!n.IsSequence()) {
            problem(n, key, std::string("expected a list of ") + what);
            return false;
        }
        return true;
    }

    std::optional<YAML::Node> section(const YAML::Node& root,
                                      const char* name,
                                      const std::vector<std::string_view>& allowed) {
        const auto n = root[name];
        if (!n || n.IsNull()) {
            return std::nullopt;
        }
        if (!n.IsMap()) {
            problem(n, name, "must be a mapping; expected keys " + join_keys(allowed));
            return std::nullopt;
        }
        keys(n, std::string(name) + ".", allowed);
        return n;
    }

    std::string path(const YAML::Node& n, const std::string& key, bool allow_node_name) {
        if (!n) {
            return {};
        }
        const auto v = scalar(n);
        if (v.empty() || v.front() != '/') {
            problem(n, key,
                    "expected an absolute path" +
                        std::string(allow_node_name ? " (%n = node name)" : "") + ", got '" + v +
                        "'");
            return {};
        }
        return v;
    }

    std::optional<bool> boolean(const YAML::Node& n, const std::string& key) {
        bool b = false;
        if (!n.IsScalar() || !YAML::convert<bool>::decode(n, b)) {
            problem(n, key, "expected true or false, got '" + scalar(n) + "'");
            return std::nullopt;
        }
        return b;
    }

    std::optional<unsigned> number(const YAML::Node& n,
                                   const std::string& key,
                                   unsigned lo,
                                   unsigned hi) {
        const auto v = parse_uint(scalar(n));
        if (!v || *v < lo || *v > hi) {
            problem(n, key,
                    "expected a whole number from " + std::to_string(lo) + " to " +
                        std::to_string(hi) + ", got '" + scalar(n) + "'");
            return std::nullopt;
        }
        return static_cast<unsigned>(*v);
    }

    /// A policy regex: bounded and compiled by Pattern::compile, the problem named at the key.
    bool regex_ok(const YAML::Node& n, const std::string& key) {
        auto p = Pattern::compile(scalar(n));
        if (!p) {
            problem(n, key, p.error().message());
            return false;
        }
        return true;
    }

    std::optional<double> positive(const YAML::Node& n, const std::string& key, double hi) {
        double v = 0;
        if (!n.IsScalar() || !YAML::convert<double>::decode(n, v) || !(v > 0) || v > hi) {
            problem(n, key,
                    "expected a number above 0 and at most " +
                        std::to_string(static_cast<long long>(hi)) + ", got '" + scalar(n) + "'");
            return std::nullopt;
        }
        return v;
    }
};

}  // namespace switchyard::policy
