// SPDX-License-Identifier: Apache-2.0
// InstallSets, the store `switchyard install` keeps beside slurm.conf, in a scratch directory:
// sets written and put in use, the previous one kept for a rollback, a hand install adopted,
// old sets pruned; and the one list of discover's files, which discover names its outputs from
// and install copies.
#include "switchyard/ops/install_sets.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "switchyard/common/file.hpp"
#include "switchyard/fabric/fabric_index.hpp"
#include "switchyard/fabric/fabric_map.hpp"
#include "switchyard/slurm/files/slurm_writers.hpp"

using namespace switchyard;
using namespace switchyard::slurm;
using namespace switchyard::ops;
namespace fs = std::filesystem;

namespace {

/// A fresh directory, removed at the end of the test.
struct Scratch {
    fs::path dir;
    Scratch() {
        std::string tmpl = (fs::temp_directory_path() / "switchyard-sets-XXXXXX").string();
        REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
        dir = tmpl;
    }
    ~Scratch() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;
};

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void put(const fs::path& p, const std::string& text) {
    std::ofstream(p) << text;
}

SetFiles set_of(const std::string& tag) {
    return {{"fabric.map", "map " + tag + "\n"},
            {"topology.conf", "SwitchName=su1 Nodes=n[1-2] # " + tag + "\n"},
            {"slurm/topology.conf", "SwitchName=su1 Nodes=n[1-2] # " + tag + "\n"}};
}

/// A map file as text and as read.
struct GoldenMap {
    std::string text;
    fabric::FabricMap map;
};

GoldenMap read_map(const fs::path& path) {
    auto text = read_text_file(path.string(), kFabricInput);
    REQUIRE(text);
    auto map = fabric::read_fabric_map(*text, path.string());
    REQUIRE(map);
    return {std::move(*text), std::move(*map)};
}

const fs::path kDfp16Map =
    fs::path(SWITCHYARD_SOURCE_DIR) / "tests/golden/discover/dfp16/fabric.map.expected";

}  // namespace

TEST_CASE("install sets: discover's outputs are named from the one list install copies",
          "[install]") {
    const auto [text, map] = read_map(kDfp16Map);
    auto files = write_discover_files(map, "c", "h", SlurmTopologies{});
    REQUIRE(files);
    REQUIRE(files->size() + 1 == kDiscoverFiles.size());  // nodes.conf only with --slurm-nodes
    for (std::size_t i = 0; i < files->size(); ++i) {
        CHECK((*files)[i].name == kDiscoverFiles[i]);
    }
    CHECK(kDiscoverFiles.back() == "nodes.conf");

    // read_capture takes every listed file a discover output holds, and nothing else.
    Scratch s;
    for (const auto& f : *files) {
        put(s.dir / f.name, f.text);
    }
    put(s.dir / "nodes.conf", "NodeName=n1\n");
    put(s.dir / "notes.txt", "not a discover file\n");
    auto capture = read_capture(s.dir);
    REQUIRE(capture);
    CHECK(capture->size() == kDiscoverFiles.size());
    CHECK_FALSE(capture->contains("notes.txt"));
    CHECK(capture->at("nodes.conf") == "NodeName=n1\n");
    CHECK(capture->at("fabric.map") == (*files)[0].text);
}

TEST_CASE("install sets: added, put in use, the previous kept, rolled back, pruned", "[install]") {
    Scratch s;
    InstallSets sets(s.dir);
    CHECK(sets.installed_kind().empty());
    CHECK(sets.current().empty());

    auto first = sets.add(set_of("one"));
    REQUIRE(first);
    CHECK(first->starts_with("switchyard.sets/"));
    CHECK(sets.current().empty());  // nothing in use before activate
    REQUIRE(sets.activate(*first, ""));
    CHECK(sets.current() == *first);
    CHECK(sets.previous().empty());
    CHECK(slurp(s.dir / "topology.conf") == set_of("one").at("slurm/topology.conf"));
    CHECK(sets.installed_kind() == "tree");
    CHECK(sets.holds(*first, set_of("one")));
    CHECK_FALSE(sets.holds(*first, set_of("two")));
    auto fewer = set_of("one");
    fewer.erase("topology.conf");  // the set holds a discover file the capture lacks
    CHECK_FALSE(sets.holds(*first, fewer));

    ::usleep(1100000);  // set names start with the UTC second
    auto second = sets.add(set_of("two"));
    REQUIRE(second);
    REQUIRE(*second != *first);
    REQUIRE(sets.activate(*second, *first));
    CHECK(sets.current() == *second);
    CHECK(sets.previous() == *first);
    CHECK(slurp(s.dir / "switchyard" / "fabric.map") == "map two\n");

    // A rollback is the previous set put in use again.
    REQUIRE(sets.activate(*first, *second));
    CHECK(sets.current() == *first);
    CHECK(sets.previous() == *second);
    CHECK(slurp(s.dir / "topology.conf") == set_of("one").at("slurm/topology.conf"));

    // Pruning keeps the newest and never the sets in use.
    std::vector<std::string> more;
    for (const char* tag : {"three", "four"}) {
        ::usleep(1100000);
        auto t = sets.add(set_of(tag));
        REQUIRE(t);
        more.push_back(*t);
    }
    sets.prune(1);
    CHECK(fs::is_directory(s.dir / *first));   // current
    CHECK(fs::is_directory(s.dir / *second));  // previous
    CHECK(fs::is_directory(s.dir / more[1]));  // the newest
    CHECK_FALSE(fs::exists(s.dir / more[0]));  // neither newest nor in use
}

TEST_CASE("install sets: a hand install is adopted as a set a rollback can reach", "[install]") {
    Scratch s;
    put(s.dir / "topology.conf", "BlockName=b1 Nodes=n[1-2]\n");
    InstallSets sets(s.dir);
    CHECK(sets.installed_kind() == "block");
    auto t = sets.add(set_of("new"));
    REQUIRE(t);
    const auto adopted = sets.current();
    REQUIRE(adopted.ends_with("-before"));
    CHECK(slurp(s.dir / adopted / "slurm" / "topology.conf") == "BlockName=b1 Nodes=n[1-2]\n");
    REQUIRE(sets.activate(*t, adopted));
    CHECK(sets.previous() == adopted);

    // A `switchyard` that is a plain file is not taken for a set.
    Scratch other;
    put(other.dir / "topology.conf", "SwitchName=s\n");
    put(other.dir / "switchyard", "a file\n");
    InstallSets odd(other.dir);
    auto refused = odd.add(set_of("x"));
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message().find("not a directory") != std::string::npos);
}

TEST_CASE("install sets: going from a yaml set to a conf set, and a link that cannot follow",
          "[install]") {
    Scratch s;
    InstallSets sets(s.dir);
    auto yaml = set_of("yaml");
    yaml.erase("slurm/topology.conf");
    yaml["slurm/topology.yaml"] = "- topology: t\n";
    auto y = sets.add(yaml);
    REQUIRE(y);
    REQUIRE(sets.activate(*y, ""));
    CHECK(sets.installed_kind() == "yaml");
    ::usleep(1100000);
    auto c = sets.add(set_of("conf"));
    REQUIRE(c);
    REQUIRE(sets.activate(*c, *y));
    // Slurm 25.05+ reads topology.yaml first: a conf set in use leaves none behind.
    CHECK_FALSE(fs::exists(s.dir / "topology.yaml"));
    CHECK(sets.installed_kind() == "tree");
    CHECK(sets.newest_with_map("") == *c);
    CHECK(sets.newest_with_map(*c) == *y);

    // The link cannot be replaced (its temporary name is taken by a directory): DIR's files and
    // both links are put back as they were, and the error says so.
    const auto planted = s.dir / ("switchyard.tmp-" + std::to_string(::getpid()));
    fs::create_directories(planted / "x");
    const auto r = sets.activate(*y, *c);
    REQUIRE_FALSE(r);
    CHECK(r.error().message().find("topology files and links are as they were") !=
          std::string::npos);
    CHECK(sets.current() == *c);
    CHECK(sets.previous() == *y);
    CHECK(slurp(s.dir / "topology.conf") == set_of("conf").at("slurm/topology.conf"));
    CHECK_FALSE(fs::exists(s.dir / "topology.yaml"));
    fs::remove_all(planted);
    REQUIRE(sets.activate(*y, *c));
    CHECK(slurp(s.dir / "topology.yaml") == "- topology: t\n");
}

TEST_CASE("install sets: the Slurm file per topology", "[install]") {
    CHECK(slurm_file_for("tree") ==
          std::pair<std::string, std::string>{"topology.conf", "topology.conf"});
    CHECK(slurm_file_for("block").first == "topology-block.conf");
    CHECK(slurm_file_for("block").second == "topology.conf");
    CHECK(slurm_file_for("yaml").second == "topology.yaml");
}

TEST_CASE("install sets: a capture is what discover writes from its map, each file bounded",
          "[install]") {
    const auto [text, map] = read_map(kDfp16Map);
    auto written = write_discover_files(map, "c", "Written somewhere else, at another time", {});
    REQUIRE(written);
    SetFiles files;
    for (const auto& f : *written) {
        files[f.name] = f.text;
    }
    files["nodes.conf"] = "NodeName=n1\n";
    CHECK(check_capture(map, files));  // comment lines (where and when) are not compared

    SECTION("an edited Slurm file is named with its first line that differs") {
        auto& conf = files["topology.conf"];
        const auto at = conf.find("SwitchName=");
        REQUIRE(at != std::string::npos);
        conf.insert(at, "SwitchName=rogue Nodes=node[001-016]\n");
        const auto line = std::count(conf.begin(), conf.begin() + static_cast<long>(at), '\n') + 1;
        const auto r = check_capture(map, files);
        REQUIRE_FALSE(r);
        CHECK(r.error().message().starts_with(
            "topology.conf is not what discover writes from fabric.map: line " +
            std::to_string(line) +
            " 'SwitchName=rogue Nodes=node[001-016]', where discover "
            "writes 'SwitchName="));
    }
    SECTION("a file cut short, and one with a line added at its end") {
        files["node-features.conf"].resize(files["node-features.conf"].size() / 2);
        auto r = check_capture(map, files);
        REQUIRE_FALSE(r);
        CHECK(r.error().message().starts_with("node-features.conf is not what discover writes"));
        files = {{"fabric.map", text}, {"topology.yaml", (*written)[4].text + "extra: 1\n"}};
        r = check_capture(map, files);
        REQUIRE_FALSE(r);
        CHECK(r.error().message().find("'extra: 1', where discover writes the end of the file") !=
              std::string::npos);
    }
    SECTION("an index of another map") {
        auto other = map;
        other.hosts.pop_back();
        auto index = fabric::write_fabric_index(other, fabric::write_fabric_map(other, "c"));
        REQUIRE(index);
        files["fabric.map.index"] = *index;
        const auto r = check_capture(map, files);
        REQUIRE_FALSE(r);
        CHECK(r.error().message() ==
              "fabric.map.index is not the index of fabric.map (written by another discover run, "
              "or edited)");
    }
    SECTION("read_capture bounds each file: the hints at 1 MiB, the Slurm files by the map") {
        Scratch s;
        put(s.dir / "fabric.map", files["fabric.map"]);
        put(s.dir / "job_submit_hints.lua", std::string((1U << 20U) + 1, '-'));
        auto r = read_capture(s.dir);
        REQUIRE_FALSE(r);
        CHECK(r.error().message().find("job_submit_hints.lua") != std::string::npos);
        CHECK(r.error().message().find("more than the 1048576 allowed") != std::string::npos);
        fs::remove(s.dir / "job_submit_hints.lua");
        const auto bound = 4 * files["fabric.map"].size() + (1U << 20U);
        put(s.dir / "topology.conf", std::string(bound + 1, '#'));
        r = read_capture(s.dir);
        REQUIRE_FALSE(r);
        CHECK(r.error().message().find("topology.conf") != std::string::npos);
        put(s.dir / "topology.conf", std::string(bound, '#'));
        CHECK(read_capture(s.dir));
    }
    SECTION("read_capture takes no link, to a file or to the capture's own file") {
        Scratch s;
        put(s.dir / "fabric.map", files["fabric.map"]);
        put(s.dir / "elsewhere", "NodeName=n1\n");
        fs::create_symlink(s.dir / "elsewhere", s.dir / "nodes.conf");
        auto r = read_capture(s.dir);
        REQUIRE_FALSE(r);
        CHECK(r.error().message() == "cannot read '" + (s.dir / "nodes.conf").string() +
                                         "': it is a symbolic link; expected a regular file");
        fs::remove(s.dir / "nodes.conf");
        fs::create_symlink("fabric.map", s.dir / "fabric.map.index");
        CHECK_FALSE(read_capture(s.dir));
        fs::remove(s.dir / "fabric.map.index");
        r = read_capture(s.dir);
        REQUIRE(r);
        CHECK(r->size() == 1);  // files that are not discover's are not read
    }
}

TEST_CASE("install sets: every golden discover output passes the capture check", "[install]") {
    // discover writes from the map it made; install writes again from the map it reads back.
    // Both must agree on every kind of fabric the golden cases hold (InfiniBand, LLDP, NVLink
    // domains, SuperPOD, partitions).
    std::size_t checked = 0;
    const auto root = fs::path(SWITCHYARD_SOURCE_DIR) / "tests/golden/discover";
    for (const auto& dir : fs::directory_iterator(root)) {
        const auto map_path = dir.path() / "fabric.map.expected";
        if (!fs::exists(map_path)) {
            continue;
        }
        INFO(dir.path().filename().string());
        const auto [text, map] = read_map(map_path);
        SetFiles files{{"fabric.map", text}};
        for (const auto name : kDiscoverFiles) {
            const auto p = dir.path() / (std::string(name) + ".expected");
            if (name != "fabric.map" && fs::exists(p)) {
                files[std::string(name)] = slurp(p);
            }
        }
        const auto r = check_capture(map, files);
        INFO((r ? std::string() : r.error().message()));
        CHECK(r);
        checked += files.size() - 1;
    }
    CHECK(checked >= 20);
}
