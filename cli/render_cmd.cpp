// SPDX-License-Identifier: Apache-2.0
// `switchyard render`: the fabric map as an SVG picture, with a job's plan and drained nodes.
#include <filesystem>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "switchyard/ops/inputs.hpp"
#include "switchyard/render/render_input.hpp"
#include "switchyard/render/render_svg.hpp"

namespace switchyard::cli {

using ops::load_fabric_map;
using ops::read_json_dir;
namespace {

using render::parse_health_json;
using render::parse_plan_json;
using render::render_svg;
using render::RenderOverlay;

struct RenderArgs {
    std::string map;
    std::string plan;
    std::string health;
    std::string out = "-";
};

/// Stages from `switchyard plan --json` output.
Result<void> read_plan(const std::string& path, RenderOverlay& ov) {
    auto text = read_input(path, kSmallInput);
    if (!text) {
        return fail(text.error());
    }
    return parse_plan_json(*text, "--plan " + path, ov);
}

/// Drained nodes from a directory of `switchyard health --json` outputs (one file per node).
Result<void> read_health(const std::string& dir, RenderOverlay& ov) {
    auto files = read_json_dir(dir, "--health");
    if (!files) {
        return fail(files.error());
    }
    for (const auto& [path, text] : *files) {
        if (auto r = parse_health_json(text, path, ov); !r) {
            return r;
        }
    }
    return {};
}

int run_render(const RenderArgs& a) {
    auto map = load_fabric_map(a.map);
    if (!map) {
        std::cerr << "switchyard render: " << map.error().to_string() << "\n";
        return kExitProblem;
    }
    RenderOverlay ov;
    if (!a.plan.empty()) {
        if (auto r = read_plan(a.plan, ov); !r) {
            std::cerr << "switchyard render: " << r.error().message() << "\n";
            return kExitProblem;
        }
    }
    if (!a.health.empty()) {
        if (auto r = read_health(a.health, ov); !r) {
            std::cerr << "switchyard render: " << r.error().message() << "\n";
            return kExitProblem;
        }
    }
    const auto svg = render_svg(*map, ov);
    if (a.out == "-") {
        std::cout << svg;
        return kExitOk;
    }
    if (auto w = write_file_atomic(a.out, svg); !w) {
        std::cerr << "switchyard render: -o: " << w.error().message() << "\n";
        return kExitProblem;
    }
    return kExitOk;
}

}  // namespace

void setup_render(CLI::App& cmd, Runner& run) {
    auto a = std::make_shared<RenderArgs>();
    cmd.footer(
        "\nExamples:\n  switchyard render --map /etc/slurm/switchyard/fabric.map -o fabric.svg\n"
        "  switchyard plan --map fabric.map --nodes \"$SLURM_JOB_NODELIST\" --stages 4 --json "
        "> plan.json\n"
        "  switchyard render --map fabric.map --plan plan.json --health health/ -o job.svg\n");
    cmd.add_option("--map", a->map, "fabric map written by 'switchyard discover'")->required();
    cmd.add_option("--plan", a->plan, "a job's plan: the output of 'switchyard plan --json'");
    cmd.add_option("--health", a->health,
                   "directory of 'switchyard health --json' outputs; failed nodes are marked");
    cmd.add_option("-o,--output", a->out, "SVG file to write (default: standard output)");
    cmd.callback([&run, a] { run = [a] { return run_render(*a); }; });
}

}  // namespace switchyard::cli
