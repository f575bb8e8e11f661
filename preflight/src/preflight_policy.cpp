// SPDX-License-Identifier: Apache-2.0
#include "switchyard/preflight/preflight_policy.hpp"

namespace switchyard::preflight {

std::string_view to_string(Mode m) {
    switch (m) {
        case Mode::Off:
            return "off";
        case Mode::Quick:
            return "quick";
        case Mode::Full:
            return "full";
    }
    return "off";
}

std::optional<Mode> mode_from_string(std::string_view s) {
    if (s == "off") {
        return Mode::Off;
    }
    if (s == "quick") {
        return Mode::Quick;
    }
    if (s == "full") {
        return Mode::Full;
    }
    return std::nullopt;
}

std::string_view to_string(OnLinkFault o) {
    return o == OnLinkFault::Warn ? "warn" : "requeue";
}

std::string installed_command() {
    return SWITCHYARD_INSTALL_BINDIR "/switchyard";
}

Mode PreflightPolicy::mode_for(std::string_view partition, std::optional<Mode> asked) const {
    if (asked) {
        return *asked;
    }
    for (const auto& [name, m] : partitions) {
        if (name == partition) {
            return m;
        }
    }
    return mode;
}

}  // namespace switchyard::preflight
