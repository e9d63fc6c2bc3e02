#include "check/barrier_check.h"

#include <algorithm>

#include "bank/bank_map.h"

namespace smemlab::check::detail {

void BarrierCheck::on_barrier(const emu::BarrierArrive& b) {
  uint32_t missing = b.live_mask & ~b.mask;
  if (b.aligned && missing) {
    out_.report(FindingKind::DivergentBarrier, Severity::Error,
                fmt::format("barrier {} reached by lanes {} of warp {} but not by lanes {} "
                            "(bar.sync must be reached by all non-exited lanes of a warp)",
                            b.barrier, bank::lane_list(b.mask), b.warp, bank::lane_list(missing)),
                b.instr, b.warp * 32 + static_cast<uint32_t>(__builtin_ctz(b.mask | 1u << 31)),
                nullptr, 0, "barrier");
  }
  // A barrier without a thread count waits for the whole block; one with a
  // count (bar.sync 1, 128: a warp-specialized kernel's consumers after its
  // producer warps exited) waits for that many, whoever else exited.
  if (b.aligned && !b.counted && b.kind != emu::BarrierKind::Arrive && s_.exited > 0 &&
      b.expected == s_.threads - s_.exited) {
    out_.report(
        FindingKind::DivergentBarrier, Severity::Error,
        fmt::format("barrier {} waits for the {} threads still running: {} of the block's {} "
                    "threads exited before it (undefined for bar.sync)",
                    b.barrier, b.expected, s_.exited, s_.threads),
        b.instr, b.warp * 32, nullptr, 0, "barrier");
  }
  // Different warps at different barrier instructions (within one warp the
  // partial-warp finding above already says it).
  auto& waiting = waiting_[b.barrier];
  if (waiting.empty()) waiting.push_back({b.instr, b.warp});
  const auto& [first, first_warp] = waiting.front();
  if (b.aligned && first != b.instr && first_warp != b.warp)
    out_.report(
        FindingKind::DivergentBarrier, Severity::Error,
        fmt::format("warps {} and {} wait at barrier {} from different barrier instructions "
                    "(PTX lines {} and {})",
                    first_warp, b.warp, b.barrier, first->ptx_line, b.instr->ptx_line),
        b.instr, b.warp * 32, first, first_warp * 32, "barrier", "other barrier");
}

void BarrierCheck::on_warp_sync(const emu::WarpSync& w) {
  // w.mask holds the lanes at other instructions of the same kind too (the
  // two sides of an if/else execute one collective together since sm_70).
  // The lanes past the block's last thread (a block of 120 threads: lanes
  // 24-31 of warp 3) are no threads at all; the GPU waits for none of them.
  const uint32_t first = w.warp * 32;
  const uint32_t lanes = s_.threads > first ? std::min(s_.threads - first, 32u) : 32u;
  const uint32_t exists = lanes == 32 ? ~0u : (1u << lanes) - 1;
  uint32_t missing = w.member_mask & ~w.mask & exists;
  if (missing)
    out_.report(
        FindingKind::DivergentBarrier, Severity::Error,
        fmt::format("warp collective '{}' names lanes {} in its member mask, but only lanes "
                    "{} of warp {} execute it (lanes {} exited or never arrive)",
                    w.instr->text, bank::lane_list(w.member_mask), bank::lane_list(w.mask), w.warp,
                    bank::lane_list(missing)),
        w.instr, w.warp * 32 + static_cast<uint32_t>(__builtin_ctz(w.mask | 1u << 31)), nullptr, 0,
        "collective");
}

}  // namespace smemlab::check::detail
