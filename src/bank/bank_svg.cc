#include "bank/bank_svg.h"

#include <fmt/core.h>

#include <algorithm>
#include <bit>
#include <map>
#include <set>
#include <vector>

#include "bank/bank_map.h"

namespace smemlab::bank {

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) switch (c) {
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
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  return out;
}

namespace {

// Okabe-Ito colours: distinguishable with every common colour-vision
// deficiency; the class names and <title>s carry the same facts as text.
constexpr const char* kServed = "#56B4E9";
constexpr const char* kBroadcast = "#009E73";
constexpr const char* kConflict = "#E69F00";

constexpr int kCell = kFigureCell, kLabel = kFigureLabel, kTop = kFigureTop;

int figure_width(unsigned banks) { return kLabel + static_cast<int>(banks) * kCell + 4; }
int figure_height(size_t rows) { return kTop + std::max(static_cast<int>(rows), 1) * kCell + 24; }

}  // namespace

FigureData bank_figure(const Result& result, unsigned banks) {
  // A bank is conflicted when it serves one lane group in more than one
  // wavefront: those extra passes are what the conflict costs.
  std::map<std::pair<unsigned, unsigned>, int> passes_of;  // (group, bank) -> passes
  for (const auto& wf : result.passes) {
    std::set<unsigned> seen;
    for (const Slot& s : wf.slots)
      if (seen.insert(s.bank).second) ++passes_of[{wf.group, s.bank}];
  }
  FigureData f;
  f.banks = banks;
  f.wavefronts = result.wavefronts;
  f.ideal = result.ideal;
  f.bank_conflicts = result.bank_conflicts;
  for (const auto& wf : result.passes) {
    FigureRow row{wf.group, {}};
    for (unsigned b = 0; b < banks; ++b) {
      FigureCell c;
      c.bank = b;
      for (const Slot& s : wf.slots)
        if (s.bank == b) {
          c.lanes |= s.lanes;
          c.words.push_back(s.word);
        }
      if (!c.lanes) continue;
      c.conflict = passes_of[{wf.group, b}] > 1;
      c.broadcast = std::popcount(c.lanes) > 1;
      row.cells.push_back(std::move(c));
    }
    f.rows.push_back(std::move(row));
  }
  return f;
}

std::string bank_figure_style() {
  return fmt::format(
      ".bank-map .cell rect{{fill:{};stroke:#333}}.bank-map .broadcast rect{{fill:{}}}"
      ".bank-map .conflict rect{{fill:{}}}.bank-map .cells,.bank-map .banks{{text-anchor:middle}}",
      kServed, kBroadcast, kConflict);
}

std::string bank_figure_legend() {
  return fmt::format(
      "<g font-size=\"10\"><rect x=\"0\" y=\"7\" width=\"10\" height=\"10\" fill=\"{0}\"/>"
      "<text x=\"14\" y=\"16\">one lane</text><rect x=\"80\" y=\"7\" width=\"10\" "
      "height=\"10\" fill=\"{1}\"/><text x=\"94\" y=\"16\">several lanes (+)</text>"
      "<rect x=\"200\" y=\"7\" width=\"10\" height=\"10\" fill=\"{2}\"/><text x=\"214\" "
      "y=\"16\">bank busy in several wavefronts (conflict)</text></g>",
      kServed, kBroadcast, kConflict);
}

std::string grid_svg(int x0, int y0, int cols, int rows, int cell) {
  // Empty cells are the bulk of a figure (a 32-way conflict leaves 992 of
  // 1,024 empty): one background and one path of grid lines draw them all.
  std::string d;
  for (int r = 0; r <= rows; ++r) d += fmt::format("M{} {}h{}", x0, y0 + r * cell, cols * cell);
  for (int c = 0; c <= cols; ++c) d += fmt::format("M{} {}v{}", x0 + c * cell, y0, rows * cell);
  return fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#f4f4f4\"/>"
      "<path d=\"{}\" stroke=\"#ddd\" fill=\"none\"/>",
      x0, y0, cols * cell, rows * cell, d);
}

std::string render_bank_svg(const Result& result, unsigned banks, std::string_view title) {
  return render_bank_svg(bank_figure(result, banks), title);
}

// The page's script (report/html_assets.h, bankMap) draws the same markup
// from the same FigureData; tests/html compares the two cell for cell.
std::string render_bank_svg(const FigureData& f, std::string_view title) {
  const int rows = static_cast<int>(f.rows.size());
  const int width = figure_width(f.banks), height = figure_height(f.rows.size());
  std::string out = fmt::format(
      "<svg class=\"bank-map\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" role=\"img\" "
      "font-family=\"sans-serif\" font-size=\"10\"><title>{2}</title><style>{3}</style>",
      width, height, xml_escape(title), bank_figure_style());
  out += fmt::format("<text x=\"0\" y=\"14\" font-size=\"12\" font-weight=\"bold\">{}</text>",
                     xml_escape(title));
  out += fmt::format(
      "<text x=\"0\" y=\"{}\" fill=\"#444\">{} wavefront{} (ideal {}), {} bank conflict{}</text>",
      kTop - 18, f.wavefronts, f.wavefronts == 1 ? "" : "s", f.ideal, f.bank_conflicts,
      f.bank_conflicts == 1 ? "" : "s");
  out += fmt::format("<text class=\"banks\" y=\"{}\">", kTop - 4);
  for (unsigned b = 0; b < f.banks; ++b)
    out += fmt::format("<tspan x=\"{}\">{}</tspan>", kLabel + int(b) * kCell + kCell / 2, b);
  out += "</text><text>";
  for (int p = 0; p < rows; ++p)
    out +=
        fmt::format("<tspan x=\"0\" y=\"{}\">wf {}{}</tspan>", kTop + p * kCell + kCell / 2 + 4,
                    p + 1, rows > 1 && f.rows[p].group ? fmt::format(" g{}", f.rows[p].group) : "");
  out += "</text>" + grid_svg(kLabel, kTop, static_cast<int>(f.banks), std::max(rows, 1), kCell);
  out += "<g class=\"cells\">";
  for (int p = 0; p < rows; ++p) {
    int y = kTop + p * kCell;
    for (const FigureCell& c : f.rows[p].cells) {
      int x = kLabel + int(c.bank) * kCell;
      std::string words;
      for (uint64_t w : c.words) words += fmt::format("{}{}", words.empty() ? "" : ", ", w);
      out += fmt::format(
          "<g class=\"cell{}{}\" data-bank=\"{}\" data-wavefront=\"{}\"><title>wavefront {}, bank "
          "{}: word {} to lane{} {}</title><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>"
          "<text x=\"{}\" y=\"{}\">{}{}</text></g>",
          c.conflict ? " conflict" : "", c.broadcast ? " broadcast" : "", c.bank, p + 1, p + 1,
          c.bank, words, c.broadcast ? "s" : "", lane_list(c.lanes), x, y, kCell, kCell,
          x + kCell / 2, y + kCell / 2 + 4, std::countr_zero(c.lanes), c.broadcast ? "+" : "");
    }
  }
  out += "</g>";
  out += fmt::format("<g transform=\"translate(0,{})\">{}</g>", kTop + std::max(rows, 1) * kCell,
                     bank_figure_legend());
  out += "</svg>";
  return out;
}

std::string bank_svg_document(const std::vector<Figure>& figures) {
  int width = 0, height = 0;
  std::string body;
  for (const Figure& f : figures) {
    body += fmt::format("<g transform=\"translate(0,{})\">{}</g>", height,
                        render_bank_svg(f.result, f.banks, f.title));
    width = std::max(width, figure_width(f.banks));
    height += figure_height(f.result.passes.size()) + 12;
  }
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" "
      "height=\"{1}\">{2}</svg>\n",
      width, height, body);
}

}  // namespace smemlab::bank
