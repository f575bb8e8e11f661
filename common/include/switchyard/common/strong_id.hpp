// SPDX-License-Identifier: Apache-2.0
// StrongId<Tag, T>: distinct types for GUIDs, port numbers and host names.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>

namespace switchyard {

/// A value of type T that only compares with ids of the same Tag.
template <typename Tag, typename T>
class StrongId {
public:
    using value_type = T;
    constexpr StrongId() = default;
    constexpr explicit StrongId(T v) : value_(std::move(v)) {}
    [[nodiscard]] constexpr const T& value() const { return value_; }
    constexpr auto operator<=>(const StrongId&) const = default;

private:
    T value_{};
};

using Guid = StrongId<struct GuidTag, std::uint64_t>;
using PortNum = StrongId<struct PortNumTag, std::uint32_t>;
using HostName = StrongId<struct HostNameTag, std::string>;

}  // namespace switchyard

template <typename Tag, typename T>
struct std::hash<switchyard::StrongId<Tag, T>> {
    std::size_t operator()(const switchyard::StrongId<Tag, T>& id) const noexcept {
        return std::hash<T>{}(id.value());
    }
};
