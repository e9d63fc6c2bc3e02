// Internal to the interpreter: building and delivering the Hopper events of
// observer.h (bulk copies, wgmma, mbarriers, fences, accesses to a cluster
// peer's shared memory). Every function here is called only when the block
// has an observer, so a launch without one pays nothing for them.
#pragma once

#include <cstdint>
#include <vector>

#include "emu/exec.h"
#include "emu/ops_wgmma.h"

namespace smemlab::emu {

// A fresh BulkCopy::id (unique within the cluster, from 1).
inline uint64_t next_copy_id(BlockCtx& b) { return ++b.cluster->copies; }

// The block of a shared::cluster (or shared::cta) offset `a` and the offset
// inside it: a peer's for an address with a rank above the shared::cta
// window, else `b`. Only for addresses the access already checked.
BlockCtx& shared_owner(BlockCtx& b, uint64_t a, uint32_t* offset);

// Sends `ev` (block, warp, issuer_rank filled in here) to the issuer's
// observer and, when `to` is another block, to that block's with
// incoming set; rank/target are `to`'s.
void send_bulk(BlockCtx& b, BlockCtx& to, BulkCopy ev, bool to_issuer = true);
void send_mbarrier(BlockCtx& b, BlockCtx& owner, Mbarrier ev);

// The DsharedAccess events of the `lanes` of an access whose addresses
// (offsets in the peer, as mem_translate showed them) are in cluster peers
// (b.remote_rank): one per peer. `mbarrier`: an mbarrier operation on a
// peer's object (MemAccess::mbarrier).
void emit_dshared(BlockCtx& b, const Warp& w, const Op& op, MemOp mop, uint32_t width,
                  uint32_t lanes, const uint64_t* addrs, uint8_t matrices, bool mbarrier = false);

// A store or reduction's completion is told when a cp.async.bulk.wait_group
// covers it: keep it (`p.event` is its Issue event).
void bulk_pending(BlockCtx& b, Warp& w, PendingBulk p);
// cp.async.bulk.commit_group / wait_group N{.read} of `lanes`; the exit of
// `lanes` (their pending copies complete).
void bulk_commit(BlockCtx& b, Warp& w, uint32_t lanes);
void bulk_wait(BlockCtx& b, Warp& w, uint32_t lanes, uint32_t n, bool read);
void bulk_complete_all(BlockCtx& b, Warp& w, uint32_t lanes);

// The shared offsets of the 16-byte chunks wgmma reads of the matrix `d`
// describes: mn in [mn0, mn0 + count), k in [0, K), in the order the
// executor reads them (K-major: by mn, then k; MN-major: by k, then mn).
void wgmma_chunks(const tensor::MatrixDesc& d, bool mn_major, unsigned elem_bytes, unsigned mn0,
                  unsigned count, unsigned K, std::vector<uint32_t>& out);

}  // namespace smemlab::emu
