// SPDX-License-Identifier: Apache-2.0
// `switchyard check-config FILE`: every problem of a policy file, compiler-style, one per line.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "switchyard/ops/inputs.hpp"
#include "switchyard/policy/policy.hpp"

namespace switchyard::cli {
namespace {

int run_check_config(const std::string& file) {
    auto text = read_input(file, kPolicyInput);
    if (!text) {
        std::cerr << "switchyard check-config: " << text.error().to_string() << "\n";
        return kExitProblem;
    }
    const auto loaded = policy::load_policy(*text, file);
    for (const auto& p : loaded.problems) {
        std::cerr << p.to_string() << "\n";
    }
    if (!loaded.policy) {
        std::cerr << loaded.problems.size() << " problem"
                  << (loaded.problems.size() == 1 ? "" : "s") << " in " << file << "\n";
        return kExitProblem;
    }
    std::cout << file << ": ok (" << loaded.policy->nccl.profiles.size()
              << " NCCL profiles; users may choose: " << loaded.policy->nccl.user_profile_names()
              << ")\n";
    return kExitOk;
}

}  // namespace

void setup_check_config(CLI::App& cmd, Runner& run) {
    auto file = std::make_shared<std::string>();
    cmd.footer("\nExamples:\n  switchyard check-config /etc/slurm/switchyard.yaml\n");
    cmd.add_option("file", *file, "policy file (switchyard.yaml)")->required();
    cmd.callback([&run, file] { run = [file] { return run_check_config(*file); }; });
}

}  // namespace switchyard::cli
