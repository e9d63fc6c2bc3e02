#include "check/cluster_exit_order.h"

#include <fmt/format.h>

#include <algorithm>

namespace smemlab::check::detail {

void ClusterExitOrder::on_block_begin() {
  seq_ = 0;
  unordered_.clear();
  completed_at_.clear();
  phase_releases_ = 0;
}

void ClusterExitOrder::ordered_up_to(uint64_t seq) {
  // (unordered_ is in seq order.)
  auto end = std::find_if(unordered_.begin(), unordered_.end(),
                          [seq](const Access& a) { return a.seq > seq; });
  unordered_.erase(unordered_.begin(), end);
}

void ClusterExitOrder::on_dshared(const emu::DsharedAccess& d) {
  if (!d.incoming || !d.access.mask) return;
  const emu::MemAccess& a = d.access;
  const bool write = a.op != emu::MemOp::Load && a.op != emu::MemOp::BulkLoad;
  unordered_.push_back({++seq_, a.instr, a.warp * 32 + static_cast<uint32_t>(__builtin_ctz(a.mask)),
                        d.issuer_rank, a.block, write, a.mbarrier});
}

void ClusterExitOrder::on_mbarrier(const emu::Mbarrier& m) {
  if (!(m.target == s_.block)) return;  // an operation of this block's on a peer's barrier
  if (m.completed) {
    completed_at_[uint64_t{m.addr} << 1 | (m.parity_before & 1)] = seq_;
    ++phase_releases_;
    return;
  }
  if ((m.kind == emu::MbarrierKind::TryWait || m.kind == emu::MbarrierKind::TestWait) && m.ready &&
      !m.incoming) {
    auto it = completed_at_.find(uint64_t{m.addr} << 1 | (m.wait_parity & 1));
    if (it != completed_at_.end()) ordered_up_to(it->second);
  }
}

void ClusterExitOrder::on_barrier_release(const emu::BarrierRelease& r) {
  if (r.barrier < 16) return;  // bar.sync: within the block
  if (phase_releases_) {       // a completed mbarrier phase's (on_mbarrier took it)
    --phase_releases_;
    return;
  }
  ordered_up_to(seq_);  // the cluster barrier
}

void ClusterExitOrder::on_block_end() {
  if (unordered_.empty()) return;
  const Access& a = unordered_.front();
  const char* what = a.mbarrier ? "mbarrier operation" : a.write ? "write" : "read";
  const char* article = a.mbarrier ? "an" : "a";
  const size_t before = out_.findings.size();
  out_.report(FindingKind::ClusterExit, Severity::Error,
              fmt::format("block {} exits with {} access{} of its shared memory by cluster peers "
                          "that nothing orders before its exit, the first {} by block {} "
                          "(cluster rank {}): no cluster barrier after it, and no wait of this "
                          "block's on an mbarrier phase it completed before; on the GPU it may "
                          "reach this block after the block exited (end with cluster.sync())",
                          dim_text(s_.block), unordered_.size(), unordered_.size() == 1 ? "" : "es",
                          fmt::format("{} {}", article, what), dim_text(a.block), a.rank),
              a.instr, a.thread, nullptr, 0, what);
  if (out_.findings.size() > before) out_.findings.back().involved.back().block = a.block;
  unordered_.clear();
}

}  // namespace smemlab::check::detail
