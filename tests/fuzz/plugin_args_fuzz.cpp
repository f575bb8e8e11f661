// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: what users and admins hand the SPANK plugin. The input is split into words
// at NUL, newline and space (plugstack.conf arguments); each word also goes to every user option
// (srun --pipeline-stages= ...), the tasks-per-node reader and Slurm's topology address reader.
// The whole input is also a step cache file (step_cache.hpp): looked up with checks that hold
// for lines of even length (the file system is never touched), merged with an entry, and its
// text escaped and read back.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "plan_hooks.hpp"
#include "plugin_args.hpp"
#include "step_cache.hpp"
#include "switchyard/common/job_options.hpp"

namespace {

namespace sc = switchyard::spank::step_cache;

bool even(void* /*ctx*/, const char* /*line*/, std::size_t len) {
    return len % 2 == 0;
}
bool even_file(const char* /*line*/, std::size_t len) {
    return len % 2 == 0;
}

void step_cache(std::string_view text) {
    constexpr char kHeader[] = "switchyard-step-cache 1 fuzz";
    const auto hit = sc::find_entry(text.data(), text.size(), kHeader, even, nullptr, even_file);
    if (hit.data != nullptr) {  // inside the text, ending where an "end" line starts
        const auto at = static_cast<std::size_t>(hit.data - text.data());
        if (at > text.size() || hit.len > text.size() - at ||
            text.substr(at + hit.len).substr(0, 3) != "end") {
            std::abort();
        }
    }
    static std::string out(sc::kMaxFile, '\0');
    sc::Out o(out.data(), out.size());
    const std::string entry = "entry\nwords a\nset 0 X =1\nend\n";
    if (sc::merge(o, kHeader, text.data(), text.size(), entry.data(), entry.size()) &&
        std::string_view(o.data, o.len).substr(0, sizeof kHeader + entry.size()) !=
            std::string(kHeader) + "\n" + entry) {
        std::abort();  // the new entry comes first
    }
    if (text.size() <= 4096) {  // escaping reverses
        static std::string esc(3 * 4096 + 1, '\0');
        static std::string back(4097, '\0');
        sc::Out e(esc.data(), esc.size());
        e.esc(text.data(), text.size());
        if (!e.ok || sc::unescape(e.data, e.len, back.data(), back.size()) != text.size() ||
            std::memcmp(back.data(), text.data(), text.size()) != 0) {
            std::abort();
        }
    }
    static std::string scratch(4096, '\0');
    (void)sc::unescape(text.data(), text.size(), scratch.data(), scratch.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    step_cache(text);
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
    switchyard::JobOptions opts;
    for (const auto w : words) {
        for (const auto id : {switchyard::OptionId::PipelineStages,
                              switchyard::OptionId::StageScope, switchyard::OptionId::RankOrder,
                              switchyard::OptionId::NcclEnv, switchyard::OptionId::TopoReport}) {
            (void)switchyard::apply_option(opts, id, w);
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
