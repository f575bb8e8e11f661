// SPDX-License-Identifier: Apache-2.0
// Slurm hostlist expansion and compression.
#include "switchyard/common/hostlist.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <map>
#include <tuple>

#include "switchyard/common/strings.hpp"

namespace switchyard {
namespace {

Failure bad(std::string_view expr, const std::string& why) {
    return fail(Error::invalid_argument("hostlist '" + std::string(expr) + "': " + why));
}

std::string pad(std::uint64_t v, std::size_t width) {
    std::string s = std::to_string(v);
    if (s.size() < width) {
        s.insert(0, width - s.size(), '0');
    }
    return s;
}

/// Splits the top-level expression on commas that are outside brackets.
Result<std::vector<std::string_view>> split_terms(std::string_view expr) {
    std::vector<std::string_view> terms;
    int depth = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i < expr.size(); ++i) {
        const char c = expr[i];
        if (c == '[') {
            if (++depth > 1) {
                return bad(expr, "nested '[' at offset " + std::to_string(i));
            }
        } else if (c == ']') {
            if (--depth < 0) {
                return bad(expr, "']' without '[' at offset " + std::to_string(i));
            }
        } else if (c == ',' && depth == 0) {
            terms.push_back(expr.substr(start, i - start));
            start = i + 1;
        }
    }
    if (depth != 0) {
        return bad(expr, "'[' is never closed");
    }
    terms.push_back(expr.substr(start));
    return terms;
}

/// Expands one bracket body "001-003,7" into its numbers as strings, keeping zero padding; at
/// most `budget` numbers, counted before any is made.
Result<std::vector<std::string>> expand_ranges(std::string_view expr,
                                               std::string_view body,
                                               std::size_t budget) {
    std::vector<std::string> out;
    for (auto part : split(body, ',')) {
        part = trim(part);
        const auto dash = part.find('-');
        const auto lo_text = part.substr(0, dash);
        const auto hi_text = dash == std::string_view::npos ? lo_text : part.substr(dash + 1);
        const auto lo = parse_uint(lo_text);
        const auto hi = parse_uint(hi_text);
        if (!lo || !hi) {
            return bad(expr,
                       "range '" + std::string(part) + "' is not N or N-M with decimal numbers");
        }
        if (*hi < *lo) {
            return bad(expr, "range '" + std::string(part) + "' goes down");
        }
        if (*hi - *lo >= budget || out.size() + (*hi - *lo) + 1 > budget) {
            return bad(expr, "range '" + std::string(part) + "' makes more than " +
                                 std::to_string(kMaxHostlistSize) + " names");
        }
        // Counted, not compared: hi may be the largest uint64 ("n[18446744073709551615]").
        const std::size_t width = lo_text.size();
        const std::size_t count = static_cast<std::size_t>(*hi - *lo) + 1;
        for (std::size_t i = 0; i < count; ++i) {
            out.push_back(pad(*lo + i, width));
        }
    }
    return out;
}

/// How many numbers a bracket body "001-003,7" stands for, saturated above kMaxHostlistSize;
/// 1 for a part that is not a range (expand_ranges names the problem then).
std::uint64_t count_ranges(std::string_view body) {
    std::uint64_t total = 0;
    for (auto part : split(body, ',')) {
        part = trim(part);
        const auto dash = part.find('-');
        const auto lo = parse_uint(part.substr(0, dash));
        const auto hi = dash == std::string_view::npos ? lo : parse_uint(part.substr(dash + 1));
        const std::uint64_t n = lo && hi && *hi >= *lo ? *hi - *lo : 0;  // one less than the count
        total += n >= kMaxHostlistSize ? kMaxHostlistSize + 1 : n + 1;
        if (total > kMaxHostlistSize) {
            return kMaxHostlistSize + 1;
        }
    }
    return total;
}

}  // namespace

Result<std::vector<std::string>> expand_hostlist(std::string_view expr) {
    std::vector<std::string> names;
    if (expr.size() > kMaxHostlistText) {
        return fail(Error::invalid_argument("hostlist of " + std::to_string(expr.size()) +
                                            " bytes: longer than " +
                                            std::to_string(kMaxHostlistText) + " bytes"));
    }
    expr = trim(expr);
    if (expr.empty()) {
        return names;
    }
    auto terms = split_terms(expr);
    if (!terms) {
        return fail(terms.error());
    }
    for (auto term : *terms) {
        term = trim(term);
        if (term.empty()) {
            return bad(expr, "empty name between commas");
        }
        // The whole product of the term's brackets is counted before any name is made
        // ("a[0-999999]b[0-9999]" once built a million names, then refused).
        std::uint64_t product = 1;
        for (std::size_t open = term.find('['); open != std::string_view::npos;
             open = term.find('[', open + 1)) {
            const auto close = term.find(']', open);
            const auto count = count_ranges(term.substr(open + 1, close - open - 1));
            product = count == 0 || product > kMaxHostlistSize / count ? kMaxHostlistSize + 1
                                                                       : product * count;
        }
        if (names.size() + product > kMaxHostlistSize) {
            return bad(expr, "'" + std::string(term.substr(0, 80)) + "' makes more than " +
                                 std::to_string(kMaxHostlistSize) + " names");
        }
        std::vector<std::string> partial{""};
        std::size_t pos = 0;
        while (pos < term.size()) {
            const auto open = term.find('[', pos);
            const auto literal = term.substr(pos, open - pos);
            for (auto& p : partial) {
                p += literal;
            }
            if (open == std::string_view::npos) {
                break;
            }
            const auto close = term.find(']', open);
            // The product partial × numbers stays within the names still allowed.
            const std::size_t budget = (kMaxHostlistSize - names.size()) / partial.size();
            auto numbers = expand_ranges(expr, term.substr(open + 1, close - open - 1), budget);
            if (!numbers) {
                return fail(numbers.error());
            }
            std::vector<std::string> next;
            next.reserve(partial.size() * numbers->size());
            for (const auto& p : partial) {
                for (const auto& n : *numbers) {
                    next.push_back(p + n);
                }
            }
            if (names.size() + next.size() > kMaxHostlistSize) {
                return bad(expr, "more than " + std::to_string(kMaxHostlistSize) + " names");
            }
            partial = std::move(next);
            pos = close + 1;
        }
        names.insert(names.end(), partial.begin(), partial.end());
        if (names.size() > kMaxHostlistSize) {
            return bad(expr, "more than " + std::to_string(kMaxHostlistSize) + " names");
        }
    }
    return names;
}

std::string compress_hostlist(std::vector<std::string> names) {
    // Key: (prefix, digit width); value: numbers. Names without a numeric suffix stand alone.
    std::map<std::tuple<std::string, std::size_t>, std::vector<std::uint64_t>> groups;
    std::vector<std::string> plain;
    for (const auto& name : names) {
        std::size_t digits = 0;
        while (digits < name.size() && digits < 18 &&
               std::isdigit(static_cast<unsigned char>(name[name.size() - 1 - digits])) != 0) {
            ++digits;
        }
        if (digits == 0) {
            plain.push_back(name);
            continue;
        }
        const auto prefix = name.substr(0, name.size() - digits);
        const auto number = parse_uint(std::string_view(name).substr(name.size() - digits));
        // Unpadded numbers ("n9", "n10") share a group of width 0 so they can form one range.
        const std::size_t width = name[name.size() - digits] == '0' && digits > 1 ? digits : 0;
        groups[{prefix, width}].push_back(*number);
    }
    // An unpadded number as wide as a padded group of the same prefix belongs to it
    // ("node099" and "node100" form node[099-100]).
    for (auto it = groups.begin(); it != groups.end();) {
        const auto& [prefix, width] = it->first;
        if (width != 0) {
            ++it;
            continue;
        }
        // One pass into a new list: erasing moved numbers one by one from the vector was
        // quadratic (half a million names took 27 s; found by the hostlist fuzzer).
        auto& nums = it->second;
        std::vector<std::uint64_t> kept;
        for (const auto n : nums) {
            const auto padded = groups.find({prefix, std::to_string(n).size()});
            if (padded != groups.end()) {
                padded->second.push_back(n);
            } else {
                kept.push_back(n);
            }
        }
        nums = std::move(kept);
        it = nums.empty() ? groups.erase(it) : std::next(it);
    }
    std::vector<std::pair<std::string, std::string>> out;  // (sort key, text)
    std::sort(plain.begin(), plain.end());
    plain.erase(std::unique(plain.begin(), plain.end()), plain.end());
    for (const auto& p : plain) {
        out.emplace_back(p, p);
    }
    for (auto& [key, nums] : groups) {
        const auto& [prefix, width] = key;
        std::sort(nums.begin(), nums.end());
        nums.erase(std::unique(nums.begin(), nums.end()), nums.end());
        std::string body;
        std::size_t count = 0;
        for (std::size_t i = 0; i < nums.size();) {
            std::size_t j = i;
            while (j + 1 < nums.size() && nums[j + 1] == nums[j] + 1) {
                ++j;
            }
            if (!body.empty()) {
                body += ',';
            }
            body += pad(nums[i], width);
            if (j > i) {
                body += '-' + pad(nums[j], width);
            }
            count += j - i + 1;
            i = j + 1;
        }
        out.emplace_back(prefix + pad(nums.front(), width),
                         count == 1 ? prefix + body : prefix + "[" + body + "]");
    }
    std::sort(out.begin(), out.end());
    std::string result;
    for (const auto& [k, text] : out) {
        if (!result.empty()) {
            result += ',';
        }
        result += text;
    }
    return result;
}

}  // namespace switchyard
