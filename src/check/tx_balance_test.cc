// tx-mismatch under `check` (tx_balance.h): a block whose copies complete
// more bytes than expect_tx announced runs on (as the GPU does) and is
// reported at its end with the expect_tx and the last copy; announced bytes
// that never come, with no one waiting, likewise; balanced ones are not.
// Real launches of a 1-D bulk copy kernel: thread 0 announces `announce`
// bytes, then copies two 16-byte halves of a global buffer.
#include <gtest/gtest.h>

#include "check/defects.h"
#include "emu/launch.h"

namespace smemlab::check {
namespace {

constexpr const char* kCopies = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry copies(.param .u64 p, .param .u32 announce, .param .u32 wait)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .shared .align 8 .b64 bar;
  .shared .align 16 .b8 buf[32];
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r5, [announce];
  ld.param.u32 %r6, [wait];
  mov.u32 %r0, %tid.x;
  mov.u32 %r1, bar;
  mov.u32 %r2, buf;
  add.u32 %r3, %r2, 16;
  add.s64 %rd2, %rd1, 16;
  setp.eq.u32 %p0, %r0, 0;
  @%p0 mbarrier.init.shared::cta.b64 [%r1], 1;
  bar.sync 0;
  @%p0 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r1], %r5;
  @%p0 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], [%rd1], 16, [%r1];
  @%p0 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [%rd2], 16, [%r1];
  setp.ne.u32 %p2, %r6, 0;
  @!%p2 bra DONE;
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], 0;
  @!%p1 bra WAIT;
DONE:
  ret;
}
)";

struct Result {
  bool ok = false;
  std::string error;
  std::vector<Finding> findings;
};

Result check_copies(uint32_t announce, bool wait) {
  emu::Device dev;
  auto m = emu::Module::load_text(dev, kCopies, "copies.ptx");
  const emu::Program& prog = m->kernel("copies");
  const uint64_t src = dev.malloc(32);
  MemoryLayout layout;
  for (const auto& v : prog.shared_vars) layout.shared.push_back({v.name, v.offset, v.size});
  layout.dynamic_offset = prog.static_shared;
  DefectCheck defects(layout);
  emu::LaunchConfig cfg{{2}, {64}};
  cfg.threads = 1;
  cfg.observer = &defects;
  auto st = emu::launch(*m, "copies", cfg, src, announce, wait ? 1u : 0u);
  Result r;
  r.ok = st.ok();
  if (!r.ok) r.error = st.error->message;
  r.findings = defects.findings();
  return r;
}

TEST(TxBalance, CopiesBeyondTheAnnouncedBytesRunOnAndAreReportedWithBothLines) {
  Result r = check_copies(16, true);  // the phase completes at the first half
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.findings.size(), 1u);
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.kind, FindingKind::TxMismatch);
  EXPECT_EQ(f.count, 2u);  // both blocks
  EXPECT_NE(f.message.find("the mbarrier at shared offset 0 (`bar`) of block (0,0,0) ends with a "
                           "tx-count of -16: expect_tx announced 16 bytes in all, 32 completed; "
                           "its copies completed 16 bytes more than expect_tx announced"),
            std::string::npos)
      << f.message;
  ASSERT_EQ(f.involved.size(), 2u);
  EXPECT_EQ(f.involved[0].role, "copy");
  EXPECT_NE(f.involved[0].instr.find("cp.async.bulk"), std::string::npos);
  EXPECT_EQ(f.involved[1].role, "expect_tx");
  EXPECT_NE(f.involved[1].instr.find("mbarrier.arrive.expect_tx"), std::string::npos);
  // The expect_tx, then the two copies: the finding names the last one.
  EXPECT_EQ(f.involved[0].ptx_line, f.involved[1].ptx_line + 2);
}

TEST(TxBalance, AnnouncedBytesThatNeverComeWithNoWaiterAreReported) {
  Result r = check_copies(48, false);
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].kind, FindingKind::TxMismatch);
  EXPECT_NE(r.findings[0].message.find("ends with a tx-count of 16: expect_tx announced 48 bytes "
                                       "in all, 32 completed; 16 announced bytes never came"),
            std::string::npos)
      << r.findings[0].message;
}

TEST(TxBalance, AnnouncedBytesThatAllComeAreNoFinding) {
  Result r = check_copies(32, true);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.findings.empty()) << r.findings[0].message;
}

}  // namespace
}  // namespace smemlab::check
