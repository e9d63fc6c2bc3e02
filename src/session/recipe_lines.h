// `// smemlab: ARGS` recipe lines, the one reader of them (launch_spec's
// recipe launches, `fix`'s edit of a recipe, `report`, the perf tests and the
// suite tests). The rules:
// - a recipe is a line whose first non-blank text is `// smemlab:`; a file
//   may hold several, in order;
// - its words are split on blanks; "..." or '...' quote a word with blanks
//   (--kernel "scale<float, 4>"), the quotes not part of it;
// - a quote left open is an error naming FILE:LINE:COLUMN (UsageError).
// What the words mean is launch_spec.h's apply_recipe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace smemlab::session {

struct RecipeWord {
  std::string text;   // quotes removed
  size_t at = 0;      // offset in Recipe::text where the word, as written, starts
  size_t length = 0;  // as written (quotes included)
};

struct Recipe {
  std::string file;
  int line = 0, column = 0;  // 1-based; where `text` starts (0: built by hand)
  size_t offset = 0;         // of `text` in the file
  std::string text;          // after the prefix
  std::vector<RecipeWord> words;
  // FILE:LINE:COLUMN of word `k`.
  std::string where(size_t k) const;
  // The word after the first `option` ("" when none): kernel() is --kernel's.
  std::string value_of(std::string_view option) const;
  std::string kernel() const { return value_of("--kernel"); }
};

// The recipe text after a `// smemlab:` prefix at FILE:LINE:COLUMN.
Recipe parse_recipe(std::string text, const std::string& file = "", int line = 0, int column = 0,
                    size_t offset = 0);
// Every recipe of a file's text, in order.
std::vector<Recipe> parse_recipes(std::string_view file_text, const std::string& file);
// The same read from `path`; an unreadable file is a UsageError naming it.
std::vector<Recipe> read_recipes(const std::string& path);

}  // namespace smemlab::session
