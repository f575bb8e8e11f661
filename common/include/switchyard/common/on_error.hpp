// SPDX-License-Identifier: Apache-2.0
// What an internal error (a policy that cannot be read, sysfs that cannot be, slurmctld that
// does not answer) does: one vocabulary for the plugin's `on_error=` plugstack argument and the
// policy's `health.on_error`.
#pragma once

#include <optional>
#include <string_view>

namespace switchyard {

enum class OnError {
    Fail,  ///< the hook returns an error: the step or the prolog fails (fail-closed)
    Warn,  ///< the hook logs and returns success (fail-open)
};

/// The accepted values, for messages.
inline constexpr std::string_view kOnErrorChoices = "fail, warn";

/// `fail` or `warn`; nothing else (the gate's older `open`/`closed` included).
[[nodiscard]] inline std::optional<OnError> parse_on_error(std::string_view value) {
    if (value == "fail") {
        return OnError::Fail;
    }
    if (value == "warn") {
        return OnError::Warn;
    }
    return std::nullopt;
}

/// "(fail-closed)" / "(fail-open)": what a logged internal error led to.
[[nodiscard]] inline std::string_view on_error_outcome(OnError e) {
    return e == OnError::Fail ? "(fail-closed)" : "(fail-open)";
}

}  // namespace switchyard
