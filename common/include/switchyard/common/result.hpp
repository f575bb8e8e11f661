// SPDX-License-Identifier: Apache-2.0
// Result<T>: a value or an Error; the small subset of std::expected the project uses.
#pragma once

#include <cassert>
#include <type_traits>
#include <utility>
#include <variant>

#include "switchyard/common/error.hpp"

namespace switchyard {

/// Wraps an Error so `return fail(Error::parse(...))` reads like std::unexpected.
struct Failure {
    Error error;
};
inline Failure fail(Error e) {
    return Failure{std::move(e)};
}

/// A value of type T, or the Error that prevented it. Accessing the wrong side is a bug (asserts).
template <typename T>
class [[nodiscard]] Result {
public:
    Result(T value)
        : data_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
    Result(Failure f) : data_(std::in_place_index<1>, std::move(f.error)) {}  // NOLINT

    [[nodiscard]] bool has_value() const { return data_.index() == 0; }
    explicit operator bool() const { return has_value(); }

    T& value() & {
        assert(has_value());
        return std::get<0>(data_);
    }
    const T& value() const& {
        assert(has_value());
        return std::get<0>(data_);
    }
    T&& value() && {
        assert(has_value());
        return std::get<0>(std::move(data_));
    }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

    [[nodiscard]] const Error& error() const {
        assert(!has_value());
        return std::get<1>(data_);
    }

private:
    std::variant<T, Error> data_;
};

/// Result of an operation that yields nothing but may fail.
template <>
class [[nodiscard]] Result<void> {
public:
    Result() = default;
    Result(Failure f) : error_(std::move(f.error)), ok_(false) {}  // NOLINT: implicit by design

    [[nodiscard]] bool has_value() const { return ok_; }
    explicit operator bool() const { return ok_; }
    [[nodiscard]] const Error& error() const {
        assert(!ok_);
        return error_;
    }

private:
    Error error_ = Error::internal("");
    bool ok_ = true;
};

}  // namespace switchyard
