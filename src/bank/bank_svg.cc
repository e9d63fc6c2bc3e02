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

constexpr int kCell = 26, kLabel = 58, kTop = 44;

int figure_width(unsigned banks) { return kLabel + static_cast<int>(banks) * kCell + 4; }
int figure_height(const Result& r) {
  return kTop + std::max(static_cast<int>(r.passes.size()), 1) * kCell + 24;
}

}  // namespace

std::string render_bank_svg(const Result& result, unsigned banks, std::string_view title) {
  const int rows = static_cast<int>(result.passes.size());
  const int width = figure_width(banks), height = figure_height(result);

  // A bank is conflicted when it serves one lane group in more than one
  // wavefront: those extra passes are what the conflict costs.
  std::map<std::pair<unsigned, unsigned>, int> passes_of;  // (group, bank) -> passes
  for (const auto& wf : result.passes) {
    std::set<unsigned> seen;
    for (const Slot& s : wf.slots)
      if (seen.insert(s.bank).second) ++passes_of[{wf.group, s.bank}];
  }

  std::string out = fmt::format(
      "<svg class=\"bank-map\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" role=\"img\" "
      "font-family=\"sans-serif\" font-size=\"10\">",
      width, height);
  out += fmt::format("<title>{}</title>", xml_escape(title));
  out += fmt::format("<text x=\"0\" y=\"14\" font-size=\"12\" font-weight=\"bold\">{}</text>",
                     xml_escape(title));
  out += fmt::format(
      "<text x=\"0\" y=\"{}\" fill=\"#444\">{} wavefront{} (ideal {}), {} bank conflict{}</text>",
      kTop - 18, result.wavefronts, result.wavefronts == 1 ? "" : "s", result.ideal,
      result.bank_conflicts, result.bank_conflicts == 1 ? "" : "s");
  for (unsigned b = 0; b < banks; ++b)
    out +=
        fmt::format("<text class=\"bank-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                    kLabel + int(b) * kCell + kCell / 2, kTop - 4, b);
  for (int p = 0; p < rows; ++p) {
    const Wavefront& wf = result.passes[p];
    int y = kTop + p * kCell;
    out += fmt::format("<text x=\"0\" y=\"{}\">wf {}{}</text>", y + kCell / 2 + 4, p + 1,
                       result.passes.size() > 1 && wf.group ? fmt::format(" g{}", wf.group) : "");
    for (unsigned b = 0; b < banks; ++b) {
      int x = kLabel + int(b) * kCell;
      uint32_t lanes = 0;
      std::string words;
      for (const Slot& s : wf.slots)
        if (s.bank == b) {
          lanes |= s.lanes;
          if (!words.empty()) words += ", ";
          words += fmt::format("{}", s.word);
        }
      if (!lanes) {
        out += fmt::format(
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#f4f4f4\" "
            "stroke=\"#ddd\"/>",
            x, y, kCell, kCell);
        continue;
      }
      bool conflict = passes_of[{wf.group, b}] > 1, broadcast = std::popcount(lanes) > 1;
      std::string cls =
          std::string("cell") + (conflict ? " conflict" : "") + (broadcast ? " broadcast" : "");
      const char* fill = conflict ? kConflict : broadcast ? kBroadcast : kServed;
      out += fmt::format(
          "<g class=\"{}\" data-bank=\"{}\" data-wavefront=\"{}\"><title>wavefront {}, bank {}: "
          "word {} to lane{} {}</title><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
          "fill=\"{}\" stroke=\"#333\"/><text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}{}</text>"
          "</g>",
          cls, b, p + 1, p + 1, b, words, broadcast ? "s" : "", lane_list(lanes), x, y, kCell,
          kCell, fill, x + kCell / 2, y + kCell / 2 + 4, std::countr_zero(lanes),
          broadcast ? "+" : "");
    }
  }
  int ly = kTop + std::max(rows, 1) * kCell + 16;
  out += fmt::format(
      "<g font-size=\"10\"><rect x=\"0\" y=\"{0}\" width=\"10\" height=\"10\" fill=\"{1}\"/>"
      "<text x=\"14\" y=\"{4}\">one lane</text><rect x=\"80\" y=\"{0}\" width=\"10\" "
      "height=\"10\" fill=\"{2}\"/><text x=\"94\" y=\"{4}\">several lanes (+)</text>"
      "<rect x=\"200\" y=\"{0}\" width=\"10\" height=\"10\" fill=\"{3}\"/><text x=\"214\" "
      "y=\"{4}\">bank busy in several wavefronts (conflict)</text></g>",
      ly - 9, kServed, kBroadcast, kConflict, ly);
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
    height += figure_height(f.result) + 12;
  }
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" "
      "height=\"{1}\">{2}</svg>\n",
      width, height, body);
}

}  // namespace smemlab::bank
