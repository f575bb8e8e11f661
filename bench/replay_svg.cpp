// SPDX-License-Identifier: Apache-2.0
// bench/replay_report's picture of one run.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <numeric>
#include <tuple>

#include "replay_report.hpp"

namespace replay {

std::string fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

void write_svg(const std::string& dir, const Run& run, const switchyard::fabric::FabricMap& map) {
    // Rows: hosts grouped by SU, SUs by group (name order), a gap between SUs; columns:
    // seconds since the first submission.
    std::vector<std::uint32_t> su_order(map.sus.size());
    std::iota(su_order.begin(), su_order.end(), 0U);
    std::sort(su_order.begin(), su_order.end(), [&](std::uint32_t a, std::uint32_t b) {
        return std::tie(map.groups[map.sus[a].group].name, map.sus[a].name) <
               std::tie(map.groups[map.sus[b].group].name, map.sus[b].name);
    });
    std::map<std::string, int> row;
    int y = 0;
    std::vector<int> su_top(map.sus.size());
    for (const auto su : su_order) {
        su_top[su] = y;
        for (std::uint32_t h = 0; h < map.hosts.size(); ++h) {
            if (map.hosts[h].su == su) {
                row[map.hosts[h].name] = y++;
            }
        }
        y += 2;
    }
    long t0 = run.jobs.front().submit;
    long t1 = t0;
    for (const auto& j : run.jobs) {
        t0 = std::min(t0, j.submit);
        t1 = std::max(t1, j.end);
    }
    const double w = 900.0 / static_cast<double>(std::max<long>(1, t1 - t0));
    const int h = 4;
    std::ofstream out(dir + "/" + run.label + ".svg");
    out << "<svg xmlns='http://www.w3.org/2000/svg' width='1000' height='" << y * h + 40
        << "'>\n<title>" << run.label
        << ": nodes by SU (rows) over time; one colour per job, its stages in alternating "
           "shades</title>\n<text x='4' y='14' font-size='12'>"
        << run.label << " (" << t1 - t0 << " s)</text>\n";
    for (std::size_t su = 0; su < su_top.size(); ++su) {
        out << "<text x='4' y='" << 30 + su_top[su] * h + 12 << "' font-size='10'>"
            << map.sus[su].name << "</text>\n";
    }
    for (const auto& j : run.jobs) {
        const int hue = static_cast<int>((j.id * 137U) % 360U);
        for (std::size_t s = 0; s < j.stage_nodes.size(); ++s) {
            const int light = s % 2 == 0 ? 45 : 70;
            for (const auto& n : j.stage_nodes[s]) {
                out << "<rect x='" << fixed(90 + static_cast<double>(j.start - t0) * w, 1)
                    << "' y='" << 30 + row[n] * h << "' width='"
                    << fixed(std::max(1.0, static_cast<double>(j.end - j.start) * w), 1)
                    << "' height='" << h - 1 << "' fill='hsl(" << hue << ",70%," << light
                    << "%)'><title>job r" << j.id << " stage " << s << "</title></rect>\n";
            }
        }
    }
    out << "</svg>\n";
}

}  // namespace replay
