// Test helper: runs a few PTX statements in a one-kernel module. Each thread
// has 8 result slots of 8 bytes at %rd14 (out + 64 * tid); tests store what
// they check there. Registers %p %h %r %rd %f %fd (0..15) are declared;
// %r15, %rd0 and %rd13..%rd15 are taken by the harness.
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <string>
#include <vector>

#include "emu/launch.h"

namespace smemlab::emu::test {

struct SnippetResult {
  bool ok = false;
  std::string error;
  std::vector<uint64_t> slots;  // 8 per thread
  uint64_t at(int thread, int slot) const { return slots[static_cast<size_t>(thread * 8 + slot)]; }
  uint32_t u32(int slot, int thread = 0) const { return static_cast<uint32_t>(at(thread, slot)); }
  int32_t s32(int slot, int thread = 0) const { return static_cast<int32_t>(at(thread, slot)); }
  float f32(int slot, int thread = 0) const { return std::bit_cast<float>(u32(slot, thread)); }
  double f64(int slot, int thread = 0) const { return std::bit_cast<double>(at(thread, slot)); }
};

// printf output goes to *printed when given (else stdout).
inline SnippetResult run_snippet(const std::string& body, int threads = 1,
                                 const std::string& globals = "", uint32_t dynamic_shared = 0,
                                 std::string* printed = nullptr) {
  std::string text = std::string(".version 9.0\n.target sm_90\n.address_size 64\n") + globals +
                     ".visible .entry t(.param .u64 out, .param .u32 x)\n{\n"
                     "  .reg .pred %p<16>;\n  .reg .b16 %h<16>;\n  .reg .b32 %r<16>;\n"
                     "  .reg .b64 %rd<16>;\n  .reg .f32 %f<16>;\n  .reg .f64 %fd<16>;\n"
                     "  ld.param.u64 %rd0, [out];\n  mov.u32 %r15, %tid.x;\n"
                     "  mul.wide.u32 %rd15, %r15, 64;\n  add.s64 %rd14, %rd0, %rd15;\n" +
                     body + "\n  ret;\n}\n";
  Device dev;
  SnippetResult r;
  std::unique_ptr<Module> m;
  try {
    m = Module::load_text(dev, text, "snippet.ptx");
    m->kernel("t");
  } catch (const std::exception& e) {
    r.error = e.what();
    return r;
  }
  uint64_t out = dev.malloc(static_cast<uint64_t>(threads) * 64);
  LaunchConfig cfg{{1}, {static_cast<uint32_t>(threads)}, dynamic_shared};
  cfg.budget = 100000;
  if (printed) cfg.printf_sink = [printed](const std::string& s) { *printed += s; };
  auto st = launch(*m, "t", cfg, out, 7u);
  if (!st.ok()) {
    r.error = st.error->what();
    return r;
  }
  r.slots.resize(static_cast<size_t>(threads) * 8);
  dev.copy_from(r.slots.data(), out, r.slots.size() * 8);
  r.ok = true;
  return r;
}

#define SNIPPET_OK(r) ASSERT_TRUE((r).ok) << (r).error

inline uint32_t fbits(float f) { return std::bit_cast<uint32_t>(f); }
inline uint64_t dbits(double d) { return std::bit_cast<uint64_t>(d); }

}  // namespace smemlab::emu::test
