// A warp request's bank map — the programming guide's figure: banks across,
// wavefronts down, the lanes each bank serves in the cells, the words that
// cost extra wavefronts marked — as facts (bank_figure, which the HTML view
// embeds and its script draws) and as SVG (`smemlab bank --svg`). Same facts
// as bank_map.h's text grid, drawn for a browser.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bank/bank.h"

namespace smemlab::bank {

// What a bank-map figure shows, decided here from the bank model's answer
// and nowhere else: the cells of each wavefront (a bank, the words it
// delivers and the lanes they go to) and whether a cell is a conflict (its
// bank serves the same lane group in several wavefronts) or a broadcast
// (several lanes). Both drawers draw exactly this: render_bank_svg below
// (for `bank --svg`) and the HTML page's script, which receives it as JSON
// (report/html.cc) and draws the same markup when a line is opened.
struct FigureCell {
  unsigned bank = 0;
  std::vector<uint64_t> words;
  uint32_t lanes = 0;
  bool conflict = false, broadcast = false;
};
struct FigureRow {
  unsigned group = 0;  // lane group (half-, quarter-warp) of the wavefront
  std::vector<FigureCell> cells;
};
struct FigureData {
  unsigned banks = 32, wavefronts = 0, ideal = 0, bank_conflicts = 0;
  std::vector<FigureRow> rows;  // one per wavefront
};
FigureData bank_figure(const Result& result, unsigned banks);

// The drawing's geometry and style (pixels): shared with the page's script
// through the page's data, so that both drawers lay a figure out alike.
inline constexpr int kFigureCell = 26, kFigureLabel = 58, kFigureTop = 44;
// The <style> of a figure (cell colours by class, Okabe-Ito) and its
// legend, drawn below the grid (24 pixels high, from y = 0).
std::string bank_figure_style();
std::string bank_figure_legend();

// An <svg> element (no XML prolog, so it can be inlined in HTML or written
// to a file as is). Cells carry class "cell" plus "conflict" and/or
// "broadcast" (as FigureCell says); every cell has a <title> with bank,
// word and lanes. `title` is drawn above the grid. Only occupied cells are
// elements; the empty ones are one grid (grid_svg).
std::string render_bank_svg(const Result& result, unsigned banks, std::string_view title);
std::string render_bank_svg(const FigureData& figure, std::string_view title);

// The empty grid of a figure: `cols` x `rows` cells of `cell` pixels from
// (x0, y0), as one background and one path; occupied cells are drawn over it.
std::string grid_svg(int x0, int y0, int cols, int rows, int cell);

// A standalone SVG file (with the XML namespace) of one or more figures
// stacked top to bottom, e.g. one request on several generations.
struct Figure {
  Result result;
  unsigned banks = 32;
  std::string title;
};
std::string bank_svg_document(const std::vector<Figure>& figures);

// Escapes &, <, >, " and ' for text and attribute values.
std::string xml_escape(std::string_view text);

}  // namespace smemlab::bank
