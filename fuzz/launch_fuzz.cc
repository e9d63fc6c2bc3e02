// Launch options and `// smemlab:` recipes: each input line is a recipe (the
// text after `// smemlab:`). The first recipe is applied, then every value is
// parsed as prepare_launch would; small buffers are made. Only UsageError
// may come out.
#include <sstream>

#include "cli/launch_options.h"
#include "fuzz/fuzz_main.h"

using namespace smemlab;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::stringstream in(fuzz::text_of(data, size));
  cli::PreparedInput input;
  int n = 0;
  for (std::string l; std::getline(in, l);) {
    input.recipes.push_back(l);
    input.recipe_lines.push_back(++n);
    input.recipe_columns.push_back(12);
  }
  cli::LaunchOptions o;
  o.file = "fuzz.cu";
  try {
    cli::apply_recipe(o, input);
  } catch (const cli::UsageError&) {
  }
  try {
    if (!o.grid.empty() && !o.block.empty())
      emu::launch_limits_error(cli::parse_dim(o.grid, "--grid"), cli::parse_dim(o.block, "--block"));
  } catch (const cli::UsageError&) {
  }
  std::vector<cli::ArgSpec> specs;
  uint64_t bytes = 0;
  bool files = false;
  for (const auto& a : o.args) {
    try {
      specs.push_back(cli::parse_arg(a));
      bytes += specs.back().count * specs.back().elem_size;
      files |= specs.back().init == cli::ArgSpec::Init::File;
    } catch (const cli::UsageError&) {
    }
  }
  // Buffers up to 1 MiB (the caps are tested elsewhere; here: the fill code).
  if (bytes <= (1u << 20) && !files) {
    emu::Device dev;
    try {
      cli::prepare_args(dev, specs);
    } catch (const cli::UsageError&) {
    }
  }
  try {
    cli::resolve_kernel(input.recipes, o.kernel);
  } catch (const cli::UsageError&) {
  }
  for (const auto& r : input.recipes) cli::demangle(r);
  return 0;
}
