#include "check/dshared_race.h"

#include <fmt/format.h>

namespace smemlab::check::detail {

void DsharedRace::on_block_begin() {
  active_ = false;
  epoch_ = releases_ = 0;
  words_.clear();
}

void DsharedRace::on_barrier_release(const emu::BarrierRelease& r) {
  if (r.barrier < 16 || s_.kernel.cluster.count() == 1) return;
  active_ = true;
  ++epoch_;
  ++releases_;
}

void DsharedRace::on_mbarrier(const emu::Mbarrier& m) {
  if (!m.incoming && !(m.target == s_.block)) ++epoch_;  // this block's op on a peer's barrier
}

void DsharedRace::conflict(const Acc& now, const Acc& earlier, uint32_t word) {
  if (!earlier.valid || earlier.epoch != epoch_ || !(now.write || earlier.write) ||
      (now.atomic && earlier.atomic) || (!now.remote && !earlier.remote))
    return;
  if (now.remote && earlier.remote && now.rank == earlier.rank) return;  // one peer: its own order
  auto who = [](const Acc& a) {
    return a.remote ? fmt::format("block {} (cluster rank {})", dim_text(a.block), a.rank)
                    : std::string("this block");
  };
  const size_t before = out_.findings.size();
  out_.report(FindingKind::DsmemRace, Severity::Error,
              fmt::format("{} by {} and {} by {} of shared word {} of block {}: no cluster "
                          "barrier or mbarrier orders them",
                          now.write ? "write" : "read", who(now), earlier.write ? "write" : "read",
                          who(earlier), word * 4, dim_text(s_.block)),
              now.instr, now.thread, earlier.instr, earlier.thread, now.write ? "write" : "read",
              earlier.write ? "write" : "read");
  if (out_.findings.size() > before) {  // name the peers' blocks in the new finding
    Finding& f = out_.findings.back();
    if (earlier.remote) f.involved.front().block = earlier.block;
    if (now.remote) f.involved.back().block = now.block;
  }
}

void DsharedRace::access(uint32_t word, const Acc& a) {
  Word& w = words_[word];
  conflict(a, w.remote_write, word);
  conflict(a, w.local_write, word);
  if (a.write) {
    conflict(a, w.remote_read, word);
    conflict(a, w.local_read, word);
  }
  Acc& slot = a.remote ? (a.write ? w.remote_write : w.remote_read)
                       : (a.write ? w.local_write : w.local_read);
  slot = a;
}

void DsharedRace::on_memory(const emu::MemAccess& a) {
  if (!active_ || a.space != emu::Space::Shared) return;
  const bool write = a.op != emu::MemOp::Load && a.op != emu::MemOp::BulkLoad;
  const bool atomic = a.op == emu::MemOp::Atomic || a.op == emu::MemOp::Reduction;
  for (uint32_t m = a.mask; m; m &= m - 1) {
    const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
    Acc acc{true, write, atomic, false, epoch_, a.warp * 32 + l, 0, s_.block, a.instr};
    for (uint64_t wd = a.addr[l] / 4; wd <= (a.addr[l] + a.width - 1) / 4; ++wd)
      access(static_cast<uint32_t>(wd), acc);
  }
}

void DsharedRace::on_dshared(const emu::DsharedAccess& d) {
  active_ = true;
  if (!d.incoming) return;  // the peer's observer checks its own memory
  const emu::MemAccess& a = d.access;
  const bool write = a.op != emu::MemOp::Load && a.op != emu::MemOp::BulkLoad;
  const bool atomic = a.op == emu::MemOp::Atomic || a.op == emu::MemOp::Reduction;
  if (releases_ == 0 && a.mask) {
    const uint32_t l = static_cast<uint32_t>(__builtin_ctz(a.mask));
    const size_t before = out_.findings.size();
    out_.report(
        FindingKind::DsmemRace, Severity::Error,
        fmt::format("{} of the shared memory of block {} (cluster rank {}) by block {} "
                    "before any cluster barrier: the block may not have started (call "
                    "cluster.sync() before using distributed shared memory)",
                    write ? "write" : "read", dim_text(s_.block), d.rank, dim_text(a.block)),
        a.instr, a.warp * 32 + l, nullptr, 0, write ? "write" : "read");
    if (out_.findings.size() > before) out_.findings.back().involved.back().block = a.block;
  }
  for (uint32_t m = a.mask; m; m &= m - 1) {
    const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
    Acc acc{true, write, atomic, true, epoch_, a.warp * 32 + l, d.issuer_rank, a.block, a.instr};
    for (uint64_t wd = a.addr[l] / 4; wd <= (a.addr[l] + a.width - 1) / 4; ++wd)
      access(static_cast<uint32_t>(wd), acc);
  }
}

}  // namespace smemlab::check::detail
