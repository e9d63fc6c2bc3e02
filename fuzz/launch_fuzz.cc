// Launch options and `// smemlab:` recipes: each input line is a recipe (the
// text after `// smemlab:`). The first recipe is applied, then every value is
// parsed as prepare_launch would; small buffers are made. Only UsageError
// may come out.
#include <sstream>

#include "fuzz/fuzz_main.h"
#include "session/launch_spec.h"

using namespace smemlab;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::stringstream in(fuzz::text_of(data, size));
  session::PreparedInput input;
  int n = 0;
  std::vector<std::string> texts;
  for (std::string l; std::getline(in, l);) {
    texts.push_back(l);
    try {
      input.recipes.push_back(session::parse_recipe(l, "fuzz.cu", ++n, 12));
    } catch (const session::UsageError&) {
    }
  }
  session::LaunchOptions o;
  o.file = "fuzz.cu";
  try {
    session::apply_recipe(o, input);
  } catch (const session::UsageError&) {
  }
  try {
    if (!o.grid.empty() && !o.block.empty())
      emu::launch_limits_error(session::parse_dim(o.grid, "--grid"),
                               session::parse_dim(o.block, "--block"));
  } catch (const session::UsageError&) {
  }
  std::vector<session::ArgSpec> specs;
  uint64_t bytes = 0;
  bool files = false;
  for (const auto& a : o.args) {
    try {
      specs.push_back(session::parse_arg(a));
      bytes += specs.back().count * specs.back().elem_size;
      files |= specs.back().init == session::ArgSpec::Init::File;
    } catch (const session::UsageError&) {
    }
  }
  // Buffers up to 1 MiB (the caps are tested elsewhere; here: the fill code).
  if (bytes <= (1u << 20) && !files) {
    emu::Device dev;
    try {
      session::prepare_args(dev, specs);
    } catch (const session::UsageError&) {
    }
  }
  try {
    session::resolve_kernel(texts, o.kernel);
  } catch (const session::UsageError&) {
  }
  for (const auto& r : texts) session::demangle(r);
  return 0;
}
