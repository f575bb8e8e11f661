// SPDX-License-Identifier: Apache-2.0
// Error: the one error type of the core libraries, built only through named factories.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace switchyard {

/// Where in an input an error was found (1-based line and column; 0 = unknown).
struct SourceLoc {
    std::string source;  ///< file name or a label such as "plugstack.conf"
    std::uint32_t line = 0;
    std::uint32_t column = 0;

    [[nodiscard]] std::string to_string() const;
};

/// The kind of an expected failure. Bugs are exceptions, not codes.
enum class ErrorCode {
    InvalidArgument,  ///< a value given by a user or admin is not acceptable
    Parse,            ///< malformed input text
    NotFound,         ///< a file, key, host or device does not exist
    Io,               ///< reading or writing failed
    Unsupported,      ///< valid request this build or environment cannot serve
    Internal,         ///< an invariant broke; reported, never crashes the host process
};

/// An expected failure: a code, a message that names the offending key/value, and maybe a place.
class Error {
public:
    /// A value given on a command line, option or config key is invalid.
    static Error invalid_argument(std::string message) {
        return {ErrorCode::InvalidArgument, std::move(message), std::nullopt};
    }
    /// Malformed input at a known place.
    static Error parse(SourceLoc where, std::string message) {
        return {ErrorCode::Parse, std::move(message), std::move(where)};
    }
    static Error not_found(std::string message) {
        return {ErrorCode::NotFound, std::move(message), std::nullopt};
    }
    static Error io(std::string message) {
        return {ErrorCode::Io, std::move(message), std::nullopt};
    }
    static Error unsupported(std::string message) {
        return {ErrorCode::Unsupported, std::move(message), std::nullopt};
    }
    static Error internal(std::string message) {
        return {ErrorCode::Internal, std::move(message), std::nullopt};
    }

    [[nodiscard]] ErrorCode code() const { return code_; }
    [[nodiscard]] const std::string& message() const { return message_; }
    [[nodiscard]] const std::optional<SourceLoc>& where() const { return where_; }

    /// "file:line:col: message" when a place is known, else the message.
    [[nodiscard]] std::string to_string() const;

private:
    Error(ErrorCode code, std::string message, std::optional<SourceLoc> where)
        : code_(code), message_(std::move(message)), where_(std::move(where)) {}

    ErrorCode code_;
    std::string message_;
    std::optional<SourceLoc> where_;
};

inline std::string SourceLoc::to_string() const {
    std::string out = source;
    if (line > 0) {
        out += ':' + std::to_string(line);
        if (column > 0) {
            out += ':' + std::to_string(column);
        }
    }
    return out;
}

inline std::string Error::to_string() const {
    if (where_) {
        return where_->to_string() + ": " + message_;
    }
    return message_;
}

}  // namespace switchyard
