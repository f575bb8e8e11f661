// SPDX-License-Identifier: Apache-2.0
// Open-addressing tables internal to the discover library: the slot arithmetic, and an index of
// names by number.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace switchyard::discover::detail {

inline constexpr std::uint32_t kNoName = 0xffffffffU;

/// The slot of a 64-bit key in an open-addressing table of `slots` (below 2^32): the high half
/// of a Fibonacci hash, scaled to the size by multiplication (Lemire's "fastrange"), so a table
/// of any size works; and the slot after `i`, wrapping round.
inline std::size_t slot_of(std::uint64_t key, std::size_t slots) {
    return static_cast<std::size_t>((((key * 0x9E3779B97F4A7C15ULL) >> 32U) * slots) >> 32U);
}
inline std::size_t next_slot(std::size_t i, std::size_t slots) {
    return i + 1 == slots ? 0 : i + 1;
}

/// A hash of a short name, 8 bytes a step.
inline std::uint64_t name_hash(std::string_view s) {
    std::uint64_t h = 0x9E3779B97F4A7C15ULL ^ s.size();
    std::size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
        std::uint64_t w = 0;
        std::memcpy(&w, s.data() + i, 8);
        h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
        h ^= h >> 31U;
    }
    std::uint64_t w = 0;
    std::memcpy(&w, s.data() + i, s.size() - i);
    h = (h ^ w) * 0x94d049bb133111ebULL;
    return h ^ (h >> 29U);
}

/// Names → their numbers, for the names a million records repeat (LLDP systems and ports):
/// open addressing over (number, hash) pairs, kept at most half full, the
/// names themselves kept by the caller in `names` (anything indexable by number that gives
/// something comparable with a string_view); no allocation per name (std::unordered_map's
/// nodes and key copies were a tenth of reading the LLDP files).
class NameIndex {
public:
    /// The number of `name` among `names` (the caller's, by number), or kNoName.
    template <typename Names>
    [[nodiscard]] std::uint32_t find(std::string_view name, const Names& names) const {
        return slots_.empty() ? kNoName : slots_[slot(name, name_hash(name), names)].number;
    }

    /// The number of `name`; when it has none, `add()` gives it one (names[number] == name
    /// once it returns).
    template <typename Names, typename Add>
    std::uint32_t find_or_add(std::string_view name, const Names& names, Add&& add) {
        if (2 * (size_ + 1) > slots_.size()) {
            grow(names);
        }
        const auto h = name_hash(name);
        auto& s = slots_[slot(name, h, names)];
        if (s.number == kNoName) {
            s = {add(), static_cast<std::uint32_t>(h >> 32U)};
            ++size_;
        }
        return s.number;
    }

private:
    struct Slot {
        std::uint32_t number = kNoName;
        std::uint32_t hash = 0;  ///< the high half of the name's
    };
    std::vector<Slot> slots_;
    std::size_t size_ = 0;

    template <typename Names>
    [[nodiscard]] std::size_t slot(std::string_view name,
                                   std::uint64_t h,
                                   const Names& names) const {
        const auto high = static_cast<std::uint32_t>(h >> 32U);
        for (auto i = slot_of(h, slots_.size());; i = next_slot(i, slots_.size())) {
            const auto& s = slots_[i];
            if (s.number == kNoName || (s.hash == high && names[s.number] == name)) {
                return i;
            }
        }
    }

    template <typename Names>
    void grow(const Names& names) {
        auto old = std::move(slots_);
        slots_.assign(std::max<std::size_t>(64, 2 * old.size()), Slot{});
        for (const auto& s : old) {
            if (s.number != kNoName) {
                const auto name = std::string_view(names[s.number]);
                slots_[slot(name, name_hash(name), names)] = s;
            }
        }
    }
};

}  // namespace switchyard::discover::detail
