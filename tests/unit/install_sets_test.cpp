// SPDX-License-Identifier: Apache-2.0
// InstallSets, the store `switchyard install` keeps beside slurm.conf, in a scratch directory:
// sets written and put in use, the previous one kept for a rollback, a hand install adopted,
// old sets pruned; and the one list of discover's files, which discover names its outputs from
// and install copies.
#include "switchyard/slurmconf/install_sets.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "switchyard/common/file.hpp"
#include "switchyard/fabric/fabric_map.hpp"
#include "switchyard/slurmconf/slurm_writers.hpp"

using namespace switchyard;
using namespace switchyard::slurmconf;
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

}  // namespace

TEST_CASE("install sets: discover's outputs are named from the one list install copies",
          "[install]") {
    auto text = read_text_file(
        std::string(SWITCHYARD_SOURCE_DIR) + "/tests/golden/discover/dfp16/fabric.map.expected",
        kFabricInput);
    REQUIRE(text);
    auto map = fabric::read_fabric_map(*text, "fabric.map.expected");
    REQUIRE(map);
    auto files = write_discover_files(*map, "c", "h", SlurmTopologies{});
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
    REQUIRE(sets.activate(*first));
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
    REQUIRE(sets.activate(*second));
    CHECK(sets.current() == *second);
    CHECK(sets.previous() == *first);
    CHECK(slurp(s.dir / "switchyard" / "fabric.map") == "map two\n");

    // A rollback is the previous set put in use again.
    REQUIRE(sets.activate(sets.previous()));
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
    REQUIRE(sets.activate(*t));
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

TEST_CASE("install sets: the Slurm file per topology", "[install]") {
    CHECK(slurm_file_for("tree") ==
          std::pair<std::string, std::string>{"topology.conf", "topology.conf"});
    CHECK(slurm_file_for("block").first == "topology-block.conf");
    CHECK(slurm_file_for("block").second == "topology.conf");
    CHECK(slurm_file_for("yaml").second == "topology.yaml");
}
