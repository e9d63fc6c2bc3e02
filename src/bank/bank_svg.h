// SVG rendering of one warp request's bank map, for the HTML source view
// (`--html`) and `smemlab bank --svg`: the programming guide's figure — banks
// across, wavefronts down, the lanes each bank serves in the cells — with
// the words that cost extra wavefronts marked. Same facts as bank_map.h's
// text grid, drawn for a browser.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "bank/bank.h"

namespace smemlab::bank {

// An <svg> element (no XML prolog, so it can be inlined in HTML or written
// to a file as is). Cells carry class "cell" plus "conflict" for a bank
// that serves the same lane group again in a later wavefront, and
// "broadcast" for a word delivered to several lanes; every cell has a
// <title> with bank, word and lanes. `title` is drawn above the grid.
std::string render_bank_svg(const Result& result, unsigned banks, std::string_view title);

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
