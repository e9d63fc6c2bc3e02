// InstrInfo::trait comes from the decoded op, not from the instruction's
// text: every atom.cas form (shared, global, 32 and 64 bits) and
// bar.warp.sync have theirs; look-alikes (atom.exch, bar.sync, vote) none.
#include <gtest/gtest.h>

#include <string>

#include "emu/launch.h"

namespace smemlab::emu {
namespace {

TEST(InstrTrait, SetByTheDecoderFromTheOp) {
  const std::string text = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry t(.param .u64 p)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .shared .align 8 .b8 s[64];
  ld.param.u64 %rd0, [p];
  atom.shared.cas.b32 %r1, [s], %r2, %r3;
  atom.global.cas.b64 %rd1, [%rd0], %rd2, %rd3;
  atom.shared.exch.b32 %r4, [s], %r2;
  bar.warp.sync -1;
  bar.sync 0;
  vote.sync.any.pred %p1, %p0, -1;
  ret;
}
)";
  Device dev;
  auto m = Module::load_text(dev, text, "trait.ptx");
  const Program& p = m->kernel("t");
  // (The test may read the text; the checkers may not.)
  auto trait = [&](const std::string& start) {
    for (const InstrInfo& i : p.info)
      if (i.text.starts_with(start)) return i.trait;
    ADD_FAILURE() << "no instruction " << start;
    return InstrTrait::None;
  };
  EXPECT_EQ(trait("atom.shared.cas.b32"), InstrTrait::CompareAndSwap);
  EXPECT_EQ(trait("atom.global.cas.b64"), InstrTrait::CompareAndSwap);
  EXPECT_EQ(trait("atom.shared.exch"), InstrTrait::None);
  EXPECT_EQ(trait("bar.warp.sync"), InstrTrait::WarpMemoryOrder);
  EXPECT_EQ(trait("bar.sync"), InstrTrait::None);
  EXPECT_EQ(trait("vote"), InstrTrait::None);
}

}  // namespace
}  // namespace smemlab::emu
