// SPDX-License-Identifier: Apache-2.0
// Entry point of the switchyard command: global flags, subcommand dispatch, exit codes.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <streambuf>
#include <string>
#include <string_view>

#include "commands.hpp"
#include "switchyard/common/strings.hpp"

namespace {

/// Standard error as a terminal can take it: messages quote names, paths and lines from the
/// inputs, so control characters (but newline and tab), DEL and bytes that are not UTF-8 are
/// written as \xNN; a name cannot move the cursor, retitle the window or hide a line.
class TerminalSafe final : public std::streambuf {
public:
    explicit TerminalSafe(std::streambuf* to) : to_(to) {}

protected:
    int_type overflow(int_type c) override {
        if (traits_type::eq_int_type(c, traits_type::eof())) {
            return traits_type::not_eof(c);
        }
        const char ch = traits_type::to_char_type(c);
        return xsputn(&ch, 1) == 1 ? c : traits_type::eof();
    }

    std::streamsize xsputn(const char* p, std::streamsize n) override {
        const std::string_view s(p, static_cast<std::size_t>(n));
        std::string out;
        out.reserve(s.size());
        for (std::size_t i = 0; i < s.size();) {
            const auto u = static_cast<unsigned char>(s[i]);
            if (u == '\n' || u == '\t') {
                out += s[i++];
                continue;
            }
            // Up to the next newline or tab, as printable() writes it.
            const auto end = s.find_first_of("\n\t", i);
            const auto part = s.substr(i, end == std::string_view::npos ? s.size() - i : end - i);
            out += switchyard::printable(part);
            i += part.size();
        }
        const auto len = static_cast<std::streamsize>(out.size());
        return to_->sputn(out.data(), len) == len ? n : 0;
    }

    int sync() override { return to_->pubsync(); }

private:
    std::streambuf* to_;
};

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
    // Kept to the end of the process (never destroyed: std::cerr is flushed after statics go).
    static auto* const safe = new TerminalSafe(std::cerr.rdbuf());
    std::cerr.rdbuf(safe);
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
