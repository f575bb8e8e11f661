// SPDX-License-Identifier: Apache-2.0
// The Slurm C API shims, against the real libslurm of the release the build is for (22.05 on the
// host, 24.11 in the Debian 13 root: the same test, both APIs).
#include "slurm_compat.hpp"

#include <cstdint>
#include <string>

#include "catch.hpp"

namespace compat = switchyard::spank::slurm_compat;

TEST_CASE("slurm_compat: hostlist membership as Slurm reads ranges", "[slurm_compat]") {
    CHECK(compat::hostlist_contains("node[001-004,009]", "node003"));
    CHECK(compat::hostlist_contains("node[001-004,009]", "node009"));
    CHECK_FALSE(compat::hostlist_contains("node[001-004,009]", "node005"));
    CHECK_FALSE(compat::hostlist_contains("node[001-004]", "node"));
    CHECK(compat::hostlist_contains("a1,b[2-3]", "b3"));
}

TEST_CASE("slurm_compat: the handle is owned and released once", "[slurm_compat]") {
    auto hl = compat::hostlist_create("n[1-1000]");
    REQUIRE(hl != nullptr);
    CHECK(slurm_hostlist_count(hl.get()) == 1000);
    hl.reset();  // the deleter runs slurm_hostlist_destroy; ASan would see a double free
    CHECK(hl == nullptr);
}

TEST_CASE("slurm_compat: the release the build names is the headers' release", "[slurm_compat]") {
    const std::string release = std::to_string(compat::kMajor) + "." +
                                (compat::kMinor < 10 ? "0" : "") + std::to_string(compat::kMinor);
    CHECK(release == SWITCHYARD_SLURM_RELEASE);
}

namespace {
struct WithReasonUid {
    std::uint32_t reason_uid = 0;
};
struct WithoutReasonUid {  // 26.05's update_node_msg_t has no reason_uid
    int other = 7;
};
}  // namespace

TEST_CASE("slurm_compat: reason_uid is set where the release has it", "[slurm_compat]") {
    WithReasonUid a;
    compat::set_reason_uid(a, 42);
    CHECK(a.reason_uid == 42);
    WithoutReasonUid b;
    compat::set_reason_uid(b, 42);
    CHECK(b.other == 7);
    // This release's own message compiles with the shim, whichever shape it has.
    update_node_msg_t msg;
    slurm_init_update_node_msg(&msg);
    compat::set_reason_uid(msg, 0);
    CHECK(msg.node_names == nullptr);
}
