#include "session/recipe_lines.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "session/launch_spec.h"

namespace smemlab::session {
namespace {

constexpr std::string_view kPrefix = "// smemlab:";

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Splits r.text into words; throws UsageError at a quote left open.
void split_recipe_words(Recipe& r) {
  const std::string& s = r.text;
  for (size_t i = 0; i < s.size();) {
    if (is_blank(s[i])) {
      ++i;
      continue;
    }
    RecipeWord w;
    w.at = i;
    while (i < s.size() && !is_blank(s[i])) {
      if (s[i] != '"' && s[i] != '\'') {
        w.text += s[i++];
        continue;
      }
      const size_t open = i;
      const size_t close = s.find(s[open], open + 1);
      if (close == std::string::npos)
        throw UsageError(fmt::format("{}:{}:{}: recipe: the quote {} is not closed", r.file, r.line,
                                     r.column + static_cast<int>(open), s[open]));
      w.text += s.substr(open + 1, close - open - 1);
      i = close + 1;
    }
    w.length = i - w.at;
    r.words.push_back(std::move(w));
  }
}

}  // namespace

std::string Recipe::where(size_t k) const {
  return fmt::format("{}:{}:{}", file, line,
                     column + static_cast<int>(k < words.size() ? words[k].at : 0));
}

std::string Recipe::value_of(std::string_view option) const {
  for (size_t k = 0; k + 1 < words.size(); ++k)
    if (words[k].text == option) return words[k + 1].text;
  return "";
}

Recipe parse_recipe(std::string text, const std::string& file, int line, int column,
                    size_t offset) {
  Recipe r;
  r.file = file;
  r.line = line;
  r.column = column;
  r.offset = offset;
  r.text = std::move(text);
  split_recipe_words(r);
  return r;
}

std::vector<Recipe> parse_recipes(std::string_view file_text, const std::string& file) {
  std::vector<Recipe> out;
  int n = 0;
  for (size_t start = 0; start < file_text.size();) {
    size_t end = file_text.find('\n', start);
    if (end == std::string_view::npos) end = file_text.size();
    ++n;
    std::string_view line = file_text.substr(start, end - start);
    size_t first = line.find_first_not_of(" \t");
    if (first != std::string_view::npos && line.substr(first).starts_with(kPrefix)) {
      size_t at = first + kPrefix.size();
      out.push_back(parse_recipe(std::string(line.substr(at)), file, n, static_cast<int>(at) + 1,
                                 start + at));
    }
    start = end + 1;
  }
  return out;
}

std::vector<Recipe> read_recipes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("{}: cannot read file", path));
  std::stringstream s;
  s << in.rdbuf();
  return parse_recipes(s.str(), path);
}

}  // namespace smemlab::session
