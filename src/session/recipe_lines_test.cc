#include "session/recipe_lines.h"

#include <gtest/gtest.h>

#include "session/launch_spec.h"

namespace smemlab::session {
namespace {

TEST(RecipeLines, SeveralRecipesPerFileInOrderWithPlaces) {
  const std::string text =
      "#include <x>\n"
      "// smemlab: --kernel a --grid 1 --block 32\n"
      "__global__ void a() {}\n"
      "  // smemlab: --kernel b --shared 64\n";
  auto r = parse_recipes(text, "k.cu");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].kernel(), "a");
  EXPECT_EQ(r[0].line, 2);
  EXPECT_EQ(r[0].column, 12);  // where the text after the prefix starts
  EXPECT_EQ(r[1].kernel(), "b");
  EXPECT_EQ(r[1].line, 4);
  EXPECT_EQ(r[1].column, 14);
  EXPECT_EQ(r[1].value_of("--shared"), "64");
  // Offsets point into the file: the word as written.
  const RecipeWord& v = r[1].words[3];
  EXPECT_EQ(text.substr(r[1].offset + v.at, v.length), "64");
  EXPECT_EQ(r[1].where(3), "k.cu:4:35");
}

TEST(RecipeLines, QuotesKeepBlanksInOneWord) {
  auto r = parse_recipe(R"( --kernel "scale<float, 4>" --arg 'float[8]=zeros' x"y z"w)");
  ASSERT_EQ(r.words.size(), 5u);
  EXPECT_EQ(r.kernel(), "scale<float, 4>");
  EXPECT_EQ(r.words[1].length, std::string(R"("scale<float, 4>")").size());
  EXPECT_EQ(r.words[3].text, "float[8]=zeros");
  EXPECT_EQ(r.words[4].text, "xy zw");
}

TEST(RecipeLines, OnlyLinesStartingWithThePrefix) {
  auto r = parse_recipes("int x;  // smemlab: --kernel no\n\t// smemlab: --kernel yes", "f.cu");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].kernel(), "yes");
  EXPECT_TRUE(parse_recipes("// smemlab --kernel k\n", "f.cu").empty());
}

TEST(RecipeLines, OpenQuoteIsAnErrorNamingFileLineColumn) {
  try {
    parse_recipes("\n// smemlab: --kernel \"k<int\n", "bad.cu");
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "bad.cu:2:22: recipe: the quote \" is not closed");
  }
  EXPECT_THROW(read_recipes("/nonexistent/k.cu"), UsageError);
}

TEST(RecipeLines, KernelNeedsAValue) {
  EXPECT_EQ(parse_recipe(" --grid 1 --kernel").kernel(), "");
  EXPECT_EQ(parse_recipe("").words.size(), 0u);
}

}  // namespace
}  // namespace smemlab::session
