// SPDX-License-Identifier: Apache-2.0
// Entry point of the switchyard command: global flags, subcommand dispatch, exit codes.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <string>

#include "commands.hpp"

namespace {

int run_main(int argc, char** argv) {
    namespace cli = switchyard::cli;
    CLI::App app{
        "switchyard: place and wire LLM training jobs on Slurm GPU clusters the way the fabric "
        "wants.\n\nExamples:\n  switchyard --version\n  switchyard <subcommand> --help\n",
        "switchyard"};
    // The Slurm release this build (and its plugin) is for: Slurm loads a plugin of its own
    // release only.
    app.set_version_flag("-V,--version", std::string("switchyard ") + SWITCHYARD_VERSION_STRING +
                                             " (built for Slurm " SWITCHYARD_SLURM_RELEASE ")");
    app.require_subcommand(0, 1);
    cli::Runner run;
    cli::register_subcommands(app, run);
    if (argc > 1 && argv[1][0] != '-' && !cli::is_subcommand(argv[1])) {
        std::cerr << "switchyard: unknown subcommand '" << argv[1]
                  << "'; valid subcommands: " << cli::subcommand_names()
                  << "\nRun 'switchyard --help' for usage.\n";
        return cli::kExitUsage;
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "switchyard: " << e.what() << "\nRun 'switchyard --help' for usage.\n";
        return cli::kExitUsage;
    }
    if (!run) {
        std::cerr << "switchyard: a subcommand is required; valid subcommands: "
                  << cli::subcommand_names() << "\nRun 'switchyard --help' for usage.\n";
        return cli::kExitUsage;
    }
    try {
        return run();
    } catch (const std::exception& e) {
        std::cerr << "switchyard: internal error: " << e.what() << '\n';
        return cli::kExitProblem;
    }
}

}  // namespace

int main(int argc, char** argv) {
    // Nothing escapes: setting up the options can throw too (std::bad_alloc), and an exception
    // leaving main would abort without a message.
    try {
        return run_main(argc, argv);
    } catch (const std::exception& e) {
        std::cerr << "switchyard: internal error: " << e.what() << '\n';
    } catch (...) {
        std::cerr << "switchyard: internal error\n";
    }
    return switchyard::cli::kExitProblem;
}
