// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: plan and health JSON for `switchyard render`. The first byte chooses the
// reader; an accepted overlay is drawn over a small Dragonfly+ map, which must not fail.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "switchyard/common/job_options.hpp"
#include "switchyard/fabric/fabric_map.hpp"
#include "switchyard/render/render_input.hpp"
#include "switchyard/render/render_svg.hpp"

namespace {

constexpr std::string_view kMap =
    "switchyard-fabric-map 2\n"
    "# written by switchyard 0.1.0 discover from ib.txt\n"
    "kind dragonfly+\n"
    "tiers 2\n"
    "hcas mlx5_0\n"
    "switch g1-leaf1 0x0c42a10300000300 1\n"
    "switch g1-leaf2 0x0c42a10300000400 1\n"
    "switch g2-leaf1 0x0c42a10300000700 1\n"
    "switch g2-leaf2 0x0c42a10300000800 1\n"
    "switch g1-spine1 0x0c42a10300000100 2\n"
    "switch g1-spine2 0x0c42a10300000200 2\n"
    "switch g2-spine1 0x0c42a10300000500 2\n"
    "switch g2-spine2 0x0c42a10300000600 2\n"
    "group g1\n"
    "group g2\n"
    "su g1-leaf1 g1 g1-leaf1 mlx5_0:g1-leaf1\n"
    "su g1-leaf2 g1 g1-leaf2 mlx5_0:g1-leaf2\n"
    "su g2-leaf1 g2 g2-leaf1 mlx5_0:g2-leaf1\n"
    "su g2-leaf2 g2 g2-leaf2 mlx5_0:g2-leaf2\n"
    "host node001 g1-leaf1\n"
    "host node002 g1-leaf1\n"
    "host node003 g1-leaf2\n"
    "host node004 g2-leaf1\n"
    "host node005 g1-leaf2\n"
    "host node006 g1-leaf1\n"
    "host node007 g1-leaf2\n"
    "host node008 g2-leaf1\n"
    "host node009 g2-leaf2\n"
    "host node010 g1-leaf2\n"
    "host node011 g1-leaf1\n"
    "host node012 g2-leaf1\n"
    "host node013 g2-leaf2\n"
    "host node014 g2-leaf2\n"
    "host node015 g2-leaf2\n"
    "host node016 g2-leaf1\n"
    "end 8 switches 4 sus 16 hosts\n";

const switchyard::fabric::FabricMap& small_map() {
    static const auto map = [] {
        auto m = switchyard::fabric::read_fabric_map(kMap, "embedded");
        if (!m) {
            std::abort();
        }
        return std::move(*m);
    }();
    return map;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace render = switchyard::render;
    if (size == 0) {
        return 0;
    }
    const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
    render::RenderOverlay ov;
    const auto ok = (data[0] & 1) == 0 ? render::parse_plan_json(text, "fuzz.json", ov)
                                       : render::parse_health_json(text, "fuzz.json", ov);
    if (!ok) {
        return 0;
    }
    if (ov.stages > switchyard::kMaxPipelineStages) {
        std::abort();
    }
    (void)render::render_svg(small_map(), ov);
    return 0;
}
