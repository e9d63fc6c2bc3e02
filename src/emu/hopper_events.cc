#include "emu/hopper_events.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace smemlab::emu {

BlockCtx& shared_owner(BlockCtx& b, uint64_t a, uint32_t* offset) {
  constexpr uint64_t kOffsetMask = (uint64_t{1} << kClusterRankShift) - 1;
  *offset = static_cast<uint32_t>(a & kOffsetMask);
  if (a >= kWindowSize || !(a >> kClusterRankShift)) return b;
  const uint64_t rank = (a >> kClusterRankShift) - 1;
  return rank < b.cluster->blocks.size() ? *b.cluster->blocks[rank] : b;
}

void send_bulk(BlockCtx& b, BlockCtx& to, BulkCopy ev, bool to_issuer) {
  ev.issuer_rank = b.rank;
  ev.block = b.id;
  ev.rank = to.rank;
  ev.target = to.id;
  ev.incoming = false;
  if (to_issuer && b.obs) b.obs->on_bulk_copy(ev);
  if (&to != &b && to.obs) {
    ev.incoming = true;
    to.obs->on_bulk_copy(ev);
  }
}

void send_mbarrier(BlockCtx& b, BlockCtx& owner, Mbarrier ev) {
  ev.issuer_rank = b.rank;
  ev.block = b.id;
  ev.rank = owner.rank;
  ev.target = owner.id;
  ev.incoming = false;
  if (b.obs) b.obs->on_mbarrier(ev);
  if (&owner != &b && owner.obs) {
    ev.incoming = true;
    owner.obs->on_mbarrier(ev);
  }
}

void emit_dshared(BlockCtx& b, const Warp& w, const Op& op, MemOp mop, uint32_t width,
                  uint32_t lanes, const uint64_t* addrs, uint8_t matrices, bool mbarrier) {
  while (lanes) {
    const uint32_t rank = b.remote_rank[__builtin_ctz(lanes)];
    DsharedAccess d{};
    MemAccess& a = d.access;
    a.space = Space::Shared;
    a.op = mop;
    a.width = static_cast<uint8_t>(width);
    a.matrices = matrices;
    a.mbarrier = mbarrier;
    a.mask = 0;
    SMEMLAB_FOR_LANES(lanes, {
      if (b.remote_rank[l] == rank) {
        a.mask |= 1u << l;
        a.addr[l] = addrs[l];
      }
    });
    lanes &= ~a.mask;
    a.instr = &b.prog->info[op.info];
    a.block = b.id;
    a.warp = w.index;
    BlockCtx& peer = *b.cluster->blocks[rank];
    d.rank = rank;
    d.issuer_rank = b.rank;
    d.target = peer.id;
    d.incoming = false;
    if (b.obs) b.obs->on_dshared(d);
    if (peer.obs) {
      d.incoming = true;
      peer.obs->on_dshared(d);
    }
  }
}

void bulk_pending(BlockCtx& b, Warp& w, PendingBulk p) {
  p.event.group = b.async[w.index].bulk_committed[p.event.lane];
  b.async[w.index].bulk.push_back(std::move(p));
}

namespace {

// Tells the completion of the pending copies of `lanes` that `covered`
// selects, in issue order.
template <class Covered>
void bulk_complete(BlockCtx& b, Warp& w, uint32_t lanes, bool read, Covered covered) {
  auto& pending = b.async[w.index].bulk;
  for (PendingBulk& p : pending) {
    if (!(lanes >> p.event.lane & 1) || !covered(p)) continue;
    BulkCopy ev = p.event;
    ev.phase = BulkPhase::Complete;
    ev.read_only = read;
    ev.chunks = p.chunks;
    ev.global = p.global;
    ev.global_chunks = p.global_chunks;
    ev.instr = p.event.instr;
    send_bulk(b, b, ev);
    p.event.lane = 0xff;  // done
  }
  std::erase_if(pending, [](const PendingBulk& p) { return p.event.lane == 0xff; });
}

}  // namespace

void bulk_commit(BlockCtx& b, Warp& w, uint32_t lanes) {
  SMEMLAB_FOR_LANES(lanes, ++b.async[w.index].bulk_committed[l]);
}

void bulk_wait(BlockCtx& b, Warp& w, uint32_t lanes, uint32_t n, bool read) {
  const uint32_t* committed = b.async[w.index].bulk_committed;
  // wait_group N: all but the N most recent committed groups are complete;
  // copies not yet committed belong to no group and are not waited for.
  bulk_complete(b, w, lanes, read, [&](const PendingBulk& p) {
    const uint32_t c = committed[p.event.lane];
    return p.event.group < c && c - p.event.group > n;
  });
}

void bulk_complete_all(BlockCtx& b, Warp& w, uint32_t lanes) {
  bulk_complete(b, w, lanes, false, [](const PendingBulk&) { return true; });
}

void wgmma_chunks(const tensor::MatrixDesc& d, bool mn_major, unsigned elem_bytes, unsigned mn0,
                  unsigned count, unsigned K, std::vector<uint32_t>& out) {
  const unsigned t = 16 / elem_bytes;
  out.clear();
  if (!mn_major) {
    for (unsigned mn = mn0; mn < mn0 + count; ++mn)
      for (unsigned k = 0; k < K; k += t)
        out.push_back(tensor::desc_address(d, false, elem_bytes, mn, k));
  } else {
    for (unsigned k = 0; k < K; ++k)
      for (unsigned mn = mn0; mn < mn0 + count; mn += t)
        out.push_back(tensor::desc_address(d, true, elem_bytes, mn, k));
  }
}

}  // namespace smemlab::emu
