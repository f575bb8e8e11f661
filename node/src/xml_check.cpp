// SPDX-License-Identifier: Apache-2.0
// A small, linear XML well-formedness scanner (no entities, no DTD subset), for hwloc's sake.
#include "xml_check.hpp"

#include <algorithm>
#include <vector>

namespace switchyard::node {
namespace {

bool name_start(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == ':';
}

bool name_char(char c) {
    return name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

bool space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

class Scanner {
public:
    explicit Scanner(std::string_view xml) : s_(xml) {}

    std::optional<std::string> run() {
        if (s_.find('\0') != std::string_view::npos) {
            return at(s_.find('\0'), "a NUL byte; expected text");
        }
        if (s_.substr(0, 3) == "\xEF\xBB\xBF") {
            i_ = 3;
        }
        bool root_seen = false;
        while (i_ < s_.size()) {
            if (s_[i_] != '<') {
                if (open_.empty() && !space(s_[i_])) {
                    return at(i_, "text outside the root element");
                }
                ++i_;
                continue;
            }
            const auto start = i_;
            if (s_.substr(i_, 4) == "<!--") {
                if (auto p = skip_past("-->", start, "an unclosed comment")) {
                    return p;
                }
            } else if (s_.substr(i_, 2) == "<?") {
                if (auto p = skip_past("?>", start, "an unclosed <? ?> declaration")) {
                    return p;
                }
            } else if (s_.substr(i_, 2) == "<!") {
                const auto end = s_.find('>', i_);
                const auto open = s_.find('[', i_);
                if (end == std::string_view::npos) {
                    return at(start, "an unclosed <!...> declaration");
                }
                if (open < end) {
                    return at(open, "a DOCTYPE with an internal subset; expected none");
                }
                i_ = end + 1;
            } else if (s_.substr(i_, 2) == "</") {
                if (auto p = close_tag()) {
                    return p;
                }
            } else {
                if (open_.empty() && root_seen) {
                    return at(start, "a second root element");
                }
                root_seen = true;
                if (auto p = open_tag()) {
                    return p;
                }
            }
        }
        if (!open_.empty()) {
            return at(s_.size(), "the end of the file inside <" + std::string(open_.back()) +
                                     ">; expected </" + std::string(open_.back()) + ">");
        }
        if (!root_seen) {
            return at(s_.size(), "no element; expected an <topology> export");
        }
        return std::nullopt;
    }

private:
    std::string_view s_;
    std::size_t i_ = 0;
    std::vector<std::string_view> open_;

    std::string at(std::size_t pos, const std::string& what) const {
        pos = std::min(pos, s_.size());
        const auto line = 1 + std::count(s_.begin(), s_.begin() + static_cast<long>(pos), '\n');
        return "line " + std::to_string(line) + ": " + what;
    }

    std::optional<std::string> skip_past(std::string_view end,
                                         std::size_t start,
                                         const char* what) {
        const auto e = s_.find(end, i_ + 2);
        if (e == std::string_view::npos) {
            return at(start, what);
        }
        i_ = e + end.size();
        return std::nullopt;
    }

    std::string_view name() {
        const auto start = i_;
        if (i_ < s_.size() && name_start(s_[i_])) {
            while (i_ < s_.size() && name_char(s_[i_])) {
                ++i_;
            }
        }
        return s_.substr(start, i_ - start);
    }

    void spaces() {
        while (i_ < s_.size() && space(s_[i_])) {
            ++i_;
        }
    }

    std::optional<std::string> open_tag() {
        const auto start = i_++;
        const auto tag = name();
        if (tag.empty()) {
            return at(start, "'<' not followed by an element name");
        }
        unsigned sets = 0;  // bits: cpuset, complete_cpuset, nodeset, complete_nodeset
        while (true) {
            const auto before = i_;
            spaces();
            if (i_ >= s_.size()) {
                return at(start, "an unclosed <" + std::string(tag) + "> tag");
            }
            if (s_.substr(i_, 2) == "/>" || s_[i_] == '>') {
                // hwloc 2.9 dereferences the complete set of an object that has only the
                // plain one (a segfault in hwloc_bitmap_compare_first; found by the fuzzer).
                if (tag == "object" && (((sets & 1U) != 0 && (sets & 2U) == 0) ||
                                        ((sets & 4U) != 0 && (sets & 8U) == 0))) {
                    return at(start,
                              std::string("an <object> with a ") +
                                  ((sets & 1U) != 0 && (sets & 2U) == 0 ? "cpuset" : "nodeset") +
                                  " but no complete_" +
                                  ((sets & 1U) != 0 && (sets & 2U) == 0 ? "cpuset" : "nodeset") +
                                  " (hwloc would crash on it)");
                }
            }
            if (s_.substr(i_, 2) == "/>") {
                i_ += 2;
                return std::nullopt;
            }
            if (s_[i_] == '>') {
                ++i_;
                if (open_.size() >= kMaxXmlDepth) {
                    return at(start, "elements nested more than " + std::to_string(kMaxXmlDepth) +
                                         " deep");
                }
                open_.push_back(tag);
                return std::nullopt;
            }
            if (i_ == before) {
                return at(i_, "'" + std::string(1, s_[i_]) + "' in <" + std::string(tag) +
                                  ">; expected a space before an attribute, '>' or '/>'");
            }
            const auto attr = name();
            sets |= attr == "cpuset"             ? 1U
                    : attr == "complete_cpuset"  ? 2U
                    : attr == "nodeset"          ? 4U
                    : attr == "complete_nodeset" ? 8U
                                                 : 0U;
            if (attr.empty()) {
                return at(i_, "'" + std::string(1, s_[i_]) + "' in <" + std::string(tag) +
                                  ">; expected an attribute name, '>' or '/>'");
            }
            spaces();
            if (i_ >= s_.size() || s_[i_] != '=') {
                return at(i_, "attribute " + std::string(attr) + " without '=\"value\"'");
            }
            ++i_;
            spaces();
            if (i_ >= s_.size() || (s_[i_] != '"' && s_[i_] != '\'')) {
                return at(i_, "attribute " + std::string(attr) + ": expected a quoted value");
            }
            const char quote = s_[i_];
            const auto end = s_.find(quote, i_ + 1);
            const auto lt = s_.find('<', i_ + 1);
            if (end == std::string_view::npos) {
                return at(i_, "attribute " + std::string(attr) + ": value never closed");
            }
            if (lt < end) {
                return at(lt, "'<' inside the value of attribute " + std::string(attr));
            }
            i_ = end + 1;
        }
    }

    std::optional<std::string> close_tag() {
        const auto start = i_;
        i_ += 2;
        const auto tag = name();
        spaces();
        if (i_ >= s_.size() || s_[i_] != '>') {
            return at(start, "a malformed closing tag");
        }
        ++i_;
        if (open_.empty() || open_.back() != tag) {
            return at(start, "</" + std::string(tag) + "> does not close " +
                                 (open_.empty() ? std::string("any element")
                                                : "<" + std::string(open_.back()) + ">"));
        }
        open_.pop_back();
        return std::nullopt;
    }
};

}  // namespace

std::optional<std::string> xml_problem(std::string_view xml) {
    return Scanner(xml).run();
}

}  // namespace switchyard::node
