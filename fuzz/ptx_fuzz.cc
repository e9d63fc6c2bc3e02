// PTX text through the lexer, parser and decoder; kernels that decode then
// run for one small block with zeroed arguments and a small budget (the
// interpreter's own checks: out-of-bounds, deadlock, budget). Only
// ptx::ParseError and emu::DecodeError may come out; launch problems are a
// LaunchStatus.
#include <cstdint>

#include "emu/launch.h"
#include "ptx/parser.h"
#include "fuzz/fuzz_main.h"

using namespace smemlab;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text = fuzz::text_of(data, size);
  try {
    emu::Device dev;
    auto m = emu::Module::load_text(dev, text, "fuzz.ptx");
    uint64_t global = 0;
    for (const auto& a : dev.memory().allocations()) global += a->size;
    for (const std::string& k : m->kernel_names()) {
      const emu::Program& p = m->kernel(k);
      // Bound the work per input: small blocks, little memory.
      if (global > (16u << 20) || uint64_t{p.num_regs} * 8 * 32 > (16u << 20)) continue;
      std::vector<emu::ArgBytes> args;
      for (const auto& prm : p.params) args.emplace_back(prm.size, 0);
      emu::LaunchConfig cfg{{2}, {64}};
      cfg.threads = 1;
      cfg.budget = 20000;
      emu::launch_raw(*m, k, cfg, args);
    }
  } catch (const ptx::ParseError&) {
  } catch (const emu::DecodeError&) {
  }
  return 0;
}
