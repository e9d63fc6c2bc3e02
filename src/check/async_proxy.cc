#include "check/async_proxy.h"

#include <fmt/format.h>

#include <algorithm>

namespace smemlab::check::detail {

void AsyncProxy::join(Clock& a, const Clock& b) {
  if (a.size() < b.size()) a.resize(b.size(), 0);
  for (size_t i = 0; i < b.size(); ++i) a[i] = std::max(a[i], b[i]);
}

AsyncProxy::Clock AsyncProxy::release(uint32_t w) {
  Clock c = vc_[w];
  ++vc_[w][w];
  return c;
}

void AsyncProxy::on_block_begin(uint32_t warps, uint32_t shared_bytes) {
  warps_ = warps;
  next_comp_ = warps;
  chunks_total_ = (shared_bytes + 15) / 16;
  vc_.assign(warps, Clock(warps, 0));
  for (uint32_t w = 0; w < warps; ++w) vc_[w][w] = 1;
  fences_.assign(warps, {});
  waits_.assign(warps, {});
  for (auto& c : bar_accum_) c.clear();
  std::fill(std::begin(bar_warps_), std::end(bar_warps_), 0u);
  pending_mbar_releases_ = 0;
  mbars_.clear();
  copies_.clear();
  chunk_map_.clear();
  early_writes_.clear();
  active_ = false;
}

AsyncProxy::Chunk& AsyncProxy::chunk(uint32_t c) { return chunk_map_[c]; }

void AsyncProxy::activate() {
  if (active_) return;
  active_ = true;
  for (uint32_t c = 0; c < early_writes_.size(); ++c)
    if (early_writes_[c].warp != UINT32_MAX) chunk(c).writes.push_back(early_writes_[c]);
  early_writes_.clear();
  early_writes_.shrink_to_fit();
}

bool AsyncProxy::acquired(uint32_t w, const AsyncWrite& write) const {
  auto it = copies_.find(write.copy);
  return it != copies_.end() && at(vc_[w], it->second.comp) > it->second.phase;
}

// A wgmma is one operation of its warpgroup (the tensor core reads B once
// for all four warps): a wait_group of any warp of the warpgroup covering
// the group completes it (CUTLASS's consumers release a stage from one
// thread of the warpgroup after its wait).
bool AsyncProxy::wgmma_done_before(const WgmmaRead& r, uint32_t w) const {
  const uint32_t first = r.warp / 4 * 4;
  for (uint32_t q = first; q < first + 4 && q < warps_; ++q)
    for (const auto& [below, clock] : waits_[q])
      if (below > r.group) {
        if (q == w || at(vc_[w], q) >= clock) return true;
        break;  // (later waits of q are later in its clock)
      }
  return false;
}

std::string AsyncProxy::copy_text(const AsyncWrite& write) const {
  auto it = copies_.find(write.copy);
  if (it == copies_.end()) return "a TMA load whose bytes no mbarrier phase has completed yet";
  const CopyInfo& i = it->second;
  return fmt::format(
      "a TMA load ({} bytes) completed on the mbarrier at shared offset {} in its phase {} "
      "(parity {}; after the copy {} arrivals and {} transaction bytes were pending)",
      i.bytes, i.mbar, i.phase, i.phase & 1, i.pending_after, i.tx_after);
}

void AsyncProxy::report_read(FindingKind kind, uint32_t c, const AsyncWrite& write, uint32_t w,
                             uint8_t lane, const emu::InstrInfo* instr, const char* what) {
  std::string msg =
      kind == FindingKind::EarlyRead
          ? fmt::format(
                "{} of shared bytes {}..{} that {} writes, not ordered after that phase: "
                "wait for it (mbarrier.try_wait.parity) before reading",
                what, c * 16, c * 16 + 15, copy_text(write))
          : fmt::format(
                "{} of shared bytes {}..{} while {} overwrites them: the stage was "
                "refilled before this reader was done with its previous contents",
                what, c * 16, c * 16 + 15, copy_text(write));
  out_.report(kind, Severity::Error, msg, instr, thread(w, lane), write.instr,
              thread(write.warp, write.lane), "read", "TMA write");
}

void AsyncProxy::generic_read(uint32_t c, uint32_t w, uint8_t lane, const emu::InstrInfo* instr) {
  Chunk& ch = chunk(c);
  bool have = true;
  if (ch.cur.copy) {
    have = acquired(w, ch.cur);
    if (!have)
      report_read(ch.prev.copy && acquired(w, ch.prev) ? FindingKind::StageOverwrite
                                                       : FindingKind::EarlyRead,
                  c, ch.cur, w, lane, instr, "read");
  } else {
    have = !ch.writes.empty();
  }
  Access r{w, vc_[w][w], lane, have, instr};
  for (Access& e : ch.reads)
    if (e.warp == w) {
      e = r;
      return;
    }
  ch.reads.push_back(r);
}

void AsyncProxy::generic_write(uint32_t c, uint32_t w, uint8_t lane, const emu::InstrInfo* instr) {
  Chunk& ch = chunk(c);
  for (const WgmmaRead& r : ch.wgmma)
    if (!wgmma_done_before(r, w))
      out_.report(FindingKind::StageOverwrite, Severity::Error,
                  fmt::format("store into shared bytes {}..{} that a wgmma of warp {} (its "
                              "wgmma-group {}) may still read: no wgmma.wait_group covering that "
                              "group is ordered before the store",
                              c * 16, c * 16 + 15, r.warp, r.group),
                  instr, thread(w, lane), r.instr, thread(r.warp, 0), "write", "wgmma read");
  ch.wgmma.clear();
  Access a{w, vc_[w][w], lane, true, instr};
  for (Access& e : ch.writes)
    if (e.warp == w) {
      e = a;
      return;
    }
  ch.writes.push_back(a);
}

void AsyncProxy::async_read(uint32_t c, uint32_t w, uint8_t lane, const emu::InstrInfo* instr,
                            const char* what) {
  Chunk& ch = chunk(c);
  if (ch.cur.copy && !acquired(w, ch.cur))
    report_read(
        ch.prev.copy && acquired(w, ch.prev) ? FindingKind::StageOverwrite : FindingKind::EarlyRead,
        c, ch.cur, w, lane, instr, what);
  for (const Access& wr : ch.writes) {
    const std::vector<uint32_t>& f = fences_[wr.warp];
    auto it = std::lower_bound(f.begin(), f.end(), wr.clock);
    const bool ordered = wr.warp == w || at(vc_[w], wr.warp) >= wr.clock;
    if (it != f.end() && (wr.warp == w || at(vc_[w], wr.warp) >= *it)) continue;
    out_.report(FindingKind::ProxyFence, Severity::Error,
                fmt::format("{} of shared bytes {}..{} through the async proxy, written by warp "
                            "{} with a generic store {}: put fence.proxy.async after the "
                            "writes and before the barrier that orders them before this read",
                            what, c * 16, c * 16 + 15, wr.warp,
                            it == f.end() ? "that no fence.proxy.async of that warp follows"
                            : ordered     ? "whose fence.proxy.async is not ordered before it"
                                          : "not ordered before it at all (no barrier)"),
                instr, thread(w, lane), wr.instr, thread(wr.warp, wr.lane), "async read",
                "generic write");
  }
}

void AsyncProxy::async_write(uint32_t c, const emu::BulkCopy& copy) {
  Chunk& ch = chunk(c);
  AsyncWrite wr{copy.id, copy.warp, 0, copy.incoming, copy.lane, copy.instr};
  if (!copy.incoming) {
    const uint32_t x = copy.warp;
    wr.clock = vc_[x][x];
    for (const Access& r : ch.reads)
      if (r.warp != x && at(vc_[x], r.warp) < r.clock)
        out_.report(
            r.acquired ? FindingKind::StageOverwrite : FindingKind::EarlyRead, Severity::Error,
            r.acquired ? fmt::format("TMA load into shared bytes {}..{} that warp {} may still "
                                     "read: its read of the stage's previous contents is not "
                                     "ordered before the copy (release the stage after "
                                     "reading it, wait for the release before refilling)",
                                     c * 16, c * 16 + 15, r.warp)
                       : fmt::format("TMA load into shared bytes {}..{} that warp {} reads "
                                     "before the copy is complete: the read is ordered "
                                     "neither before the copy nor after its mbarrier phase",
                                     c * 16, c * 16 + 15, r.warp),
            copy.instr, thread(x, copy.lane), r.instr, thread(r.warp, r.lane), "TMA write", "read");
    for (const WgmmaRead& r : ch.wgmma)
      if (!wgmma_done_before(r, x))
        out_.report(
            r.acquired ? FindingKind::StageOverwrite : FindingKind::EarlyRead, Severity::Error,
            r.acquired ? fmt::format("TMA load into shared bytes {}..{} that a wgmma of warp {} "
                                     "(its wgmma-group {}) may still read: no wgmma.wait_group "
                                     "covering that group is ordered before the copy",
                                     c * 16, c * 16 + 15, r.warp, r.group)
                       : fmt::format("TMA load into shared bytes {}..{} that a wgmma of warp {} "
                                     "(its wgmma-group {}) reads before the copy is complete: "
                                     "the wgmma is ordered neither before the copy nor after "
                                     "its mbarrier phase",
                                     c * 16, c * 16 + 15, r.warp, r.group),
            copy.instr, thread(x, copy.lane), r.instr, thread(r.warp, 0), "TMA write",
            "wgmma read");
  }
  ch.prev = ch.cur;
  ch.cur = wr;
  ch.reads.clear();
  ch.writes.clear();
  ch.wgmma.clear();
}

void AsyncProxy::on_memory(const emu::MemAccess& a) {
  const bool write = a.op != emu::MemOp::Load;
  if (!s_.kernel.hopper || a.warp >= warps_) return;
  for (uint32_t m = a.mask; m; m &= m - 1) {
    const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
    const uint64_t first = a.addr[l] / 16, last = (a.addr[l] + a.width - 1) / 16;
    for (uint64_t c = first; c <= last && c < chunks_total_; ++c) {
      const auto ci = static_cast<uint32_t>(c);
      if (!active_) {
        if (!write) continue;
        if (early_writes_.empty())
          early_writes_.assign(chunks_total_, Access{UINT32_MAX, 0, 0, false, nullptr});
        early_writes_[ci] =
            Access{a.warp, vc_[a.warp][a.warp], static_cast<uint8_t>(l), true, a.instr};
      } else if (write) {
        generic_write(ci, a.warp, static_cast<uint8_t>(l), a.instr);
      } else {
        generic_read(ci, a.warp, static_cast<uint8_t>(l), a.instr);
      }
    }
  }
}

void AsyncProxy::on_barrier(const emu::BarrierArrive& b) {
  if (b.barrier >= 16 || b.warp >= warps_) return;
  join(bar_accum_[b.barrier], release(b.warp));
  bar_warps_[b.barrier] |= 1u << b.warp;
}

void AsyncProxy::on_barrier_release(const emu::BarrierRelease& r) {
  if (r.barrier < 16) {
    for (uint32_t m = bar_warps_[r.barrier]; m; m &= m - 1)
      join(vc_[__builtin_ctz(m)], bar_accum_[r.barrier]);
    bar_accum_[r.barrier].clear();
    bar_warps_[r.barrier] = 0;
    return;
  }
  // Barrier 16: an mbarrier phase of this block completing (announced by
  // its Mbarrier event, modelled there) or the cluster barrier, which every
  // thread of the block takes part in.
  if (pending_mbar_releases_) {
    --pending_mbar_releases_;
    return;
  }
  Clock all;
  for (uint32_t w = 0; w < warps_; ++w) join(all, release(w));
  for (uint32_t w = 0; w < warps_; ++w) join(vc_[w], all);
}

void AsyncProxy::on_mbarrier(const emu::Mbarrier& m) {
  activate();
  if (!m.incoming && !local(m.target)) return;       // a peer's mbarrier: its block models it
  const bool mine = !m.incoming && m.warp < warps_;  // a warp of this block operates it
  auto [it, fresh] = mbars_.try_emplace(m.addr);
  Mbar& b = it->second;
  if (fresh) b.comp = next_comp_++;
  switch (m.kind) {
    case emu::MbarrierKind::Init:
      b.accum.clear();
      b.has_done[0] = b.has_done[1] = false;
      break;
    case emu::MbarrierKind::Arrive:
    case emu::MbarrierKind::CpAsyncArrive:
      if (mine) join(b.accum, release(m.warp));
      break;
    case emu::MbarrierKind::CompleteTx:
      if (m.copy)
        copies_[m.copy] = CopyInfo{m.addr, b.comp, b.phases, m.tx, m.tx_after, m.pending_after};
      break;
    case emu::MbarrierKind::TestWait:
    case emu::MbarrierKind::TryWait:
      if (mine && m.ready && b.has_done[m.wait_parity & 1])
        join(vc_[m.warp], b.done[m.wait_parity & 1]);
      break;
    default:
      break;
  }
  if (m.completed) {
    Clock c = std::move(b.accum);
    if (c.size() <= b.comp) c.resize(b.comp + 1, 0);
    c[b.comp] = b.phases + 1;
    b.done[m.parity_before & 1] = std::move(c);
    b.has_done[m.parity_before & 1] = true;
    ++b.phases;
    b.accum.clear();
    ++pending_mbar_releases_;
  }
}

void AsyncProxy::on_fence(const emu::Fence& f) {
  activate();
  if (f.kind != emu::FenceKind::ProxyAsync || f.warp >= warps_) return;
  fences_[f.warp].push_back(vc_[f.warp][f.warp]);
  ++vc_[f.warp][f.warp];
}

void AsyncProxy::on_bulk_copy(const emu::BulkCopy& c) {
  activate();
  if (c.phase != emu::BulkPhase::Issue || !local(c.target)) return;
  if (!c.incoming && c.warp >= warps_) return;
  if (c.kind == emu::BulkKind::Load) {
    for (uint32_t off : c.chunks) async_write(off / 16, c);
  } else if (c.kind == emu::BulkKind::Store || c.kind == emu::BulkKind::Reduce) {
    if (c.incoming) return;
    for (uint32_t off : c.chunks) async_read(off / 16, c.warp, c.lane, c.instr, "TMA store read");
  }
}

void AsyncProxy::on_wgmma(const emu::Wgmma& g) {
  activate();
  if (g.warp >= warps_) return;
  const uint32_t w = g.warp;
  if (g.kind == emu::WgmmaKind::Wait) {
    waits_[w].emplace_back(g.complete_below, vc_[w][w]);
    return;
  }
  if (g.kind != emu::WgmmaKind::Mma) return;
  auto operand = [&](const emu::WgmmaOperand& op) {
    for (uint32_t off : op.chunks) {
      const uint32_t c = off / 16;
      async_read(c, w, 0, g.instr, "wgmma operand read");
      Chunk& ch = chunk(c);
      const WgmmaRead r{w, g.group, ch.cur.copy ? acquired(w, ch.cur) : !ch.writes.empty(),
                        g.instr};
      auto e = std::find_if(ch.wgmma.begin(), ch.wgmma.end(),
                            [&](const WgmmaRead& x) { return x.warp == w; });
      if (e == ch.wgmma.end())
        ch.wgmma.push_back(r);
      else
        *e = r;
    }
  };
  if (g.a_shared) operand(g.a);
  operand(g.b);
}

}  // namespace smemlab::check::detail
