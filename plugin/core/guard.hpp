// SPDX-License-Identifier: Apache-2.0
// guard(): the one place where C++ failures stop before they reach Slurm's C code.
#pragma once

#include <cstdio>
#include <exception>
#include <new>

namespace switchyard::spank {

/// Receives the guard's one-line report; must not throw.
using GuardSink = void (*)(const char* line) noexcept;

/// Formats "switchyard: <hook>: internal error: <what>" into a fixed buffer (no allocation, so
/// it works after std::bad_alloc) and hands it to `sink`.
inline void guard_report(GuardSink sink, const char* hook, const char* what) noexcept {
    char line[512];
    std::snprintf(line, sizeof line, "switchyard: %s: internal error: %s", hook,
                  what != nullptr ? what : "(null)");
    sink(line);
}

/// Runs `body` (returning int) and turns every exception into a report and `error_rc`.
/// Every extern "C" entry point of the plugin goes through this.
template <typename Body>
int guard(const char* hook, GuardSink sink, int error_rc, Body&& body) noexcept {
    try {
        return body();
    } catch (const std::bad_alloc&) {
        guard_report(sink, hook, "out of memory");
    } catch (const std::exception& e) {
        guard_report(sink, hook, e.what());
    } catch (...) {
        guard_report(sink, hook, "unknown exception");
    }
    return error_rc;
}

}  // namespace switchyard::spank
