#include "check/tx_balance.h"

#include <fmt/format.h>

namespace smemlab::check::detail {

void TxBalance::on_mbarrier(const emu::Mbarrier& m) {
  if (!(m.target == s_.block)) return;  // this block's operation on a peer's barrier
  using K = emu::MbarrierKind;
  if (m.kind == K::Init) {
    Bar fresh;
    fresh.valid = true;
    bars_[m.addr] = fresh;
    return;
  }
  auto it = bars_.find(m.addr);
  if (it == bars_.end()) return;  // (the emulator faults a use before init)
  Bar& bar = it->second;
  if (m.kind == K::Inval) {
    bar.valid = false;
    return;
  }
  const Site site{m.instr, m.warp * 32 + m.lane, m.block};
  if ((m.kind == K::Arrive || m.kind == K::ExpectTx) && m.tx) {
    bar.announced += m.tx;
    bar.expect = site;
  } else if (m.kind == K::CompleteTx) {
    bar.completed += m.tx;
    bar.complete = site;
    bar.by_copy = m.copy != 0;
  }
  bar.tx = m.tx_after;
}

// "shared offset 8 (`full`)", "shared offset 1032 (dynamic shared memory)".
std::string TxBalance::name(uint32_t off) const {
  std::string s = fmt::format("shared offset {}", off);
  for (const SharedVar& v : s_.layout.shared)
    if (off >= v.offset && off < v.offset + v.size)
      return s + (off == v.offset ? fmt::format(" (`{}`)", v.name)
                                  : fmt::format(" (`{}`+{})", v.name, off - v.offset));
  return off >= s_.layout.dynamic_offset ? s + " (dynamic shared memory)" : s;
}

void TxBalance::on_block_end() {
  for (const auto& [off, bar] : bars_) {
    if (!bar.valid || bar.tx == 0) continue;
    const std::string what =
        bar.tx < 0
            ? fmt::format(
                  "its copies completed {} bytes more than expect_tx announced: a "
                  "phase completed before all of its bytes had landed, so its waiters "
                  "may read bytes still to come (on the GPU, whether a waiter sees that "
                  "phase complete at all depends on timing)",
                  -static_cast<int64_t>(bar.tx))
            : fmt::format("{} announced bytes never came (a wait for the phase hangs)", bar.tx);
    const std::string msg = fmt::format(
        "the mbarrier at {} of block {} ends with a tx-count of {}: expect_tx announced {} bytes "
        "in all, {} completed; {}",
        name(off), dim_text(s_.block), bar.tx, bar.announced, bar.completed, what);
    const char* done_role = bar.by_copy ? "copy" : "complete_tx";
    const Site& first = bar.expect.instr ? bar.expect : bar.complete;
    const Site* other = bar.expect.instr && bar.complete.instr ? &bar.complete : nullptr;
    const size_t before = out_.findings.size();
    out_.report(FindingKind::TxMismatch, Severity::Error, msg, first.instr, first.thread,
                other ? other->instr : nullptr, other ? other->thread : 0,
                bar.expect.instr ? "expect_tx" : done_role, done_role);
    if (out_.findings.size() == before) continue;  // merged with an earlier block's
    Finding& f = out_.findings.back();
    f.involved.back().block = first.block;
    if (other) f.involved.front().block = other->block;
  }
}

}  // namespace smemlab::check::detail
