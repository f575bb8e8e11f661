// SPDX-License-Identifier: Apache-2.0
// The admin guide's coverage table against a real production check list (Azure's NHC
// configuration for ND H100 v5): one row per check of the list, and only health keys the gate
// has.
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "catch.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/health/health.hpp"

using namespace switchyard;

namespace {

std::string read(const std::string& path) {
    std::ifstream in(std::string(SWITCHYARD_SOURCE_DIR) + "/" + path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

/// The checks an NHC configuration runs: the word after "||" on each line that is not a
/// comment.
std::set<std::string> nhc_checks(const std::string& conf) {
    std::set<std::string> out;
    for (const auto line : split(conf, '\n')) {
        const auto t = trim(line);
        const auto bars = t.find("||");
        if (t.empty() || t.front() == '#' || bars == std::string_view::npos) {
            continue;
        }
        const auto rest = trim(t.substr(bars + 2));
        out.emplace(rest.substr(0, rest.find(' ')));
    }
    return out;
}

/// The table's rows: check → health key ("—" for none).
std::map<std::string, std::string> table_rows(const std::string& guide) {
    std::map<std::string, std::string> out;
    const auto start = guide.find("### What the gate covers, against a production check list");
    REQUIRE(start != std::string::npos);
    const auto end = guide.find("\n### ", start + 1);
    for (const auto line : split(std::string_view(guide).substr(start, end - start), '\n')) {
        if (!line.starts_with("| `check_")) {
            continue;
        }
        const auto cells = split(line, '|');
        REQUIRE(cells.size() >= 4);
        const auto unquote = [](std::string_view c) {
            c = trim(c);
            return std::string(c.size() >= 2 && c.front() == '`' ? c.substr(1, c.size() - 2) : c);
        };
        out.emplace(unquote(cells[1]), unquote(cells[2]));
    }
    return out;
}

}  // namespace

TEST_CASE("health coverage: the guide's table has one row per check of Azure's NHC list",
          "[health]") {
    const auto checks =
        nhc_checks(read("tests/data/real/health-data/aznhc-conf-nd96isr_h100_v5.conf"));
    const auto rows = table_rows(read("docs/admin-guide.md"));
    REQUIRE(checks.size() == 17);
    std::set<std::string> named;
    for (const auto& [check, key] : rows) {
        named.insert(check);
    }
    CHECK(named == checks);
    // Every key named is one the gate has; the count the guide states is the table's.
    const auto keys = health::health_check_keys();
    const std::set<std::string_view> known(keys.begin(), keys.end());
    std::size_t covered = 0;
    for (const auto& [check, key] : rows) {
        if (key == "—") {
            continue;
        }
        INFO(check << " names '" << key << "'");
        CHECK(known.contains(key));
        ++covered;
    }
    CHECK(read("docs/admin-guide.md")
              .find(std::to_string(covered) + " of its " + std::to_string(checks.size()) +
                    " checks are covered by a health key") != std::string::npos);
}
