// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: what users and admins hand the SPANK plugin. The input is split into words
// at NUL, newline and space (plugstack.conf arguments); each word also goes to every user option
// (srun --pipeline-stages= ...), the tasks-per-node reader and Slurm's topology address reader.
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "plan_hooks.hpp"
#include "plugin_args.hpp"
#include "switchyard/policy/job_options.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace pol = switchyard::policy;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::vector<std::string_view> words;
    for (std::size_t start = 0; start <= text.size();) {
        const auto end = text.find_first_of(std::string_view("\0\n ", 3), start);
        const auto stop = end == std::string_view::npos ? text.size() : end;
        if (stop > start) {
            words.push_back(text.substr(start, stop - start));
        }
        start = stop + 1;
    }
    (void)switchyard::spank::parse_plugin_args(words);
    pol::JobOptions opts;
    for (const auto w : words) {
        for (const auto id :
             {pol::OptionId::PipelineStages, pol::OptionId::StageScope, pol::OptionId::RankOrder,
              pol::OptionId::NcclEnv, pol::OptionId::TopoReport}) {
            (void)pol::apply_option(opts, id, w);
        }
        (void)switchyard::spank::uniform_tasks_per_node(w);
    }
    if (words.size() >= 2) {
        const auto leaf = switchyard::spank::slurm_leaf(words[0], words[1]);
        if (leaf && leaf->empty()) {
            std::abort();  // a leaf is a switch or block name, never empty
        }
    }
    return 0;
}
