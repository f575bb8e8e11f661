// SPDX-License-Identifier: Apache-2.0
// Logger: the logging interface the core libraries receive; sinks live at the edges.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace switchyard {

/// Notice: a message the user asked for (a report), shown like a warning but without the word.
enum class Level { Error, Warning, Notice, Info, Verbose, Debug };

/// Subsystems, as NCCL's debug subsystem masks.
/// Where a plugin log line comes from: the NCCL environment, the plugin itself, the health gate.
enum class Component { Env, Plugin, Health };

[[nodiscard]] constexpr std::string_view to_string(Level level) {
    switch (level) {
        case Level::Error:
            return "error";
        case Level::Warning:
            return "warning";
        case Level::Notice:
            return "notice";
        case Level::Info:
            return "info";
        case Level::Verbose:
            return "verbose";
        case Level::Debug:
            return "debug";
    }
    return "?";
}

[[nodiscard]] constexpr std::string_view to_string(Component c) {
    switch (c) {
        case Component::Env:
            return "env";
        case Component::Plugin:
            return "plugin";
        case Component::Health:
            return "health";
    }
    return "?";
}

/// Receives log lines. Implementations must not throw.
class Logger {
public:
    virtual ~Logger() = default;
    virtual void log(Level level, Component component, std::string_view message) noexcept = 0;

    void error(Component c, std::string_view m) noexcept { log(Level::Error, c, m); }
    void warning(Component c, std::string_view m) noexcept { log(Level::Warning, c, m); }
    void info(Component c, std::string_view m) noexcept { log(Level::Info, c, m); }
    void verbose(Component c, std::string_view m) noexcept { log(Level::Verbose, c, m); }
    void debug(Component c, std::string_view m) noexcept { log(Level::Debug, c, m); }
};

/// Drops everything.
class NullLogger final : public Logger {
public:
    void log(Level, Component, std::string_view) noexcept override {}
};

/// Keeps every line; tests assert on it.
class CapturingLogger final : public Logger {
public:
    struct Line {
        Level level;
        Component component;
        std::string message;
    };
    void log(Level level, Component component, std::string_view message) noexcept override {
        try {
            lines.push_back({level, component, std::string(message)});
        } catch (...) {  // a test sink out of memory loses the line, never throws
        }
    }
    /// True when some line of `level` contains `needle`.
    [[nodiscard]] bool contains(Level level, std::string_view needle) const {
        for (const auto& l : lines) {
            if (l.level == level && l.message.find(needle) != std::string::npos) {
                return true;
            }
        }
        return false;
    }
    std::vector<Line> lines;
};

}  // namespace switchyard
