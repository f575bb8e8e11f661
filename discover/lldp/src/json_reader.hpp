// SPDX-License-Identifier: Apache-2.0
// The JSON reader under the LLDP reader (internal to the discover library): a tree of 32-byte
// nodes over the text, strings left in place and decoded only when read, no recursion (the
// open containers kept on a fixed stack of kMaxLldpDepth), positions kept for messages. Two
// readings: a fast one over an index of the structural characters (x86-64), and a careful one
// byte by byte that names the first fault.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/common/error.hpp"
#include "switchyard/common/result.hpp"
#include "switchyard/discover/lldp/lldp.hpp"

namespace switchyard::discover::json {

inline constexpr std::uint32_t kNone = 0xffffffffU;

/// One JSON value: 32 bytes, its text left in place (offsets into the document).
struct JNode {
    enum Kind : std::uint8_t { Object, Array, String, Number, True, False, Null };
    std::uint32_t first = kNone;  ///< a container's first child
    std::uint32_t next = kNone;   ///< the next child of the same container
    std::uint32_t offset = 0;     ///< where the value starts (a string: at its quote)
    std::uint32_t line = 0;
    std::uint32_t key = 0;  ///< where an object member's raw name starts (after its quote)
    std::uint32_t key_len = 0;
    std::uint32_t len = 0;  ///< a scalar's length (a string's without its quotes)
    Kind kind = Null;
    bool escaped = false;  ///< a string holding a backslash
};

/// A string's contents with its escapes decoded.
[[nodiscard]] std::string unescape(std::string_view s);

/// The documents of one text, as a tree of JNodes (roots listed in `roots`). One loop, no
/// recursion: the open containers are kept on a fixed stack of kMaxLldpDepth.
class JsonReader {
public:
    JsonReader(std::string_view text, std::string_view source)
        : t_(text), source_(source), max_values_(text.size() / kMinLldpBytesPerValue + 4096) {}

    /// The fast reading where it applies (x86-64), else or where it gives up the careful one.
    Result<void> parse_all(detail::JsonReading how);

    /// Byte by byte, with the position of the first fault.
    Result<void> parse_careful();

#if defined(__SSE2__)
    /// The second pass over index_json's list; false where the careful reader must read.
    bool parse_indexed();
#endif

    std::vector<JNode> nodes;
    std::vector<std::uint32_t> roots;

    [[nodiscard]] std::string_view key(const JNode& j) const {
        return t_.substr(j.key, j.key_len);
    }
    /// A string's contents without quotes, or a number's or literal's text.
    [[nodiscard]] std::string_view raw(const JNode& j) const {
        return t_.substr(j.offset + (j.kind == JNode::String ? 1U : 0U), j.len);
    }

    [[nodiscard]] SourceLoc where(std::size_t offset) const;

    Error bad(std::size_t offset, const std::string& expected) const;

private:
    /// A container being read.
    struct Open {
        std::uint32_t node;
        std::uint32_t last;  ///< last child appended, kNone before the first
        bool object;
    };
    using OpenStack = std::array<Open, kMaxLldpDepth>;

    /// `v` added to the tree: a root, or the next child of the innermost open container.
    std::uint32_t append(const JNode& v, OpenStack& stack, std::size_t depth);

    std::string_view t_;
    std::string_view source_;
    std::size_t max_values_;  ///< beyond, the text is refused (see kMinLldpBytesPerValue)
    std::size_t p_ = 0;
    std::uint32_t line_ = 1;  ///< of p_ (a newline is whitespace: strings hold none)

    void skip_ws();

    /// The string at p_ (its quote): where its contents start and their length; p_ after it.
    Result<void> string_body(std::uint32_t& start, std::uint32_t& len, bool& escaped);

    /// true, false or null at p_.
    bool literal(JNode& v);

    /// A number at p_ (its characters, read as text only when asked for).
    bool number(JNode& v);
};

}  // namespace switchyard::discover::json
