// SPDX-License-Identifier: Apache-2.0
// Plan and health JSON for `switchyard render`: parsed without exceptions, shapes checked.
#include "switchyard/render/render_input.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "switchyard/common/job_options.hpp"

namespace switchyard::render {
namespace {

using nlohmann::json;

/// "source:line:col: not valid JSON (...)" for text nlohmann rejects.
Error syntax_error(std::string_view text, const std::string& source, const char* expected) {
    std::string why;
    std::size_t at = text.size();
    try {
        [[maybe_unused]] const auto parsed = json::parse(text);
    } catch (const json::parse_error& e) {
        at = std::min(e.byte == 0 ? 0 : e.byte - 1, text.size());
        why = e.what();
        if (const auto p = why.find(": ", why.find("column")); p != std::string::npos) {
            why = why.substr(p + 2);
        }
    } catch (const std::exception& e) {
        why = e.what();
    }
    const auto before = text.substr(0, at);
    const auto line = 1 + std::count(before.begin(), before.end(), '\n');
    const auto nl = before.rfind('\n');
    const auto col = at - (nl == std::string_view::npos ? 0 : nl + 1) + 1;
    return Error::invalid_argument(source + ":" + std::to_string(line) + ":" + std::to_string(col) +
                                   ": not valid JSON (" + why + "); expected " + expected);
}

/// The string member `key` of object `o`, or `fallback` when absent or not a string.
std::string text_of(const json& o, const char* key, const char* fallback) {
    const auto it = o.find(key);
    return it != o.end() && it->is_string() ? it->get<std::string>() : fallback;
}

}  // namespace

Result<void> parse_plan_json(std::string_view text, const std::string& source, RenderOverlay& ov) {
    constexpr const char* kPlanShape =
        "the JSON of `switchyard plan --json` (an object with a \"stages\" list)";
    const auto j = json::parse(text, nullptr, false);
    if (j.is_discarded()) {
        return fail(syntax_error(text, source, kPlanShape));
    }
    const auto stages = j.is_object() ? j.find("stages") : j.end();
    if (!j.is_object() || stages == j.end() || !stages->is_array()) {
        return fail(Error::invalid_argument(source + ": expected " + kPlanShape));
    }
    std::size_t nodes = 0;
    std::size_t index = 0;
    for (const auto& s : *stages) {
        const auto where = source + ": stages[" + std::to_string(index++) + "]";
        const auto num = s.is_object() ? s.find("stage") : s.end();
        const auto list = s.is_object() ? s.find("nodes") : s.end();
        if (!s.is_object() || num == s.end() || !num->is_number_unsigned() || list == s.end() ||
            !list->is_array()) {
            return fail(Error::invalid_argument(
                where + ": each stage needs \"stage\" (a whole number) and \"nodes\" (a list)"));
        }
        const auto stage = num->get<std::uint64_t>();
        if (stage >= kMaxPipelineStages) {
            return fail(Error::invalid_argument(
                where + ": stage " + std::to_string(stage) + " is not below " +
                std::to_string(kMaxPipelineStages) + ", the most stages a plan has"));
        }
        for (const auto& n : *list) {
            if (!n.is_string()) {
                return fail(
                    Error::invalid_argument(where + ": \"nodes\" must hold node names (strings)"));
            }
            ov.stage_of[n.get<std::string>()] = static_cast<unsigned>(stage);
            ++nodes;
        }
        ov.stages = std::max(ov.stages, static_cast<unsigned>(stage) + 1);
    }
    ov.job =
        "plan: " + std::to_string(nodes) + " nodes in " + std::to_string(ov.stages) + " stages";
    return {};
}

Result<HealthVerdict> read_health_verdict(std::string_view text, const std::string& source) {
    constexpr const char* kHealthShape =
        "`switchyard health --json` output (an object with \"node\" and \"verdict\" strings)";
    const auto j = json::parse(text, nullptr, false);
    if (j.is_discarded()) {
        return fail(syntax_error(text, source, kHealthShape));
    }
    const auto node = j.is_object() ? j.find("node") : j.end();
    const auto verdict = j.is_object() ? j.find("verdict") : j.end();
    if (!j.is_object() || node == j.end() || !node->is_string() ||
        node->get_ref<const std::string&>().empty() || verdict == j.end() ||
        !verdict->is_string()) {
        return fail(Error::invalid_argument(source + ": expected " + kHealthShape));
    }
    HealthVerdict v;
    v.node = node->get<std::string>();
    v.failed = *verdict == "fail";
    v.reason = "failed its health checks";
    const auto checks = j.find("checks");
    if (checks == j.end()) {
        return v;
    }
    if (!checks->is_array()) {
        return fail(Error::invalid_argument(
            source + ": \"checks\" must be a list of {\"name\", \"status\", \"detail\"}"));
    }
    bool first_failure = true;
    for (std::size_t i = 0; i < checks->size(); ++i) {
        const auto& c = (*checks)[i];
        if (!c.is_object()) {
            continue;
        }
        if (v.failed && first_failure && text_of(c, "status", "") == "fail") {
            v.reason = text_of(c, "name", "?") + ": " + text_of(c, "detail", "");
            first_failure = false;
        }
        const auto soft = c.find("soft");
        if (soft == c.end()) {
            continue;
        }
        if (!soft->is_number() || !(soft->get<double>() >= 0 && soft->get<double>() <= 1)) {
            return fail(Error::invalid_argument(source + ": checks[" + std::to_string(i) +
                                                "].soft: expected a number from 0 to 1"));
        }
        if (soft->get<double>() > v.soft) {
            v.soft = soft->get<double>();
            v.soft_reason = text_of(c, "name", "?") + ": " + text_of(c, "detail", "");
        }
    }
    return v;
}

Result<void> parse_health_json(std::string_view text,
                               const std::string& source,
                               RenderOverlay& ov) {
    auto v = read_health_verdict(text, source);
    if (!v) {
        return fail(v.error());
    }
    if (v->failed) {
        ov.drained[v->node] = v->reason;
    }
    return {};
}

}  // namespace switchyard::render
