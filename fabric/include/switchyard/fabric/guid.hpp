// SPDX-License-Identifier: Apache-2.0
// GUIDs (InfiniBand node and port GUIDs, and the MACs LLDP names chassis by) read and written
// the one way every file of the project spells them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace switchyard::fabric {

/// Parses a GUID as ibnetdiscover, sysfs and ibstat print them: "0x2c5eab0300b87b40",
/// "2c5eab0300b87b40" or "2c5e:ab03:00b8:7b40".
[[nodiscard]] std::optional<std::uint64_t> parse_guid(std::string_view s);

/// "0x%016x".
[[nodiscard]] std::string format_guid(std::uint64_t guid);

/// "aa:bb:cc:dd:ee:ff" → its 48-bit value; nullopt when `s` is not a MAC.
[[nodiscard]] std::optional<std::uint64_t> parse_mac(std::string_view s);

}  // namespace switchyard::fabric
