// SPDX-License-Identifier: Apache-2.0
// Reading ibnetdiscover text, shared by the record parser and the -p port-list parser (internal
// to the discover library): lines with their numbers, a token cursor, messages that name the
// line, the foreign lines a real capture mixes in.
#pragma once

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/common/strings.hpp"
#include "switchyard/common/two_cores.hpp"
#include "switchyard/discover/ib/ibnetdiscover.hpp"
#include "switchyard/fabric/guid.hpp"

namespace switchyard::discover::ibnet {

using fabric::parse_guid;

/// Line-by-line reader that knows its line number.
class Lines {
public:
    explicit Lines(std::string_view text) : text_(text) {}
    bool next(std::string_view& line) {
        if (pos_ >= text_.size()) {
            return false;
        }
        const auto* start = text_.data() + pos_;
        const auto* nl = static_cast<const char*>(std::memchr(start, '\n', text_.size() - pos_));
        const std::size_t len =
            nl != nullptr ? static_cast<std::size_t>(nl - start) : text_.size() - pos_;
        line = std::string_view(start, len);
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
        }
        pos_ += len + 1;
        ++number_;
        return true;
    }
    /// The next line that is neither blank nor a '#' comment, trimmed.
    bool next_content(std::string_view& line) {
        while (next(line)) {
            line = trim(line);
            if (!line.empty() && line.front() != '#') {
                return true;
            }
        }
        return false;
    }
    [[nodiscard]] std::uint32_t number() const { return number_; }

private:
    std::string_view text_;
    std::size_t pos_ = 0;
    std::uint32_t number_ = 0;
};

/// A cursor over one line with the small token readers the grammar needs.
struct Cursor {
    std::string_view s;
    void skip_blanks() {
        while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
            s.remove_prefix(1);
        }
    }
    bool eat(char c) {
        skip_blanks();
        if (s.empty() || s.front() != c) {
            return false;
        }
        s.remove_prefix(1);
        return true;
    }
    std::optional<std::string_view> word() {
        skip_blanks();
        std::size_t n = 0;
        while (n < s.size() && s[n] != ' ' && s[n] != '\t') {
            ++n;
        }
        if (n == 0) {
            return std::nullopt;
        }
        auto w = s.substr(0, n);
        s.remove_prefix(n);
        return w;
    }
    std::optional<std::uint32_t> number() {
        skip_blanks();
        std::uint32_t v = 0;
        const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc{} || p == s.data()) {
            return std::nullopt;
        }
        s.remove_prefix(static_cast<std::size_t>(p - s.data()));
        return v;
    }
    /// Reads text between `q` quotes.
    std::optional<std::string_view> quoted(char q = '"') {
        if (!eat(q)) {
            return std::nullopt;
        }
        const auto close = s.find(q);
        if (close == std::string_view::npos) {
            return std::nullopt;
        }
        auto t = s.substr(0, close);
        s.remove_prefix(close + 1);
        return t;
    }
    /// Reads "[n]" and an optional "[ext n]" after it.
    std::optional<std::uint32_t> bracket_port() {
        if (!eat('[')) {
            return std::nullopt;
        }
        auto n = number();
        if (!n || !eat(']')) {
            return std::nullopt;
        }
        auto rest = s;
        if (eat('[') && s.starts_with("ext ")) {
            const auto close = s.find(']');
            s.remove_prefix(close == std::string_view::npos ? s.size() : close + 1);
        } else {
            s = rest;
        }
        return n;
    }
    /// Reads "(hex)".
    std::optional<std::uint64_t> paren_guid() {
        if (!eat('(')) {
            return std::nullopt;
        }
        const auto close = s.find(')');
        if (close == std::string_view::npos) {
            return std::nullopt;
        }
        auto g = parse_guid(s.substr(0, close));
        s.remove_prefix(close + 1);
        return g;
    }
};

inline Failure error_at(std::string_view source, std::uint32_t line, std::string message) {
    return fail(Error::parse(SourceLoc{std::string(source), line, 0}, std::move(message)));
}

/// A line for a message: at most 120 bytes, each tab-separated field through printable() (a
/// corrupt dump's error line must not carry raw bytes to a terminal or a log).
inline std::string quote_line(std::string_view line) {
    constexpr std::size_t kMax = 120;
    std::string out = "'";
    bool first = true;
    for (const auto field : split(line.substr(0, kMax), '\t')) {
        out += (first ? "" : "\t") + printable(field);
        first = false;
    }
    return out + (line.size() > kMax ? "...'" : "'");
}

/// Lines a real capture holds that are not part of any record: diagnostics that
/// `ibnetdiscover > f 2>&1` mixes in ("ibwarn: [...] ...", "src/query_smp.c:...: umad ...
/// Connection timed out"), and the chassis headers of `ibnetdiscover -s`/`-g` and older
/// releases ("Chassis 3 (guid 0x...)", "Non-Chassis Nodes").
inline bool foreign_line(std::string_view t) {
    return t.starts_with("ibwarn") || t.starts_with("ibpanic") || t.starts_with("ibdebug") ||
           t.starts_with("ibnetdiscover:") || t.starts_with("src/") ||
           t.find(" umad") != std::string_view::npos || t.starts_with("Chassis ") ||
           t == "Non-Chassis Nodes" || t.starts_with("Non-Chassis Nodes ");
}

/// Counts the skipped foreign lines and adds one warning for all of them.
struct ForeignLines {
    std::uint32_t count = 0;
    std::uint32_t first = 0;
    void skip(std::uint32_t line) { first = count++ == 0 ? line : first; }
    /// Adds the lines skipped in a later part of the file.
    void add(const ForeignLines& later) {
        first = count == 0 ? later.first : first;
        count += later.count;
    }
    void report(FabricGraph& g, std::string_view source) const {
        if (count > 0) {
            g.warnings.push_back(
                {"foreign-lines", SourceLoc{std::string(source), first, 0},
                 std::to_string(count) +
                     " lines that are not ibnetdiscover records were skipped (diagnostics such "
                     "as ibwarn or umad messages, chassis headers), the first on line " +
                     std::to_string(first)});
        }
    }
};

/// optional::and_then, which C++20 lacks.
template <typename F>
auto then(std::optional<std::string_view> v, F f) -> decltype(f(std::string_view{})) {
    if (!v) {
        return std::nullopt;
    }
    return f(*v);
}

/// The node kind a word names, given the format's spelling of switch, CA and router.
inline std::optional<NodeKind> kind_named(std::string_view word,
                                          std::array<std::string_view, 3> spelling) {
    constexpr NodeKind kKinds[] = {NodeKind::Switch, NodeKind::Ca, NodeKind::Router};
    for (std::size_t i = 0; i < spelling.size(); ++i) {
        if (word == spelling[i]) {
            return kKinds[i];
        }
    }
    return std::nullopt;
}

/// Runs body(begin, end, warnings) over [0, n), in two halves at once when n is at least `from`,
/// else in one; the halves' warnings are appended to `out` in order, so the result is the same
/// either way. body must touch only its own part's state.
template <typename Body>
void in_halves(std::size_t n, std::size_t from, std::vector<Diagnostic>& out, Body body) {
    std::vector<Diagnostic> later;
    if (n < from ||
        !both_at_once([&] { body(std::size_t{0}, n / 2, out); }, [&] { body(n / 2, n, later); })) {
        body(std::size_t{0}, n, out);
        return;
    }
    out.insert(out.end(), std::make_move_iterator(later.begin()),
               std::make_move_iterator(later.end()));
}

/// Warns about cables whose two ends disagree (A[1]→B[2] but B[2] missing or elsewhere).
void check_symmetry(FabricGraph& g, std::string_view source);

/// Whether the text is `ibnetdiscover -p` output (its first record line is a port line).
[[nodiscard]] bool looks_like_port_list(std::string_view text);

/// `ibnetdiscover -p`: one line per port.
[[nodiscard]] Result<FabricGraph> parse_port_list(std::string_view text, std::string_view source);

}  // namespace switchyard::discover::ibnet
