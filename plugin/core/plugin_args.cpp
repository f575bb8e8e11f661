// SPDX-License-Identifier: Apache-2.0
// plugstack.conf argument parsing for spank_switchyard.so.
#include "plugin_args.hpp"

#include <set>

namespace switchyard::spank {
namespace {

Failure bad_word(std::string_view word, const std::string& why) {
    return fail(
        Error::invalid_argument("plugstack.conf argument '" + std::string(word) + "': " + why));
}

Result<void> apply_key(PluginArgs& args, std::string_view key, std::string_view value) {
    if (key == "config") {
        if (value.empty() || value.front() != '/') {
            return fail(Error::invalid_argument("expected an absolute path, got '" +
                                                std::string(value) + "'"));
        }
        args.config = std::string(value);
        args.config_given = true;
        return {};
    }
    if (key == "step_cache") {
        if (value != "off" && (value.empty() || value.front() != '/')) {
            return fail(Error::invalid_argument(
                "expected an absolute path (%n: the node's name) or off, got '" +
                std::string(value) + "'"));
        }
        args.step_cache = std::string(value);
        return {};
    }
    if (key == "on_error") {
        const auto e = parse_on_error(value);
        if (!e) {
            return fail(Error::invalid_argument("expected one of " + std::string(kOnErrorChoices) +
                                                ", got '" + std::string(value) + "'"));
        }
        args.on_error = *e;
        return {};
    }
    const OptionId id = key == "stage_scope"  ? OptionId::StageScope
                        : key == "rank_order" ? OptionId::RankOrder
                                              : OptionId::NcclEnv;
    return apply_option(args.defaults, id, value);
}

}  // namespace

std::string_view plugin_arg_keys() {
    return "config, stage_scope, rank_order, nccl_env, on_error, step_cache";
}

Result<PluginArgs> parse_plugin_args(const std::vector<std::string_view>& words) {
    static constexpr std::string_view kKeys[] = {"config",   "stage_scope", "rank_order",
                                                 "nccl_env", "on_error",    "step_cache"};
    PluginArgs args;
    std::set<std::string_view> seen;
    for (const auto word : words) {
        const auto eq = word.find('=');
        if (eq == std::string_view::npos) {
            return bad_word(word, "expected key=value");
        }
        const auto key = word.substr(0, eq);
        const auto value = word.substr(eq + 1);
        bool known = false;
        for (const auto k : kKeys) {
            known = known || k == key;
        }
        if (!known) {
            return bad_word(word, "unknown key '" + std::string(key) +
                                      "'; valid keys: " + std::string(plugin_arg_keys()));
        }
        if (!seen.insert(key).second) {
            return bad_word(word, "key '" + std::string(key) + "' given twice");
        }
        if (auto r = apply_key(args, key, value); !r) {
            return bad_word(word, r.error().message());
        }
    }
    return args;
}

}  // namespace switchyard::spank
