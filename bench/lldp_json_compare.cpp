// SPDX-License-Identifier: Apache-2.0
// The LLDP reader's own JSON reader against nlohmann/json (already a dependency) over the same
// lldpctl files: every file of DIR read and parsed, one at a time, on one thread. `switchyard`
// runs discover's parse_lldp (the JSON and the lldpctl schema over it, as discover reads each
// file); `nlohmann` runs nlohmann::json::parse alone (the JSON only: a lower bound of what the
// reader would cost on nlohmann). Prints the files, bytes, neighbours or values seen, and the CPU
// time of the parsing alone; run it under /usr/bin/time for the peak memory
// (bench/lldp-json-compare.sh runs both side by side on the 100k x 8 capture).
// Usage: lldp_json_compare switchyard|nlohmann DIR
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "switchyard/discover/lldp/lldp.hpp"

namespace {

double cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

std::size_t values(const nlohmann::json& j) {
    std::size_t n = 1;
    if (j.is_structured()) {
        for (const auto& v : j) {
            n += values(v);
        }
    }
    return n;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3 || (std::string(argv[1]) != "switchyard" && std::string(argv[1]) != "nlohmann")) {
        std::fprintf(stderr, "usage: lldp_json_compare switchyard|nlohmann DIR\n");
        return 2;
    }
    const std::string mode = argv[1];
    std::vector<std::filesystem::path> paths;
    for (const auto& e : std::filesystem::directory_iterator(argv[2])) {
        paths.push_back(e.path());
    }
    std::sort(paths.begin(), paths.end());
    std::size_t bytes = 0;
    std::size_t seen = 0;
    double parse_s = 0;
    std::string text;
    for (const auto& p : paths) {
        std::ifstream in(p, std::ios::binary);
        std::ostringstream ss;
        ss << in.rdbuf();
        text = ss.str();
        bytes += text.size();
        const double t0 = cpu_seconds();
        if (mode == "switchyard") {
            auto f = switchyard::discover::detail::parse_lldp(
                text, p.string(), switchyard::discover::detail::JsonReading::Both);
            if (!f) {
                std::fprintf(stderr, "%s\n", f.error().to_string().c_str());
                return 1;
            }
            seen += f->neighbors.size();
        } else {
            // lldpctl files hold two documents (show chassis, then show neighbors).
            std::size_t at = 0;
            while (at < text.size()) {
                const auto next = text.find("\n{", at);
                const auto end = next == std::string::npos ? text.size() : next + 1;
                const auto doc =
                    nlohmann::json::parse(text.begin() + static_cast<long>(at),
                                          text.begin() + static_cast<long>(end), nullptr, false);
                if (doc.is_discarded()) {
                    std::fprintf(stderr, "%s: not JSON\n", p.c_str());
                    return 1;
                }
                seen += values(doc);
                at = end;
            }
        }
        parse_s += cpu_seconds() - t0;
    }
    std::printf("%s: %zu files, %.1f MB, %zu %s, parsing %.2f s CPU (%.0f MB/s)\n", mode.c_str(),
                paths.size(), static_cast<double>(bytes) / 1e6, seen,
                mode == "switchyard" ? "neighbours" : "JSON values", parse_s,
                static_cast<double>(bytes) / 1e6 / parse_s);
    return 0;
}
