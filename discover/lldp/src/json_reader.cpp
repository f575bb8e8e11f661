// SPDX-License-Identifier: Apache-2.0
// The JSON reader under the LLDP reader: the index of structural characters (SSE2), the two
// readings over it, unescaping.
#include "json_reader.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace switchyard::discover::json {
namespace {

/// The first position from `p` that is not a space (or the text's size).
std::size_t skip_spaces(std::string_view t, std::size_t p) {
#if defined(__SSE2__)
    const __m128i space = _mm_set1_epi8(' ');
    while (t.size() - p >= 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(t.data() + p));
        const auto other =
            ~static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, space))) & 0xffffU;
        if (other != 0) {
            return p + static_cast<std::size_t>(std::countr_zero(other));
        }
        p += 16;
    }
#endif
    while (p < t.size() && t[p] == ' ') {
        ++p;
    }
    return p;
}

/// The first position from `p` inside a string that needs a look: a quote, a backslash or a
/// control character (or the text's size).
std::size_t skip_plain(std::string_view t, std::size_t p) {
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i control = _mm_set1_epi8(0x1f);
    while (t.size() - p >= 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(t.data() + p));
        const __m128i hit =
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                         _mm_cmpeq_epi8(_mm_max_epu8(v, control), control));  // v <= 0x1f
        const auto mask = static_cast<unsigned>(_mm_movemask_epi8(hit));
        if (mask != 0) {
            return p + static_cast<std::size_t>(std::countr_zero(mask));
        }
        p += 16;
    }
#endif
    while (p < t.size()) {
        const auto c = static_cast<unsigned char>(t[p]);
        if (c == '"' || c == '\\' || c < 0x20) {
            return p;
        }
        ++p;
    }
    return p;
}

#if defined(__SSE2__)
// The fast reading of a JSON text, in two passes as simdjson reads (Langdale and Lemire,
// "Parsing gigabytes of JSON per second"): first every 64 bytes are classified at once into
// bit masks (quotes not escaped, inside strings, structural characters, newlines), and the
// positions a reader has to stop at are listed; then the tree is built from that list alone,
// never looking at indentation or at a string's body. It reads only well-formed text: at the
// first thing it does not expect (a control character in a string, a backslash or a word out
// of place, a string not closed) it gives up, and the careful byte-by-byte reader reads the
// text again, so messages name line and column as before and the two agree on every text
// (the lldp fuzz harness checks both on each input).

/// `x` with each bit the XOR of it and every bit below: from the quote bits, the bits inside
/// strings (an opening quote and the body, not the closing quote).
constexpr std::uint64_t prefix_xor(std::uint64_t x) {
    x ^= x << 1U;
    x ^= x << 2U;
    x ^= x << 4U;
    x ^= x << 8U;
    x ^= x << 16U;
    x ^= x << 32U;
    return x;
}

/// The number of bits set (std::popcount is a library call where the target has no POPCNT,
/// as Debian's x86-64 baseline has not).
constexpr std::uint32_t ones(std::uint64_t x) {
    x -= (x >> 1U) & 0x5555555555555555ULL;
    x = (x & 0x3333333333333333ULL) + ((x >> 2U) & 0x3333333333333333ULL);
    x = (x + (x >> 4U)) & 0x0f0f0f0f0f0f0f0fULL;
    return static_cast<std::uint32_t>((x * 0x0101010101010101ULL) >> 56U);
}

/// Bits [0, k) set (k below 64).
constexpr std::uint64_t below(std::size_t k) {
    return (std::uint64_t{1} << k) - 1U;
}

/// The first pass's result.
struct JsonIndex {
    std::vector<std::uint32_t> at;        ///< structural characters, opening quotes, word starts
    std::vector<std::uint64_t> quotes;    ///< quotes not escaped, 64 positions a word
    std::vector<std::uint64_t> newlines;  ///< '\n', 64 positions a word
    bool backslash = false;               ///< a backslash anywhere
};

/// The first pass; false when the text needs the careful reader (a control character inside a
/// string, a string not closed).
bool index_json(std::string_view t, JsonIndex& ix) {
    const std::size_t n = t.size();
    const std::size_t blocks = (n + 63) / 64;
    ix.quotes.resize(blocks);
    ix.newlines.resize(blocks);
    ix.at.reserve(n / 8 + 64);
    // Pretty lldpctl JSON has one structural character in 9 bytes, compact JSON one in 2.
    const std::size_t max_at = n / 2 + 4096;
    std::uint64_t inside_carry = 0;  // all ones when the last block ended inside a string
    std::uint64_t word_carry = 0;    // 1 when the last block ended inside a word
    bool escape_carry = false;       // the last block ended with a backslash not escaped
    alignas(16) std::array<char, 64> tail{};
    for (std::size_t b = 0; b < blocks; ++b) {
        const char* p = t.data() + b * 64;
        if (n - b * 64 < 64) {  // the last block, padded with spaces
            tail.fill(' ');
            std::copy(p, t.data() + n, tail.begin());
            p = tail.data();
        }
        std::uint64_t quote = 0;
        std::uint64_t bs = 0;
        std::uint64_t ws = 0;
        std::uint64_t structural = 0;
        std::uint64_t control = 0;
        std::uint64_t nl = 0;
        for (std::size_t k = 0; k < 4; ++k) {
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
            const auto bits = [k](__m128i m) {
                return static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(m)))
                       << (16U * k);
            };
            const __m128i newline = _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'));
            const __m128i low = _mm_set1_epi8(0x1f);
            const __m128i folded = _mm_or_si128(v, _mm_set1_epi8(0x20));  // '[' → '{', ']' → '}'
            quote |= bits(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')));
            bs |= bits(_mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
            nl |= bits(newline);
            ws |= bits(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')), newline),
                                    _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\t')),
                                                 _mm_cmpeq_epi8(v, _mm_set1_epi8('\r')))));
            structural |=
                bits(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(folded, _mm_set1_epi8('{')),
                                               _mm_cmpeq_epi8(folded, _mm_set1_epi8('}'))),
                                  _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(':')),
                                               _mm_cmpeq_epi8(v, _mm_set1_epi8(',')))));
            control |= bits(_mm_cmpeq_epi8(_mm_max_epu8(v, low), low));
        }
        // Characters escaped by a backslash (itself not escaped): a few in the odd file, so
        // bit by bit.
        std::uint64_t escaped = escape_carry ? 1U : 0U;
        escape_carry = false;
        if (bs != 0) {
            ix.backslash = true;
            for (std::uint64_t m = bs; m != 0; m &= m - 1) {
                const auto i = static_cast<unsigned>(std::countr_zero(m));
                if (((escaped >> i) & 1U) != 0) {
                    continue;
                }
                if (i == 63) {
                    escape_carry = true;
                } else {
                    escaped |= std::uint64_t{1} << (i + 1);
                }
            }
        }
        quote &= ~escaped;
        const std::uint64_t inside = prefix_xor(quote) ^ inside_carry;
        inside_carry = static_cast<std::uint64_t>(static_cast<std::int64_t>(inside) >> 63);
        if ((control & inside) != 0) {
            return false;
        }
        structural &= ~inside;
        const std::uint64_t word = ~(inside | quote | ws | structural);
        const std::uint64_t word_start = word & ~((word << 1U) | word_carry);
        word_carry = word >> 63U;
        if (ix.at.size() > max_at) {
            return false;  // tiny values, too many to index: the careful reading refuses them
        }
        for (std::uint64_t m = structural | (quote & inside) | word_start; m != 0; m &= m - 1) {
            ix.at.push_back(
                static_cast<std::uint32_t>(b * 64 + static_cast<std::size_t>(std::countr_zero(m))));
        }
        ix.quotes[b] = quote;
        ix.newlines[b] = nl;
    }
    return inside_carry == 0;
}
#endif

}  // namespace

std::string unescape(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '\\' || i + 1 == s.size()) {
            out += s[i];
            continue;
        }
        const char c = s[++i];
        switch (c) {
            case 'n':
                out += '\n';
                break;
            case 't':
                out += '\t';
                break;
            case 'r':
                out += '\r';
                break;
            case 'b':
                out += '\b';
                break;
            case 'f':
                out += '\f';
                break;
            case 'u': {
                unsigned v = 0;
                const auto hex = s.substr(i + 1, 4);
                if (hex.size() == 4 &&
                    std::from_chars(hex.data(), hex.data() + 4, v, 16).ptr == hex.data() + 4) {
                    i += 4;
                    // Names are ASCII in practice; anything else becomes '?' rather than be
                    // encoded (a system name with it is reported under its chassis id anyway).
                    out += v < 0x80 ? static_cast<char>(v) : '?';
                }
                break;
            }
            default:
                out += c;  // \" \\ \/
        }
    }
    return out;
}

// Pretty-printed lldpctl JSON is mostly indentation and short strings: the two scans below
// take 16 bytes a step where SSE2 is there (every x86-64), byte by byte elsewhere and at the
// end of the text. Neither reads past the text.

Result<void> JsonReader::parse_all(detail::JsonReading how) {
#if defined(__SSE2__)
    if (how != detail::JsonReading::Careful) {
        if (parse_indexed()) {
            return {};
        }
        nodes.clear();
        roots.clear();
        p_ = 0;
    }
#endif
    if (how == detail::JsonReading::Fast) {
        return fail(
            Error::parse(SourceLoc{std::string(source_), 1, 1}, "the fast reading gave up"));
    }
    return parse_careful();
}

Result<void> JsonReader::parse_careful() {
    OpenStack stack{};
    std::size_t depth = 0;
    const std::size_t n = t_.size();
    for (;;) {
        skip_ws();
        std::uint32_t key = 0;
        std::uint32_t key_len = 0;
        if (depth == 0) {
            if (p_ == n) {
                return {};
            }
        } else {
            const Open& top = stack[depth - 1];
            if (p_ < n && t_[p_] == (top.object ? '}' : ']')) {
                ++p_;
                --depth;
                continue;
            }
            if (top.last != kNone) {
                if (p_ >= n || t_[p_] != ',') {
                    return fail(bad(p_, top.object ? "',' or '}'" : "',' or ']'"));
                }
                ++p_;
                skip_ws();
            }
            if (top.object) {
                if (p_ >= n || t_[p_] != '"') {
                    return fail(
                        bad(p_, top.last == kNone ? "a member name or '}'" : "a member name"));
                }
                bool esc = false;
                if (auto ok = string_body(key, key_len, esc); !ok) {
                    return ok;
                }
                if (p_ >= n || t_[p_] != ':') {
                    skip_ws();
                    if (p_ >= n || t_[p_] != ':') {
                        return fail(bad(p_, "':' after the member name"));
                    }
                }
                ++p_;
                if (p_ < n && t_[p_] == ' ') {
                    ++p_;  // "name": value, as pretty-printed
                }
                skip_ws();
            }
        }
        if (p_ >= n) {
            return fail(bad(p_, "a JSON value"));
        }
        JNode v{.offset = static_cast<std::uint32_t>(p_),
                .line = line_,
                .key = key,
                .key_len = key_len};
        const char c = t_[p_];
        if (c == '"') {
            v.kind = JNode::String;
            std::uint32_t start = 0;
            if (auto ok = string_body(start, v.len, v.escaped); !ok) {
                return ok;
            }
        } else if (c == '{' || c == '[') {
            v.kind = c == '{' ? JNode::Object : JNode::Array;
            ++p_;
        } else if (!literal(v) && !number(v)) {
            return fail(
                bad(p_, "a JSON value ('{', '[', a string, a number, true, false or null)"));
        }
        if (nodes.size() >= max_values_) {
            return fail(Error::parse(
                where(v.offset),
                "more JSON values than lldpctl writes in " + std::to_string(t_.size()) +
                    " bytes (at most " + std::to_string(max_values_) +
                    "; lldpctl writes one in 32 bytes or more); not an lldpctl output"));
        }
        const auto id = append(v, stack, depth);
        if (v.kind == JNode::Object || v.kind == JNode::Array) {
            if (depth >= kMaxLldpDepth) {
                return fail(Error::parse(where(v.offset),
                                         "nested deeper than " + std::to_string(kMaxLldpDepth) +
                                             " levels; lldpctl's output nests about 8"));
            }
            stack[depth++] = {id, kNone, v.kind == JNode::Object};
        }
    }
}

#if defined(__SSE2__)
bool JsonReader::parse_indexed() {
    JsonIndex ix;
    if (!index_json(t_, ix)) {
        return false;
    }
    OpenStack stack{};
    std::size_t depth = 0;
    const auto& at = ix.at;
    std::size_t i = 0;
    std::size_t counted = 0;  // newlines before this position are in `line`
    std::uint32_t line = 1;
    // The position of the quote closing the string opened at `open`.
    const auto closing = [&](std::size_t open) -> std::size_t {
        std::size_t w = (open + 1) / 64;
        std::uint64_t bits = ix.quotes[w] & ~below((open + 1) % 64);
        while (bits == 0) {
            if (++w == ix.quotes.size()) {
                return t_.size();
            }
            bits = ix.quotes[w];
        }
        return w * 64 + static_cast<std::size_t>(std::countr_zero(bits));
    };
    const auto line_of = [&](std::size_t pos) {
        std::size_t w = counted / 64;
        std::uint64_t bits = ix.newlines[w] & ~below(counted % 64);
        for (; w < pos / 64; bits = ix.newlines[++w]) {
            line += ones(bits);
        }
        line += ones(bits & below(pos % 64));
        counted = pos;
        return line;
    };
    const auto is_word = [](char c) {
        return c != ' ' && c != '\n' && c != '\t' && c != '\r' && c != '"' && c != '{' &&
               c != '}' && c != '[' && c != ']' && c != ':' && c != ',';
    };
    // A string at `open`: its body's start and length, the quote's position after it.
    const auto string_at = [&](std::size_t open, std::uint32_t& start, std::uint32_t& len,
                               bool& escaped) {
        const auto end = closing(open);
        start = static_cast<std::uint32_t>(open + 1);
        len = static_cast<std::uint32_t>(end - open - 1);
        escaped = ix.backslash && t_.substr(start, len).find('\\') != std::string_view::npos;
        return end < t_.size();
    };
    for (;;) {
        std::uint32_t key = 0;
        std::uint32_t key_len = 0;
        if (depth == 0) {
            if (i == at.size()) {
                return true;
            }
        } else {
            if (i == at.size()) {
                return false;
            }
            const Open& top = stack[depth - 1];
            char c = t_[at[i]];
            if (c == (top.object ? '}' : ']')) {
                ++i;
                --depth;
                continue;
            }
            if (top.last != kNone) {
                if (c != ',' || ++i == at.size()) {
                    return false;
                }
                c = t_[at[i]];
            }
            if (top.object) {
                bool esc = false;
                if (c != '"' || !string_at(at[i], key, key_len, esc) || i + 2 >= at.size() ||
                    t_[at[i + 1]] != ':') {
                    return false;
                }
                i += 2;
            }
        }
        const std::size_t pos = at[i++];
        JNode v{.offset = static_cast<std::uint32_t>(pos),
                .line = line_of(pos),
                .key = key,
                .key_len = key_len};
        const char c = t_[pos];
        if (c == '"') {
            v.kind = JNode::String;
            std::uint32_t start = 0;
            if (!string_at(pos, start, v.len, v.escaped)) {
                return false;
            }
        } else if (c == '{' || c == '[') {
            v.kind = c == '{' ? JNode::Object : JNode::Array;
        } else if (c == '}' || c == ']' || c == ':' || c == ',') {
            return false;
        } else {
            std::size_t end = pos;
            while (end < t_.size() && is_word(t_[end])) {
                ++end;
            }
            p_ = pos;
            if (!literal(v) && !number(v)) {
                return false;
            }
            if (p_ != end) {
                return false;  // more of the word than the value: "truex", "12ab"
            }
        }
        if (nodes.size() >= max_values_) {
            return false;  // the careful reading names where
        }
        const auto id = append(v, stack, depth);
        if (v.kind == JNode::Object || v.kind == JNode::Array) {
            if (depth >= kMaxLldpDepth) {
                return false;
            }
            stack[depth++] = {id, kNone, v.kind == JNode::Object};
        }
    }
}

#endif
SourceLoc JsonReader::where(std::size_t offset) const {
    std::uint32_t line = 1;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < offset && i < t_.size(); ++i) {
        if (t_[i] == '\n') {
            ++line;
            line_start = i + 1;
        }
    }
    return {std::string(source_), line, static_cast<std::uint32_t>(offset - line_start + 1)};
}

Error JsonReader::bad(std::size_t offset, const std::string& expected) const {
    std::string got = offset < t_.size() ? "'" + std::string(t_.substr(offset, 1)) + "'"
                                         : std::string("the end of the file");
    if (offset < t_.size() && static_cast<unsigned char>(t_[offset]) < 0x20) {
        got = "a control character";
    }
    return Error::parse(where(offset), "expected " + expected + ", got " + got);
}

std::uint32_t JsonReader::append(const JNode& v, OpenStack& stack, std::size_t depth) {
    const auto id = static_cast<std::uint32_t>(nodes.size());
    nodes.push_back(v);
    if (depth == 0) {
        roots.push_back(id);
    } else {
        Open& top = stack[depth - 1];
        (top.last == kNone ? nodes[top.node].first : nodes[top.last].next) = id;
        top.last = id;
    }
    return id;
}

void JsonReader::skip_ws() {
    for (;;) {
        p_ = skip_spaces(t_, p_);
        if (p_ == t_.size()) {
            return;
        }
        const char c = t_[p_];
        if (c != '\n' && c != '\t' && c != '\r') {
            return;
        }
        line_ += c == '\n' ? 1U : 0U;
        ++p_;
    }
}

Result<void> JsonReader::string_body(std::uint32_t& start, std::uint32_t& len, bool& escaped) {
    const std::size_t from = ++p_;  // after the quote
    escaped = false;
    while (p_ < t_.size()) {
        p_ = skip_plain(t_, p_);
        if (p_ == t_.size()) {
            break;
        }
        const char c = t_[p_];
        if (c == '"') {
            start = static_cast<std::uint32_t>(from);
            len = static_cast<std::uint32_t>(p_++ - from);
            return {};
        }
        if (c == '\\') {
            escaped = true;
            ++p_;
        } else {
            return fail(bad(p_, "the rest of a string"));  // a control character
        }
        ++p_;
    }
    return fail(bad(from - 1, "a string closed by '\"'"));
}

bool JsonReader::literal(JNode& v) {
    const auto rest = t_.substr(p_);
    for (const auto& [word, kind] : {std::pair{std::string_view("true"), JNode::True},
                                     std::pair{std::string_view("false"), JNode::False},
                                     std::pair{std::string_view("null"), JNode::Null}}) {
        if (rest.starts_with(word)) {
            v.kind = kind;
            v.len = static_cast<std::uint32_t>(word.size());
            p_ += word.size();
            return true;
        }
    }
    return false;
}

bool JsonReader::number(JNode& v) {
    const char c = t_[p_];
    if (c != '-' && (c < '0' || c > '9')) {
        return false;
    }
    const std::size_t start = p_;
    while (p_ < t_.size() &&
           (std::isdigit(static_cast<unsigned char>(t_[p_])) != 0 || t_[p_] == '-' ||
            t_[p_] == '+' || t_[p_] == '.' || t_[p_] == 'e' || t_[p_] == 'E')) {
        ++p_;
    }
    v.kind = JNode::Number;
    v.len = static_cast<std::uint32_t>(p_ - start);
    return true;
}

}  // namespace switchyard::discover::json
