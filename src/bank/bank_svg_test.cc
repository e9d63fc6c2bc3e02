#include "bank/bank_svg.h"

#include <fmt/core.h>
#include <gtest/gtest.h>

#include <regex>

namespace smemlab::bank {
namespace {

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

Request column_read(unsigned row_words) {
  Request r;
  for (unsigned l = 0; l < 32; ++l) r.addr[l] = 4ull * l * row_words;  // tile[lane][0]
  return r;
}

TEST(BankSvg, ColumnReadOfA32WideTileIs32ConflictedCellsInOneBank) {
  auto m = make_model("sm_90");
  Result res = m->evaluate(column_read(32));
  ASSERT_EQ(res.wavefronts, 32u);
  std::string svg = render_bank_svg(res, m->banks(), "tile[tid][0]");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_EQ(count(svg, "class=\"cell conflict\""), 32u);
  EXPECT_EQ(count(svg, "data-bank=\"0\""), 32u);
  EXPECT_EQ(count(svg, "data-bank=\"1\""), 0u);
  EXPECT_NE(svg.find("32 wavefronts (ideal 1), 31 bank conflicts"), std::string::npos);
}

TEST(BankSvg, PaddedTileIsOneWavefrontWithoutConflicts) {
  auto m = make_model("sm_90");
  Result res = m->evaluate(column_read(33));
  std::string svg = render_bank_svg(res, m->banks(), "padded");
  EXPECT_EQ(count(svg, "class=\"cell\""), 32u);
  EXPECT_EQ(count(svg, "conflict\""), 0u);
  EXPECT_EQ(count(svg, "data-wavefront=\"1\""), 32u);
}

TEST(BankSvg, BroadcastIsMarkedAndListsItsLanes) {
  auto m = make_model("sm_90");
  Request r;  // every lane reads word 5
  for (unsigned l = 0; l < 32; ++l) r.addr[l] = 20;
  std::string svg = render_bank_svg(m->evaluate(r), m->banks(), "x");
  EXPECT_EQ(count(svg, "class=\"cell broadcast\""), 1u);
  EXPECT_NE(svg.find("word 5 to lanes 0-31"), std::string::npos);
}

TEST(BankSvg, EmptyCellsAreOneGridAndEveryLaneHasItsWord) {
  // A page embeds one figure per conflicted line and model: of the 1,024
  // cells of a 32-way conflict only the 32 occupied ones are elements.
  auto m = make_model("sm_90");
  std::string svg = render_bank_svg(m->evaluate(column_read(32)), m->banks(), "t");
  EXPECT_EQ(count(svg, "<rect"), 32u + 1 + 3);  // cells, the grid's background, the legend
  EXPECT_EQ(count(svg, "<path"), 1u);
  EXPECT_LT(svg.size(), 12000u) << "a 32x32 figure was 75 KB with every empty cell drawn";
  for (unsigned l = 0; l < 32; ++l)
    EXPECT_NE(svg.find(fmt::format("data-wavefront=\"{0}\"><title>wavefront {0}, bank 0: word "
                                   "{1} to lane {2}</title>",
                                   l + 1, 32 * l, l)),
              std::string::npos)
        << "lane " << l;
}

// The facts both drawers draw (bank --svg here, the page's script from JSON).
TEST(BankFigure, ConflictAndBroadcastAreDecidedPerCell) {
  auto m = make_model("sm_90");
  FigureData col = bank_figure(m->evaluate(column_read(32)), m->banks());
  EXPECT_EQ(col.wavefronts, 32u);
  ASSERT_EQ(col.rows.size(), 32u);
  for (unsigned l = 0; l < 32; ++l) {
    ASSERT_EQ(col.rows[l].cells.size(), 1u);
    const FigureCell& c = col.rows[l].cells[0];
    EXPECT_EQ(c.bank, 0u);
    EXPECT_EQ(c.words, std::vector<uint64_t>{32ull * l});
    EXPECT_EQ(c.lanes, 1u << l);
    EXPECT_TRUE(c.conflict);
    EXPECT_FALSE(c.broadcast);
  }
  Request r;  // every lane reads word 5: one cell, a broadcast, no conflict
  for (unsigned l = 0; l < 32; ++l) r.addr[l] = 20;
  FigureData b = bank_figure(m->evaluate(r), m->banks());
  ASSERT_EQ(b.rows.size(), 1u);
  ASSERT_EQ(b.rows[0].cells.size(), 1u);
  EXPECT_EQ(b.rows[0].cells[0].bank, 5u);
  EXPECT_EQ(b.rows[0].cells[0].lanes, 0xffffffffu);
  EXPECT_TRUE(b.rows[0].cells[0].broadcast);
  EXPECT_FALSE(b.rows[0].cells[0].conflict);
}

TEST(BankSvg, GridHasALinePerCellBoundary) {
  std::string g = grid_svg(10, 20, 3, 2, 5);
  EXPECT_NE(g.find("width=\"15\" height=\"10\""), std::string::npos);
  EXPECT_EQ(count(g, "h15"), 3u);  // rows + 1 horizontal lines
  EXPECT_EQ(count(g, "v10"), 4u);  // cols + 1 vertical lines
}

TEST(BankSvg, TitleIsEscaped) {
  auto m = make_model("sm_90");
  std::string svg = render_bank_svg(m->evaluate(column_read(1)), m->banks(), "a<b & \"c\"");
  EXPECT_NE(svg.find("a&lt;b &amp; &quot;c&quot;"), std::string::npos);
  EXPECT_EQ(svg.find("a<b"), std::string::npos);
}

}  // namespace
}  // namespace smemlab::bank
