#include "emu/mbar_watch.h"

#include <fmt/format.h>

#include <cstring>

#include "emu/block.h"
#include "emu/exec.h"
#include "emu/ops_async.h"

namespace smemlab::emu {
namespace {

// "mbarrier.try_wait... (PTX line N, file.cu:L)" of the op at `pc`.
std::string mbar_site_text(const BlockCtx& b, uint32_t pc) {
  const InstrInfo& i = b.prog->info[b.prog->ops[pc].info];
  std::string s = fmt::format("{} (PTX line {}", i.text, i.ptx_line);
  if (i.loc >= 0 && b.prog->lines) s += ", " + b.prog->lines->describe(i.loc);
  return s + ")";
}

// "shared offset 24 (`full`+8) of block rank 1 (block (1,0,0))".
std::string mbar_name(const BlockCtx& owner, uint32_t off) {
  std::string s = fmt::format("shared offset {}", off);
  for (const Program::SharedVar& v : owner.prog->shared_vars)
    if (off >= v.offset && off < v.offset + v.size) {
      s += off == v.offset ? fmt::format(" (`{}`)", v.name)
                           : fmt::format(" (`{}`+{})", v.name, off - v.offset);
      break;
    }
  if (off >= owner.prog->static_shared) s += " (dynamic shared memory)";
  return s + fmt::format(" of block ({},{},{})", owner.id.x, owner.id.y, owner.id.z);
}

uint64_t mbar_word(const BlockCtx& owner, uint32_t off) {
  uint64_t obj = 0;
  if (off + 8 <= owner.shared.size()) std::memcpy(&obj, owner.shared.data() + off, 8);
  return obj;
}

// "phase 3 (parity 1), 1 of 2 arrivals, 4096 transaction bytes pending".
std::string mbar_state(const BlockCtx& owner, uint32_t off) {
  const uint64_t obj = mbar_word(owner, off);
  auto it = owner.mbar.bars.find(off);
  const uint64_t phase = it == owner.mbar.bars.end() ? 0 : it->second.phases;
  return fmt::format("in phase {} (parity {}), {} of {} arrivals made, {} transaction bytes {}",
                     phase, mbar::parity(obj), mbar::expected(obj) - mbar::pending(obj),
                     mbar::expected(obj), std::abs(mbar::tx_count(obj)),
                     mbar::tx_count(obj) < 0 ? "completed beyond those announced" : "pending");
}

bool published(const MbarRecord& r, const ClusterCtx& c) {
  return r.released && c.phase > r.release_phase;
}

uint64_t mix(uint64_t h, const void* p, size_t bytes) {
  const auto* s = static_cast<const uint8_t*>(p);
  size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t x;
    std::memcpy(&x, s + i, 8);
    h = (h ^ x) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  for (; i < bytes; ++i) h = (h ^ s[i]) * 0x100000001b3ull;
  return h;
}

// The state a spinning block can change without writing memory.
uint64_t fingerprint(std::span<BlockCtx* const> blocks) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const BlockCtx* b : blocks) {
    h = mix(h, b->regs.data(), b->regs.size() * 8);
    h = mix(h, b->preds.data(), b->preds.size() * 4);
    h = mix(h, b->shared.data(), b->shared.size());
    for (const Warp& w : b->warps) {
      h = mix(h, w.pc, sizeof w.pc);
      const uint32_t m[] = {w.live,    w.runnable, w.bar_wait, w.coll_wait,
                            w.cl_wait, w.cpc,      w.uniform,  w.carry};
      h = mix(h, m, sizeof m);
    }
  }
  return h;
}

[[noreturn]] void mbar_deadlock(std::span<BlockCtx* const> blocks, uint64_t since, uint32_t* rank) {
  std::string msg = "deadlock: the warps poll mbarriers whose phase can no longer complete;";
  Fault f{FaultKind::MbarrierDeadlock, "", 0, -1, 0};
  bool have_first = false, tx = false;
  for (const BlockCtx* b : blocks) {
    const std::string prefix =
        blocks.size() > 1 ? fmt::format("block ({},{},{}) ", b->id.x, b->id.y, b->id.z) : "";
    for (const Warp& w : b->warps) {
      const MbarSpin& s = b->mbar.spins[w.index];
      if (s.round < since || !(s.lanes & w.live)) continue;
      const BlockCtx& owner = *b->cluster->blocks[s.rank];
      const uint64_t obj = mbar_word(owner, s.addr);
      msg += fmt::format(
          " {}warp {} lanes 0x{:08x} poll at {} the mbarrier at {} for the phase of "
          "parity {}: it is {};",
          prefix, w.index, s.lanes & w.live, mbar_site_text(*b, s.pc), mbar_name(owner, s.addr),
          s.parity, mbar_state(owner, s.addr));
      auto it = owner.mbar.bars.find(s.addr);
      const bool missing_bytes = mbar::pending(obj) == 0 && mbar::tx_count(obj) > 0;
      if (missing_bytes && it != owner.mbar.bars.end() && it->second.expect.set) {
        const MbarSite& e = it->second.expect;
        msg += fmt::format(
            " every arrival is made but {} announced bytes never come: the last "
            "expect_tx is {} (thread {} of warp {}){};",
            mbar::tx_count(obj), mbar_site_text(owner, e.pc), e.lane, e.warp,
            it->second.copy.set
                ? ", the last copy completing on it " + mbar_site_text(owner, it->second.copy.pc)
                : ", no copy completed on it");
        if (!tx) {
          f = Fault{FaultKind::TxMismatch, "", e.warp, static_cast<int>(e.lane), e.pc};
          *rank = owner.rank;
        }
        tx = true;
      }
      if (!have_first && !tx) {
        *rank = b->rank;
        f.warp = w.index;
        f.pc = s.pc;
        f.lane = __builtin_ctz(s.lanes & w.live);
      }
      have_first = true;
    }
    uint32_t fw = 0, fp = 0;
    describe_block_waits(*b, prefix, msg, &fw, &fp);
  }
  msg.pop_back();
  f.message = msg;
  throw f;
}

}  // namespace

void mbar_check(BlockCtx& b, const Warp& w, uint32_t pc, uint32_t lane, BlockCtx& owner,
                uint32_t off, unsigned kind, bool copy) {
  if (kind == MB_PENDING) return;
  auto it = owner.mbar.bars.find(off);
  const bool valid = it != owner.mbar.bars.end() && it->second.valid;
  if (kind == MB_INIT) {
    // In use: its current phase has arrivals or transaction bytes under
    // way, which the init would drop (a negative tx-count is bytes beyond
    // the announced ones, already landed: tx_balance reports them).
    const uint64_t obj = mbar_word(owner, off);
    if (valid && (mbar::pending(obj) != mbar::expected(obj) || mbar::tx_count(obj) > 0))
      fault(w, pc, static_cast<int>(lane), FaultKind::Mbarrier,
            fmt::format("mbarrier.init of the mbarrier at {} while it is in use: it is {} "
                        "(initialized by {}); the init drops them. Re-initialize only a "
                        "barrier whose phases are done, after mbarrier.inval",
                        mbar_name(owner, off), mbar_state(owner, off),
                        mbar_site_text(owner, it->second.init.pc)));
    return;
  }
  if (kind == MB_INVAL) return;
  if (!valid)
    fault(w, pc, static_cast<int>(lane), FaultKind::Mbarrier,
          fmt::format("{} on the mbarrier at {}, which no mbarrier.init has initialized{}",
                      copy ? "a copy's complete_tx" : "an operation", mbar_name(owner, off),
                      it != owner.mbar.bars.end() ? " since its mbarrier.inval" : ""));
  if (&owner != &b && !published(it->second, *owner.cluster))
    fault(w, pc, static_cast<int>(lane), FaultKind::MbarrierInitFence,
          fmt::format("{} of block ({},{},{}) on the mbarrier at {}, whose mbarrier.init ({}, "
                      "thread {} of warp {}) is not ordered before it: the initializing thread "
                      "needs fence.mbarrier_init.release.cluster (or a release at cluster "
                      "scope) and then a cluster barrier both blocks pass before the peer uses "
                      "the mbarrier",
                      copy ? "a multicast copy's complete_tx" : "an operation", b.id.x, b.id.y,
                      b.id.z, mbar_name(owner, off), mbar_site_text(owner, it->second.init.pc),
                      it->second.init.lane, it->second.init.warp));
}

void mbar_note(BlockCtx& b, const Warp& w, uint32_t pc, uint32_t lane, BlockCtx& owner,
               uint32_t off, unsigned kind, bool copy, uint64_t before, uint64_t after, bool ready,
               uint32_t parity) {
  if (kind == MB_PENDING) return;
  MbarRecord& r = owner.mbar.bars[off];
  const MbarSite site{pc, w.index, lane, true};
  if (kind == MB_INIT) {
    const uint64_t phases = r.phases;
    r = MbarRecord{};
    r.valid = true;
    r.init = site;
    r.phases = phases;
  } else if (kind == MB_INVAL) {
    r.valid = false;
  } else if (copy) {
    r.copy = site;
  } else if (mbar::tx_count(after) > mbar::tx_count(before) ||
             (kind == MB_EXPECT_TX && after != before)) {
    r.expect = site;
  }
  if (kind != MB_INIT && kind != MB_INVAL && mbar::parity(after) != mbar::parity(before))
    ++r.phases;
  if (after != before) ++owner.mbar.changes;
  if (kind == MB_TEST_WAIT && !ready) {
    ++b.mbar.failed_waits;
    MbarSpin& s = b.mbar.spins[w.index];
    if (s.round != b.mbar.round || s.pc != pc) s.lanes = 0;
    s = MbarSpin{b.mbar.round, pc, s.lanes | 1u << lane, off, owner.rank, parity};
  }
}

void mbar_release(BlockCtx& b, const Warp& w, uint32_t lanes) {
  for (auto& [off, r] : b.mbar.bars)
    if (r.valid && !r.released && r.init.warp == w.index && (lanes >> r.init.lane & 1u)) {
      r.released = true;
      r.release_phase = b.cluster->phase;
    }
}

void SpinDetector::reset() { *this = SpinDetector{}; }

void SpinDetector::after_round(std::span<BlockCtx* const> blocks) {
  uint64_t writes = 0, changes = 0, failed = 0;
  for (BlockCtx* b : blocks) {
    writes += b->writes;
    changes += b->mbar.changes;
    failed += b->mbar.failed_waits;
    ++b->mbar.round;
  }
  const bool spin = writes == writes_ && changes == changes_ && failed > failed_;
  writes_ = writes, changes_ = changes, failed_ = failed;
  if (!spin) {
    streak_ = 0;
    return;
  }
  // Polling rounds are common while another warp computes; the state is
  // compared only once they have gone on for a while.
  constexpr uint64_t kQuietRounds = 64;
  if (++streak_ == 1) first_round_ = blocks[0]->mbar.round - 1;
  if (streak_ < kQuietRounds) return;
  const uint64_t h = fingerprint(blocks);
  if (streak_ > kQuietRounds && h == saved_) mbar_deadlock(blocks, first_round_, &rank_);
  if (streak_ == kQuietRounds || ++since_ == power_) {
    saved_ = h;
    power_ = streak_ == kQuietRounds ? 1 : power_ * 2;
    since_ = 0;
  }
}

}  // namespace smemlab::emu
