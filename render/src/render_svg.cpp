// SPDX-License-Identifier: Apache-2.0
// SVG layout: SUs are fixed-width boxes in a grid inside their group; groups are packed in
// shelves. Everything is computed in one pass per box; no external fonts or scripts.
#include "switchyard/render/render_svg.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace switchyard::render {
namespace {

constexpr int kSuWidth = 300;
constexpr int kPad = 10;
constexpr int kSuHeader = 38;
constexpr int kGroupHeader = 28;
constexpr int kMaxRowWidth = 2400;
constexpr std::size_t kLabelledMaxTotal = 256;  // hosts in the fabric for labelled cells
constexpr std::size_t kLabelledMaxSu = 64;
constexpr std::size_t kSquaresMaxSu = 128;      // above: one bar per SU
constexpr std::size_t kSquaresMaxTotal = 8192;  // above: bars everywhere (SVG stays a few MB)

const char* const kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2",
                                "#17becf", "#bcbd22", "#7f7f7f", "#aec7e8", "#ffbb78", "#98df8a"};
constexpr const char* kDrained = "#d62728";
constexpr const char* kIdle = "#ffffff";

std::string esc(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

const char* stage_colour(unsigned stage) {
    return kPalette[stage % std::size(kPalette)];
}

enum class Mode { Labelled, Squares, Bar };

struct Box {
    int w = 0;
    int h = 0;
};

class Renderer {
public:
    Renderer(const fabric::FabricMap& map, const RenderOverlay& ov) : map_(map), ov_(ov) {}

    std::string run() {
        // Measure groups, pack them in shelves, then draw at the final positions.
        std::vector<Box> boxes;
        for (std::size_t g = 0; g < map_.groups.size(); ++g) {
            boxes.push_back(measure_group(g));
        }
        const int top = ov_.stages > 0 || !ov_.drained.empty() ? 92 : 64;
        int x = kPad;
        int y = top;
        int shelf = 0;
        int width = 0;
        std::vector<std::pair<int, int>> at;
        for (const auto& b : boxes) {
            if (x > kPad && x + b.w > kMaxRowWidth) {
                x = kPad;
                y += shelf + kPad;
                shelf = 0;
            }
            at.emplace_back(x, y);
            x += b.w + kPad;
            shelf = std::max(shelf, b.h);
            width = std::max(width, x);
        }
        const int height = y + shelf + kPad;
        width = std::max(width, 720);
        out_ << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\""
             << height << "\" viewBox=\"0 0 " << width << ' ' << height
             << "\" font-family=\"DejaVu Sans, Arial, sans-serif\">\n"
             << "<rect width=\"100%\" height=\"100%\" fill=\"#fafafa\"/>\n";
        header(top);
        for (std::size_t g = 0; g < boxes.size(); ++g) {
            draw_group(g, at[g].first, at[g].second, boxes[g]);
        }
        out_ << "</svg>\n";
        return out_.str();
    }

private:
    Mode mode(const fabric::MapSu& su) const {
        if (map_.hosts.size() <= kLabelledMaxTotal && su.hosts.size() <= kLabelledMaxSu) {
            return Mode::Labelled;
        }
        return su.hosts.size() <= kSquaresMaxSu && map_.hosts.size() <= kSquaresMaxTotal
                   ? Mode::Squares
                   : Mode::Bar;
    }

    int su_height(const fabric::MapSu& su) const {
        const auto n = static_cast<int>(su.hosts.size());
        switch (mode(su)) {
            case Mode::Labelled:
                return kSuHeader + ((n + 3) / 4) * 22 + 6;
            case Mode::Squares:
                return kSuHeader + ((n + 23) / 24) * 12 + 8;
            case Mode::Bar:
                return kSuHeader + 16 + 22;
        }
        return kSuHeader;
    }

    static int su_columns(std::size_t n) {
        return std::max(1, static_cast<int>(std::ceil(std::sqrt(static_cast<double>(n)))));
    }

    Box measure_group(std::size_t g) const {
        const auto& sus = map_.groups[g].sus;
        const int cols = su_columns(sus.size());
        Box b{cols * (kSuWidth + kPad) + kPad, kGroupHeader};
        for (std::size_t i = 0; i < sus.size(); i += static_cast<std::size_t>(cols)) {
            int row = 0;
            for (std::size_t j = i; j < std::min(sus.size(), i + static_cast<std::size_t>(cols));
                 ++j) {
                row = std::max(row, su_height(map_.sus[sus[j]]));
            }
            b.h += row + kPad;
        }
        b.h += kPad / 2;
        return b;
    }

    void header(int top) {
        std::size_t leaves = 0;
        for (const auto& s : map_.switches) {
            leaves += s.tier == 1 ? 1 : 0;
        }
        out_ << "<text x=\"" << kPad << "\" y=\"26\" font-size=\"18\" font-weight=\"bold\">"
             << esc(std::string(fabric::to_string(map_.kind))) << " fabric: " << map_.groups.size()
             << (map_.groups.size() == 1 ? " group, " : " groups, ") << map_.sus.size()
             << " scalable units, " << leaves << " leaves, " << map_.hosts.size()
             << " hosts</text>\n";
        out_ << "<text x=\"" << kPad << "\" y=\"46\" font-size=\"12\" fill=\"#555\">"
             << map_.hcas.size() << (map_.hcas.size() == 1 ? " rail (" : " rails (")
             << esc(join_names(map_.hcas, 8)) << "), " << map_.tiers << " switch tiers, "
             << map_.anomalies.size() << " anomalies reported by discover</text>\n";
        if (top <= 64) {
            return;
        }
        int x = kPad;
        const int y = 60;
        if (!ov_.job.empty()) {
            out_ << "<text x=\"" << x << "\" y=\"" << y + 12 << "\" font-size=\"12\">"
                 << esc(ov_.job) << "</text>\n";
            x += 12 + static_cast<int>(ov_.job.size()) * 7;
        }
        for (unsigned s = 0; s < ov_.stages; ++s) {
            out_ << "<rect x=\"" << x << "\" y=\"" << y + 2
                 << "\" width=\"12\" height=\"12\" fill=\"" << stage_colour(s) << "\"/><text x=\""
                 << x + 16 << "\" y=\"" << y + 12 << "\" font-size=\"11\">stage " << s
                 << "</text>\n";
            x += 70;
        }
        if (!ov_.drained.empty()) {
            out_ << "<rect x=\"" << x << "\" y=\"" << y + 2
                 << "\" width=\"12\" height=\"12\" fill=\"#fde0e0\" stroke=\"" << kDrained
                 << "\" stroke-width=\"2\"/><text x=\"" << x + 16 << "\" y=\"" << y + 12
                 << "\" font-size=\"11\">drained (" << ov_.drained.size() << ")</text>\n";
        }
    }

    static std::string join_names(const std::vector<std::string>& names, std::size_t max) {
        std::string out;
        for (std::size_t i = 0; i < names.size() && i < max; ++i) {
            out += (i != 0 ? ", " : "") + names[i];
        }
        if (names.size() > max) {
            out += ", … " + std::to_string(names.size() - max) + " more";
        }
        return out;
    }

    void draw_group(std::size_t g, int x, int y, Box b) {
        const auto& group = map_.groups[g];
        std::size_t hosts = 0;
        for (auto s : group.sus) {
            hosts += map_.sus[s].hosts.size();
        }
        out_ << "<g class=\"group\" id=\"group-" << esc(group.name) << "\">\n"
             << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << b.w << "\" height=\"" << b.h
             << "\" rx=\"8\" fill=\"#eef2f7\" stroke=\"#4a5a70\" stroke-width=\"1.5\"/>\n"
             << "<text x=\"" << x + kPad << "\" y=\"" << y + 19
             << "\" font-size=\"14\" font-weight=\"bold\">" << esc(group.name) << " — "
             << group.sus.size() << " SUs, " << hosts << " hosts</text>\n";
        const int cols = su_columns(group.sus.size());
        int row_y = y + kGroupHeader;
        for (std::size_t i = 0; i < group.sus.size(); i += static_cast<std::size_t>(cols)) {
            int row = 0;
            for (std::size_t j = i;
                 j < std::min(group.sus.size(), i + static_cast<std::size_t>(cols)); ++j) {
                const auto& su = map_.sus[group.sus[j]];
                const int sx = x + kPad + static_cast<int>(j - i) * (kSuWidth + kPad);
                draw_su(su, sx, row_y);
                row = std::max(row, su_height(su));
            }
            row_y += row + kPad;
        }
        out_ << "</g>\n";
    }

    std::string tooltip(const std::string& host) const {
        std::string t = host;
        if (const auto s = ov_.stage_of.find(host); s != ov_.stage_of.end()) {
            t += ": stage " + std::to_string(s->second);
        }
        if (const auto d = ov_.drained.find(host); d != ov_.drained.end()) {
            t += " — drained: " + d->second;
        }
        return esc(t);
    }

    const char* fill(const std::string& host) const {
        if (ov_.drained.count(host) != 0) {
            return "#fde0e0";
        }
        const auto s = ov_.stage_of.find(host);
        return s == ov_.stage_of.end() ? kIdle : stage_colour(s->second);
    }

    void cell(const std::string& host, int x, int y, int w, int h, bool label) {
        const bool drained = ov_.drained.count(host) != 0;
        const bool in_job = ov_.stage_of.count(host) != 0;
        out_ << "<g class=\"host" << (drained ? " drained" : "") << "\"><title>" << tooltip(host)
             << "</title><rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << w << "\" height=\""
             << h << "\" rx=\"2\" fill=\"" << fill(host) << "\" stroke=\""
             << (drained ? kDrained : "#8a96a8") << "\" stroke-width=\"" << (drained ? 2 : 1)
             << "\"/>";
        if (drained) {
            out_ << "<path d=\"M" << x + 2 << ' ' << y + 2 << "L" << x + w - 2 << ' ' << y + h - 2
                 << "M" << x + w - 2 << ' ' << y + 2 << "L" << x + 2 << ' ' << y + h - 2
                 << "\" stroke=\"" << kDrained << "\" stroke-width=\"1.5\"/>";
        }
        if (label) {
            out_ << "<text x=\"" << x + w / 2 << "\" y=\"" << y + h - 5
                 << "\" font-size=\"10\" text-anchor=\"middle\" fill=\""
                 << (in_job && !drained ? "#fff" : "#222") << "\">" << esc(host) << "</text>";
        }
        out_ << "</g>\n";
    }

    void draw_su(const fabric::MapSu& su, int x, int y) {
        const int h = su_height(su);
        std::vector<std::string> leaves;
        for (auto l : su.leaves) {
            leaves.push_back(map_.switches[l].name);
        }
        std::string leaf_line =
            (su.leaves.size() == 1 ? "leaf " : "leaves ") + join_names(leaves, 2);
        if (leaf_line.size() > 52) {
            leaf_line = leaf_line.substr(0, 50) + "…";
        }
        out_ << "<g class=\"su\" id=\"su-" << esc(su.name) << "\">\n"
             << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << kSuWidth << "\" height=\""
             << h << "\" rx=\"5\" fill=\"#ffffff\" stroke=\"#9aa7b8\"/>\n"
             << "<text x=\"" << x + 8 << "\" y=\"" << y + 16
             << "\" font-size=\"12\" font-weight=\"bold\">" << esc(su.name) << " ("
             << su.hosts.size() << ")</text>\n"
             << "<text x=\"" << x + 8 << "\" y=\"" << y + 30 << "\" font-size=\"10\" fill=\"#666\">"
             << esc(leaf_line) << "</text>\n";
        const int top = y + kSuHeader;
        switch (mode(su)) {
            case Mode::Labelled:
                for (std::size_t i = 0; i < su.hosts.size(); ++i) {
                    cell(map_.hosts[su.hosts[i]].name, x + 8 + static_cast<int>(i % 4) * 72,
                         top + static_cast<int>(i / 4) * 22, 68, 18, true);
                }
                break;
            case Mode::Squares:
                for (std::size_t i = 0; i < su.hosts.size(); ++i) {
                    cell(map_.hosts[su.hosts[i]].name, x + 8 + static_cast<int>(i % 24) * 12,
                         top + static_cast<int>(i / 24) * 12, 10, 10, false);
                }
                break;
            case Mode::Bar:
                bar(su, x + 8, top);
                break;
        }
        out_ << "</g>\n";
    }

    /// One stacked bar: hosts per stage, then drained, then the rest; counts below.
    void bar(const fabric::MapSu& su, int x, int y) {
        std::map<unsigned, unsigned> per_stage;
        unsigned drained = 0;
        for (auto h : su.hosts) {
            const auto& name = map_.hosts[h].name;
            if (ov_.drained.count(name) != 0) {
                ++drained;
            } else if (const auto s = ov_.stage_of.find(name); s != ov_.stage_of.end()) {
                ++per_stage[s->second];
            }
        }
        const double scale = 284.0 / static_cast<double>(su.hosts.size());
        double at = x;
        std::string counts;
        auto segment = [&](unsigned n, const char* colour, const std::string& what) {
            if (n == 0) {
                return;
            }
            out_ << "<rect x=\"" << static_cast<int>(at) << "\" y=\"" << y << "\" width=\""
                 << std::max(1, static_cast<int>(n * scale)) << "\" height=\"16\" fill=\"" << colour
                 << "\"><title>" << esc(what) << ": " << n << " hosts</title></rect>\n";
            at += n * scale;
            counts += (counts.empty() ? "" : ", ") + what + " " + std::to_string(n);
        };
        out_ << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"284\" height=\"16\" fill=\""
             << kIdle << "\" stroke=\"#8a96a8\"/>\n";
        for (const auto& [stage, n] : per_stage) {
            segment(n, stage_colour(stage), "stage " + std::to_string(stage));
        }
        segment(drained, kDrained, "drained");
        const auto idle = static_cast<unsigned>(su.hosts.size()) - drained - [&] {
            unsigned t = 0;
            for (const auto& [s, n] : per_stage) {
                t += n;
            }
            return t;
        }();
        counts += (counts.empty() ? "" : ", ") + std::string("other ") + std::to_string(idle);
        out_ << "<text x=\"" << x << "\" y=\"" << y + 30 << "\" font-size=\"10\" fill=\"#444\">"
             << esc(counts) << "</text>\n";
    }

    const fabric::FabricMap& map_;
    const RenderOverlay& ov_;
    std::ostringstream out_;
};

}  // namespace

std::string render_svg(const fabric::FabricMap& map, const RenderOverlay& overlay) {
    return Renderer(map, overlay).run();
}

}  // namespace switchyard::render
