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
#include "emu/hopper_events.h"
#include "emu/mbar_watch.h"
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

MbarrierKind mbarrier_kind(const Op& op) {
  switch (static_cast<MbarKind>(op.t2)) {
    case MB_INIT:
      return MbarrierKind::Init;
    case MB_INVAL:
      return MbarrierKind::Inval;
    case MB_ARRIVE:
      return MbarrierKind::Arrive;
    case MB_EXPECT_TX:
      return MbarrierKind::ExpectTx;
    case MB_COMPLETE_TX:
      return MbarrierKind::CompleteTx;
    case MB_TEST_WAIT:
      return op.aux2 & 8 ? MbarrierKind::TryWait : MbarrierKind::TestWait;
    default:
      return MbarrierKind::CpAsyncArrive;
  }
}

// The state fields of an Mbarrier event, before (`obj`) or after.
void note_state(Mbarrier& e, uint64_t obj, bool after) {
  (after ? e.parity_after : e.parity_before) = mbar::parity(obj);
  (after ? e.pending_after : e.pending_before) = mbar::pending(obj);
  (after ? e.tx_after : e.tx_before) = mbar::tx_count(obj);
  if (after) e.expected = mbar::expected(obj);
}

// Applies one lane's mbarrier operation to the word `obj` (a fault for an
// operation the ISA leaves undefined); fills the event's operands.
void mbarrier_apply(Warp& w, const Op& op, uint32_t pc, uint32_t l, MbarKind kind, uint64_t& obj,
                    Mbarrier& e) {
  try {
    switch (kind) {
      case MB_INIT:
        e.count = static_cast<uint32_t>(reg(w, op.r[1])[l]);
        obj = mbar::init(e.count);
        break;
      case MB_INVAL:
        obj = 0;
        break;
      case MB_ARRIVE: {
        e.count = static_cast<uint32_t>(value_or(w, op.r[1], l, 1));
        e.tx = static_cast<uint32_t>(value_or(w, op.r[2], l, 0));
        e.drop = (op.aux2 & 1) != 0;
        uint64_t token = mbar::arrive(obj, e.count, e.tx, e.drop);
        if (op.r[0] != UINT32_MAX) regw(w, op.r[0])[l] = token;
        break;
      }
      case MB_EXPECT_TX:
        e.tx = static_cast<uint32_t>(reg(w, op.r[1])[l]);
        mbar::expect_tx(obj, e.tx);
        break;
      case MB_COMPLETE_TX:
        e.tx = static_cast<uint32_t>(reg(w, op.r[1])[l]);
        mbar::complete_tx(obj, e.tx);
        break;
      case MB_TEST_WAIT: {
        uint64_t v = reg(w, op.r[1])[l];
        e.parity_form = (op.aux2 & 2) != 0;
        e.wait_parity = e.parity_form ? static_cast<uint32_t>(v & 1) : mbar::parity(v);
        e.ready = e.parity_form ? mbar::parity_complete(obj, static_cast<unsigned>(v))
                                : mbar::token_complete(obj, v);
        w.P[op.r[0]] = (w.P[op.r[0]] & ~(1u << l)) | (e.ready ? 1u << l : 0u);
        break;
      }
      case MB_CPASYNC_ARRIVE:
        // Without .noinc the pending count is raised before the arrive-on
        // it triggers: no net change. With .noinc it is one arrival.
        if (op.aux2 & 4) {
          e.count = 1;
          mbar::arrive(obj, 1);
        }
        break;
      default:
        break;
    }
  } catch (const mbar::Error& err) {
    fault(w, pc, static_cast<int>(l), FaultKind::Mbarrier, err.what());
  }
}

// The events of lane l's 1-D bulk copy of `size` bytes from global
// `src` to shared::cluster `dst` (its BulkCopy at `phase`, and at
// completion first its chunks as the async proxy's accesses, each 16 bytes:
// the global read, then the shared write, a peer's as a DsharedAccess).
void bulk_events(BlockCtx& b, Warp& w, const Op& op, uint32_t l, uint64_t size, uint64_t dst,
                 uint64_t src, uint64_t bar, BulkPhase phase) {
  uint32_t off, bar_off;
  BlockCtx& to = shared_owner(b, dst, &off);
  shared_owner(b, bar, &bar_off);
  thread_local std::vector<uint32_t> chunks;
  chunks.clear();
  for (uint64_t o = 0; o < size; o += 16) chunks.push_back(off + static_cast<uint32_t>(o));
  if (phase == BulkPhase::Issue)
    b.cluster->copies++;
  else
    for (uint32_t c : chunks) {
      Space sp[32];
      uint64_t ad[32];
      sp[l] = Space::Global, ad[l] = src + (c - off);
      mem_emit(b, w, op, MemOp::BulkLoad, 16, 1u << l, sp, ad);
      sp[l] = Space::Shared, ad[l] = c;
      if (&to == &b) {
        mem_emit(b, w, op, MemOp::BulkStore, 16, 1u << l, sp, ad);
      } else {
        b.remote_rank[l] = static_cast<uint8_t>(to.rank);
        emit_dshared(b, w, op, MemOp::BulkStore, 16, 1u << l, ad, 0);
      }
    }
  const ByteRange global{src, static_cast<uint32_t>(size)};
  thread_local std::vector<GlobalChunk> gchunks;
  gchunks.clear();
  for (uint64_t o = 0; o < size; o += 16) gchunks.push_back({src + o, 16});
  BulkCopy ev{};
  ev.phase = phase;
  ev.kind = BulkKind::Load;
  ev.dims = 1;
  ev.lane = static_cast<uint8_t>(l);
  ev.id = b.cluster->copies;
  ev.mbarrier = bar_off;
  ev.shared_base = off;
  ev.row_bytes = ev.pitch = static_cast<uint32_t>(size);
  ev.rows = 1;
  ev.bytes = size;
  ev.chunks = chunks;
  ev.global = std::span<const ByteRange>(&global, 1);
  ev.global_chunks = gchunks;
  ev.instr = &b.prog->info[op.info];
  ev.warp = w.index;
  send_bulk(b, to, ev);
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
  // Observers only: each lane's operation, told after the access event
  // (a block without an observer builds none: a try_wait spin stays cheap).
  thread_local std::vector<std::pair<BlockCtx*, Mbarrier>> events;
  const bool tell = b.obs != nullptr;
  if (tell) events.clear();
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
    const uint64_t word_before = obj;
    const auto off = static_cast<uint32_t>(shown[l]);
    mbar_check(b, w, pc, l, *owner, off, kind, false);
    Mbarrier e{};
    if (tell) note_state(e, obj, false);
    mbarrier_apply(w, op, pc, l, kind, obj, e);
    mbar_note(b, w, pc, l, *owner, off, kind, false, word_before, obj, e.ready, e.wait_parity);
    const bool phase_done =
        kind != MB_INIT && kind != MB_INVAL && mbar::parity(obj) != parity_before;
    if (phase_done) completed.push_back(owner);
    std::memcpy(p, &obj, 8);
    done |= 1u << l;
    if (tell) {
      e.kind = mbarrier_kind(op);
      e.lane = static_cast<uint8_t>(l);
      e.completed = phase_done;
      e.addr = static_cast<uint32_t>(shown[l]);
      note_state(e, obj, true);
      e.instr = &b.prog->info[op.info];
      e.warp = w.index;
      events.emplace_back(owner, e);
    }
  });
  if (b.obs)
    mem_emit(b, w, op, kind == MB_INIT ? MemOp::Store : MemOp::Atomic, 8, done, spaces, shown, 0,
             true);
  b.remote = 0;
  if (tell)
    for (auto& [owner, e] : events) send_mbarrier(b, *owner, e);
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
    b.remote = 0;  // (the events below name the destination block themselves)
    if (b.obs) bulk_events(b, w, op, l, size, dst, sshown, bar, BulkPhase::Issue);
    std::memmove(d, s, size);
    if (b.obs) bulk_events(b, w, op, l, size, dst, sshown, bar, BulkPhase::Complete);
    uint8_t* m = mem_translate(b, w, op, pc, l, MSpace::Shared, bar, 8, &bs, &bshown);
    b.remote = 0;
    BlockCtx& owner = *owner_of(b, bar, MSpace::Shared);
    uint64_t obj;
    std::memcpy(&obj, m, 8);
    const uint64_t word_before = obj;
    mbar_check(b, w, pc, l, owner, static_cast<uint32_t>(bshown), MB_COMPLETE_TX, true);
    Mbarrier e{};
    note_state(e, obj, false);
    const unsigned parity_before = mbar::parity(obj);
    try {
      mbar::complete_tx(obj, static_cast<uint32_t>(size));
    } catch (const mbar::Error& err) {
      fault(w, pc, static_cast<int>(l), FaultKind::Mbarrier, err.what());
    }
    std::memcpy(m, &obj, 8);
    mbar_note(b, w, pc, l, owner, static_cast<uint32_t>(bshown), MB_COMPLETE_TX, true, word_before,
              obj);
    if (b.obs || owner.obs) {
      e.kind = MbarrierKind::CompleteTx;
      e.lane = static_cast<uint8_t>(l);
      e.tx = static_cast<uint32_t>(size);
      e.completed = mbar::parity(obj) != parity_before;
      e.addr = static_cast<uint32_t>(bshown);
      note_state(e, obj, true);
      e.copy = b.cluster->copies;
      e.instr = &b.prog->info[op.info];
      e.warp = w.index;
      send_mbarrier(b, owner, e);
    }
    if (mbar::parity(obj) != parity_before) phase_completed(owner);
  });
}

}  // namespace smemlab::emu
