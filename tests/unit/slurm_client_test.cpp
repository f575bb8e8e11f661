// SPDX-License-Identifier: Apache-2.0
// The Slurm client: sinfo's node lines, the command lines each query runs (against the fake),
// and the real client's absolute path, clean environment, deadline and bound.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "catch.hpp"
#include "switchyard/slurm/client/client.hpp"
#include "switchyard/slurm/client/scontrol.hpp"
#include "switchyard/slurm/client/sinfo.hpp"
#include "switchyard/slurm/client/slurm_jobs.hpp"

using namespace switchyard;
using namespace switchyard::slurm;

TEST_CASE("sinfo: node lines give weight, held state and reason", "[sinfo]") {
    // As sinfo --Node prints them: a node once per partition, a reason only when held (24.11
    // keeps the last one after a resume), "none" for no reason, a '|' inside a reason.
    const auto nodes = parse_slurm_nodes(
        "node001|1|idle|none\n"
        "node001|1|idle|none\n"
        "node002|10|drained|switchyard: gpus: 7 of 8 GPUs\n"
        "node003|1|mixed+drain|admin: a|b\n"
        "node004|1|down*|Not responding\n"
        "node005|1|idle|switchyard: old reason kept by 24.11\n"
        "node006|1|idle~|none\n"
        "node007|1|IDLE+CLOUD+POWERED_DOWN|none\n"
        "node008|1|drained|none\n"
        "\n");
    REQUIRE(nodes);
    CHECK(nodes->size() == 8);
    CHECK_FALSE(nodes->at("node001").held);
    CHECK(nodes->at("node002").weight == 10);
    CHECK(nodes->at("node002").held);
    CHECK(nodes->at("node002").reason == "switchyard: gpus: 7 of 8 GPUs");
    CHECK(nodes->at("node003").held);
    CHECK(nodes->at("node003").reason == "admin: a|b");
    CHECK(nodes->at("node004").held);
    CHECK_FALSE(nodes->at("node005").held);
    CHECK(nodes->at("node005").reason.empty());
    CHECK_FALSE(nodes->at("node006").held);  // powered down by power saving: not held
    CHECK_FALSE(nodes->at("node007").held);
    CHECK(nodes->at("node008").held);
    CHECK(nodes->at("node008").reason.empty());
}

TEST_CASE("sinfo: a line that cannot be read is named", "[sinfo]") {
    const auto bad = parse_slurm_nodes("node001|1|idle|none\nnode002 1 idle none\n");
    REQUIRE_FALSE(bad);
    CHECK(bad.error().to_string() ==
          "sinfo output:2: 'node002 1 idle none': expected <node>|<weight>|<state>|<reason>");
    // sinfo's own warnings (its stderr is read too) are not nodes.
    const auto warned = parse_slurm_nodes("sinfo: warning: x\nnode001|1|idle|none\n");
    REQUIRE(warned);
    CHECK(warned->size() == 1);
    CHECK_FALSE(parse_slurm_nodes("node001|heavy|idle|none\n"));
    CHECK(slurm_nodes_query("node[1-2]").back() == "--nodes=node[1-2]");
}

TEST_CASE("client: each query runs its command line and reads the answer", "[client]") {
    FakeClient fake;
    fake.answer("sinfo --all --noheader --Node --format=%N|%w|%T|%E --nodes=node[1-2]",
                "node1|1|idle|none\nnode2|5|drained|switchyard: gpus: x\n");
    auto states = node_states(fake, "node[1-2]");
    REQUIRE(states);
    CHECK(states->at("node2").held);
    CHECK(states->at("node2").weight == 5);
    // A query without an answer fails with its command line named.
    auto none = node_states(fake, "");
    REQUIRE_FALSE(none);
    CHECK(
        none.error().message().starts_with("sinfo --all --noheader --Node --format=%N|%w|%T|%E:"));
    fake.answer("scontrol update NodeName=n[1-4] Weight=7", "");
    CHECK(set_node_weight(fake, "n[1-4]", 7));
    fake.refuse("scontrol update NodeName=n1 State=RESUME", "Invalid node state specified");
    const auto resumed = resume_node(fake, "n1");
    REQUIRE_FALSE(resumed);
    CHECK(resumed.error().message() ==
          "scontrol update NodeName=n1 State=RESUME: Invalid node state specified");
    fake.answer("squeue --version", "slurm 25.05.3\n");
    CHECK(squeue_has_segment(fake));
    fake.answer("squeue --version", "slurm 24.11.5\n");
    CHECK_FALSE(squeue_has_segment(fake));
    fake.answer("scontrol show topology g1", "SwitchName=s1 Nodes=n1\n");
    const auto shown = show_topology(fake, "g1");
    REQUIRE(shown);
    CHECK(shown->second == "scontrol show topology g1");
    CHECK(fake.calls().size() == 7);
}

namespace {

/// A directory with one executable script `name` that runs `body`, for the real client.
std::filesystem::path script_dir(const std::string& name, const std::string& body) {
    char tmpl[] = "/tmp/switchyard-client-test.XXXXXX";
    REQUIRE(::mkdtemp(tmpl) != nullptr);
    const std::filesystem::path dir = tmpl;
    {
        std::ofstream f(dir / name);
        f << "#!/bin/sh\n" << body << "\n";
    }
    ::chmod((dir / name).c_str(), 0755);
    return dir;
}

/// Sets PATH (and SLURM_CONF) for the scope, as a user's shell would.
struct EnvScope {
    EnvScope(const std::string& path, const char* conf) {
        if (const char* p = std::getenv("PATH"); p != nullptr) {
            old_path = p;
        }
        ::setenv("PATH", path.c_str(), 1);
        if (conf != nullptr) {
            ::setenv("SLURM_CONF", conf, 1);
        } else {
            ::unsetenv("SLURM_CONF");
        }
        ::setenv("SQUEUE_FORMAT", "%i", 1);
    }
    ~EnvScope() {
        ::setenv("PATH", old_path.c_str(), 1);
        ::unsetenv("SLURM_CONF");
        ::unsetenv("SQUEUE_FORMAT");
    }
    EnvScope(const EnvScope&) = delete;
    EnvScope& operator=(const EnvScope&) = delete;
    std::string old_path;
};

}  // namespace

TEST_CASE("client: a node's address and a job's exclusions, from scontrol show -o", "[client]") {
    FakeClient fake;
    fake.answer("scontrol show node -o node001",
                "NodeName=node001 Arch=x86_64 CoresPerSocket=4 NodeAddr=10.1.0.7 "
                "NodeHostName=node001 Reason=a NodeAddr=x [root@t]\n");
    CHECK(*node_address(fake, "node001") == "10.1.0.7");
    fake.answer("scontrol show node -o node002", "NodeName=node002 State=IDLE\n");
    CHECK(node_address(fake, "node002").error().message() ==
          "scontrol show node node002: no NodeAddr in its answer");
    fake.answer("scontrol show job -o 7", "JobId=7 ReqNodeList=(null) ExcNodeList=(null)\n");
    CHECK(*excluded_nodes(fake, "7") == "");
    fake.answer("scontrol show job -o 8", "JobId=8 ExcNodeList=node[005,012] NodeList=n\n");
    CHECK(*excluded_nodes(fake, "8") == "node[005,012]");
}

TEST_CASE("client: the real one runs by absolute path in a clean environment", "[client]") {
    // The script prints its $0 and its environment: the absolute path found in PATH, and only
    // PATH, LANG, LC_ALL and SLURM_CONF (never the caller's SQUEUE_FORMAT).
    const auto dir = script_dir("squeue", "echo \"$0\"; env | sort");
    {
        const EnvScope env(dir.string() + ":/usr/bin:/bin", "/etc/slurm-test/slurm.conf");
        RealClient client;
        const auto out = client.run({Tool::Squeue, {"--version"}});
        REQUIRE(out);
        CHECK(out->starts_with((dir / "squeue").string() + "\n"));
        CHECK(out->find("SLURM_CONF=/etc/slurm-test/slurm.conf\n") != std::string::npos);
        CHECK(out->find("PATH=/usr/sbin:/usr/bin:/sbin:/bin\n") != std::string::npos);
        CHECK(out->find("SQUEUE_FORMAT") == std::string::npos);
    }
    std::filesystem::remove_all(dir);
}

TEST_CASE("client: the real one names a missing command, a hang and too much output", "[client]") {
    const auto dir = script_dir("sinfo",
                                "if [ \"$1\" = hang ]; then exec sleep 30; fi\n"
                                "if [ \"$1\" = big ]; then head -c 3000000 /dev/zero; exit 0; fi\n"
                                "echo \"sinfo: error: $1\"; exit 1");
    {
        const EnvScope env(dir.string(), nullptr);
        RealClient client;
        const auto missing = client.run({Tool::Scontrol, {"show", "config"}});
        REQUIRE_FALSE(missing);
        CHECK(
            missing.error().message() ==
            "scontrol show config: cannot run scontrol (install slurm-client, or put it on PATH)");
        const auto failed = client.run({Tool::Sinfo, {"oops"}});
        REQUIRE_FALSE(failed);
        CHECK(failed.error().message() == "sinfo oops: sinfo: error: oops");
        const auto hung = client.run({Tool::Sinfo, {"hang"}, 0.5});
        REQUIRE_FALSE(hung);
        CHECK(hung.error().message() == "sinfo hang: no answer in time (is slurmctld up?)");
        const auto big = client.run({Tool::Sinfo, {"big"}, 30, std::size_t{1} << 20});
        REQUIRE_FALSE(big);
        CHECK(big.error().message() == "sinfo big: more than 1 MiB of output; not read");
        // A format argument (tabs, a long value) is not written out in a message.
        const auto fmt = client.run({Tool::Sinfo, {"--Format=JobID:\t,Prefer:"}});
        REQUIRE_FALSE(fmt);
        CHECK(fmt.error().message() == "sinfo --Format=…: sinfo: error: --Format=JobID:\t,Prefer:");
        // Node lists and reasons are kept whole, however long.
        const std::string nodes = "--nodes=node[001-100,200-300,400-500,600-700,800-900]";
        const auto long_list = client.run({Tool::Sinfo, {nodes}});
        REQUIRE_FALSE(long_list);
        CHECK(long_list.error().message() == "sinfo " + nodes + ": sinfo: error: " + nodes);
    }
    std::filesystem::remove_all(dir);
}

TEST_CASE("client: squeue of jobs by id fails in Slurm's words, without the command line",
          "[client]") {
    FakeClient client;
    const auto why = "slurm_load_jobs error: Invalid job id specified";
    client.refuse("squeue --noheader --states=RUNNING --Format=" + squeue_job_format(false) +
                      " --jobs=999999",
                  why);
    client.refuse("squeue --noheader --jobs=999999 --Format=" + squeue_job_format(false), why);
    std::vector<std::string> problems;
    const auto running = running_jobs(client, "999999", false, problems);
    REQUIRE_FALSE(running);
    CHECK(running.error().message() == "squeue: slurm_load_jobs error: Invalid job id specified");
    const auto one = job_request(client, "999999", 10, problems);
    REQUIRE_FALSE(one);
    CHECK(one.error().message() == "squeue: slurm_load_jobs error: Invalid job id specified");
    // Every job: the command line is kept, shortened.
    client.refuse("squeue --noheader --states=RUNNING --Format=" + squeue_job_format(false),
                  "no answer in time (is slurmctld up?)");
    const auto all = running_jobs(client, "", false, problems);
    REQUIRE_FALSE(all);
    CHECK(all.error().message() ==
          "squeue --noheader --states=RUNNING --Format=…: no answer in time (is slurmctld up?)");
}
