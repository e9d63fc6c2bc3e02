// Executors of mbarrier.*, cp.async.mbarrier.arrive and cp.async.bulk. The
// mbarrier word lives in shared memory (encoding: ops_async.h); lanes act on
// it one after another in lane order, as atomics would. Observers see each
// mbarrier operation as an 8-byte shared atomic (init as a store), so `check`
// treats arrivals and waits like the atomics they are (never racing with each
// other) and an init not separated from other threads' use as a race.
// When a phase completes, observers get a BarrierRelease with barrier id
// kMbarrierRelease (16, beyond bar.sync's 0..15; epoch 0): `check` orders
// every access before the completion before every access after it, as for
// __syncthreads(). That is exact for a barrier every thread of the block
// arrives at (cuda::barrier over the block); for one with fewer arrivals it
// can hide a race between threads that do not take part (never report a
// false one).
#include <fmt/format.h>

#include <cstring>
#include <vector>

#include "emu/exec.h"
#include "emu/ops_async.h"

namespace smemlab::emu {
namespace {

constexpr uint32_t kMbarrierRelease = 16;

void phase_completed(BlockCtx& b) {
  if (b.obs) b.obs->on_barrier_release(BarrierRelease{kMbarrierRelease, 0});
}

// The block whose shared memory holds the mbarrier at shared (or generic)
// address `addr`, once mem_translate has checked it: a cluster peer's for a
// shared::cluster address of another rank, else this one.
BlockCtx* owner_of(BlockCtx& b, uint64_t addr, MSpace s) {
  if (s == MSpace::Generic) addr -= kSharedWindow;
  if (addr >= kWindowSize || !(addr >> kClusterRankShift)) return &b;
  return b.cluster->blocks[(addr >> kClusterRankShift) - 1];
}

uint64_t value_or(const Warp& w, uint32_t r, uint32_t lane, uint64_t dflt) {
  return r == UINT32_MAX ? dflt : reg(w, r)[lane];
}

}  // namespace

void exec_mbarrier(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t exec) {
  if (exec == 0) return;
  const auto kind = static_cast<MbarKind>(op.t2);
  if (kind == MB_PENDING) {
    SMEMLAB_FOR_LANES(exec, regw(w, op.r[0])[l] = mbar::pending(reg(w, op.r[1])[l]));
    return;
  }
  if (kind == MB_CPASYNC_ARRIVE) cpasync_complete_all(b, w, exec);  // copies done, then arrive
  const uint64_t* A = reg(w, op.r[4]);
  Space spaces[32];
  uint64_t shown[32];
  uint32_t done = 0;
  // Phases completed by this instruction, per block that holds the
  // mbarrier (a peer's, through a shared::cluster address, or this one's).
  std::vector<BlockCtx*> completed;
  b.remote = 0;
  SMEMLAB_FOR_LANES(exec, {
    const uint32_t was_remote = b.remote;
    uint8_t* p = mem_translate(b, w, op, pc, l, static_cast<MSpace>(op.aux),
                               A[l] + static_cast<uint64_t>(op.imm), 8, &spaces[l], &shown[l]);
    BlockCtx* owner = b.remote != was_remote ? owner_of(b, A[l] + static_cast<uint64_t>(op.imm),
                                                        static_cast<MSpace>(op.aux))
                                             : &b;
    uint64_t obj;
    std::memcpy(&obj, p, 8);
    const unsigned parity_before = mbar::parity(obj);
    try {
      switch (kind) {
        case MB_INIT:
          obj = mbar::init(static_cast<uint32_t>(reg(w, op.r[1])[l]));
          break;
        case MB_INVAL:
          obj = 0;
          break;
        case MB_ARRIVE: {
          uint64_t token =
              mbar::arrive(obj, static_cast<uint32_t>(value_or(w, op.r[1], l, 1)),
                           static_cast<uint32_t>(value_or(w, op.r[2], l, 0)), (op.aux2 & 1) != 0);
          if (op.r[0] != UINT32_MAX) regw(w, op.r[0])[l] = token;
          break;
        }
        case MB_EXPECT_TX:
          mbar::expect_tx(obj, static_cast<uint32_t>(reg(w, op.r[1])[l]));
          break;
        case MB_COMPLETE_TX:
          mbar::complete_tx(obj, static_cast<uint32_t>(reg(w, op.r[1])[l]));
          break;
        case MB_TEST_WAIT: {
          uint64_t v = reg(w, op.r[1])[l];
          bool ok = (op.aux2 & 2) ? mbar::parity_complete(obj, static_cast<unsigned>(v))
                                  : mbar::token_complete(obj, v);
          w.P[op.r[0]] = (w.P[op.r[0]] & ~(1u << l)) | (ok ? 1u << l : 0u);
          break;
        }
        case MB_CPASYNC_ARRIVE:
          // Without .noinc the pending count is raised before the arrive-on
          // it triggers: no net change. With .noinc it is one arrival.
          if (op.aux2 & 4) mbar::arrive(obj, 1);
          break;
        default:
          break;
      }
    } catch (const mbar::Error& e) {
      fault(w, pc, static_cast<int>(l), FaultKind::Mbarrier, e.what());
    }
    if (kind != MB_INIT && kind != MB_INVAL && mbar::parity(obj) != parity_before)
      completed.push_back(owner);
    std::memcpy(p, &obj, 8);
    done |= 1u << l;
  });
  if (b.obs)
    mem_emit(b, w, op, kind == MB_INIT ? MemOp::Store : MemOp::Atomic, 8, done, spaces, shown);
  for (BlockCtx* owner : completed) phase_completed(*owner);
}

void exec_bulk(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t exec) {
  // The copy completes at issue (one legal order), then signals its bytes
  // to the mbarrier; waiters see the phase complete after that.
  SMEMLAB_FOR_LANES(exec, {
    uint64_t size = reg(w, op.r[1])[l];
    uint64_t dst = reg(w, op.r[4])[l] + static_cast<uint64_t>(op.imm);
    uint64_t src = reg(w, op.r[5])[l] + reg(w, op.r[0])[l];
    uint64_t bar = reg(w, op.r[2])[l] + reg(w, op.r[3])[l];
    if (size % 16 || dst % 16 || src % 16)
      fault(w, pc, static_cast<int>(l), FaultKind::Misaligned,
            fmt::format("cp.async.bulk needs 16-byte aligned addresses and a size that is a "
                        "multiple of 16 (size {}, dst 0x{:x}, src 0x{:x})",
                        size, dst, src));
    Space ds, ss, bs;
    uint64_t dshown, sshown, bshown;
    uint8_t* d = mem_translate(b, w, op, pc, l, MSpace::Shared, dst, static_cast<uint32_t>(size),
                               &ds, &dshown);
    uint8_t* s = mem_translate(b, w, op, pc, l, MSpace::Global, src, static_cast<uint32_t>(size),
                               &ss, &sshown);
    std::memmove(d, s, size);
    if (b.obs)
      for (uint64_t off = 0; off < size; off += 16) {  // one 16-byte event per chunk
        Space sp[32];
        uint64_t ad[32];
        sp[l] = Space::Global, ad[l] = sshown + off;
        mem_emit(b, w, op, MemOp::CpAsyncLoad, 16, 1u << l, sp, ad);
        sp[l] = Space::Shared, ad[l] = dshown + off;
        mem_emit(b, w, op, MemOp::CpAsyncStore, 16, 1u << l, sp, ad);
      }
    uint8_t* m = mem_translate(b, w, op, pc, l, MSpace::Shared, bar, 8, &bs, &bshown);
    uint64_t obj;
    std::memcpy(&obj, m, 8);
    const unsigned parity_before = mbar::parity(obj);
    try {
      mbar::complete_tx(obj, static_cast<uint32_t>(size));
    } catch (const mbar::Error& e) {
      fault(w, pc, static_cast<int>(l), FaultKind::Mbarrier, e.what());
    }
    std::memcpy(m, &obj, 8);
    if (mbar::parity(obj) != parity_before) phase_completed(*owner_of(b, bar, MSpace::Shared));
  });
}

}  // namespace smemlab::emu
