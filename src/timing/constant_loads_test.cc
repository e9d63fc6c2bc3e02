// Constant loads ptxas folds into operands (constant_loads.cc) on a decoded
// PTX kernel: symbol-addressed ld.const and ld.param fold, a constant load
// from a run-time address and a global load do not. The setp's 0 and the
// barrier's id 0 are the constant register of c_tab's address: they read
// it, and it stays a constant.
#include "timing/constant_loads.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "emu/launch.h"

namespace smemlab::timing {
namespace {

constexpr const char* kPtx = R"(
.version 8.0
.target sm_90
.address_size 64
.const .align 4 .b8 c_tab[64];
.visible .entry k(.param .u64 k_param_0)
{
  .reg .pred %p<2>;
  .reg .f32 %f<5>;
  .reg .b32 %r<3>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [k_param_0];
  ld.const.f32 %f1, [c_tab+4];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 15;
  mul.wide.u32 %rd2, %r2, 4;
  mov.u64 %rd3, c_tab;
  add.s64 %rd4, %rd3, %rd2;
  setp.eq.s32 %p1, %r2, 0;
  bar.sync 0;
  ld.const.f32 %f2, [%rd4];
  cvta.to.global.u64 %rd5, %rd1;
  ld.global.f32 %f3, [%rd5];
  add.f32 %f4, %f1, %f2;
  add.f32 %f4, %f4, %f3;
  st.global.f32 [%rd5], %f4;
  ret;
}
)";

TEST(ConstantLoads, SymbolAddressesFoldRunTimeAddressesDoNot) {
  emu::Device dev;
  auto module = emu::Module::load_text(dev, kPtx, "k.ptx");
  const emu::Program& p = module->kernel("k");
  const std::vector<uint8_t> folded = folded_constant_loads(p);
  ASSERT_EQ(folded.size(), p.ops.size());
  std::vector<std::pair<std::string, int>> loads;
  for (size_t pc = 0; pc < p.ops.size(); ++pc) {
    const std::string& text = p.info[p.ops[pc].info].text;
    if (text.rfind("ld.", 0) == 0) loads.emplace_back(text, folded[pc]);
  }
  const std::vector<std::pair<std::string, int>> want = {
      {"ld.param.u64", 1}, {"ld.const.f32", 1}, {"ld.const.f32", 0}, {"ld.global.f32", 0}};
  EXPECT_EQ(loads, want);
  for (size_t pc = 0; pc < p.ops.size(); ++pc) {
    if (p.info[p.ops[pc].info].text.rfind("ld.", 0) != 0) {
      EXPECT_EQ(folded[pc], 0) << pc;
    }
  }
}

}  // namespace
}  // namespace smemlab::timing
