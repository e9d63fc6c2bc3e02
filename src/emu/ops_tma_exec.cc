// Executors of the Tensor Memory Accelerator's instructions. Each lane that
// executes a load or reduction issues its own copy; a store or a prefetch is
// issued once per distinct set of operands among the warp's active lanes
// (store_issuing_lanes, ops_bulk_store.h: as ptxas and the H100 do for
// stores, run 15; CUTLASS 3's epilogue stores from a whole warp; ptxas
// gives a prefetch the same loop, docs/bank-model.md). The copy is
// performed at issue, one order the ISA allows (it completes at some point
// before the mbarrier phase or the bulk group says so): a load writes the
// whole box into shared memory (out-of-bounds elements filled with zeros, or
// NaN when the map asks) and then signals the box's bytes to the mbarrier
// (complete_tx); a store or reduction reads the box from shared memory and
// writes the in-bounds elements. So cp.async.bulk.commit_group and
// wait_group{.read} have nothing left to wait for.
//
// Observers see each copy as BulkCopy events (issue; completion: a load's
// after its data moved, before the complete_tx on its mbarrier; a store's
// or reduction's at the cp.async.bulk.wait_group covering its bulk
// async-group, or the thread's exit) and, between them, each 16-byte chunk
// of the box in shared memory as one 16-byte access (a load's write:
// BulkStore, a peer's through a multicast as a DsharedAccess; a store's
// read: BulkLoad, of the chunk's elements inside the tensor only, whose
// values are stored) at its swizzled address, and the global side as 16-byte
// accesses where a chunk is whole and 16-byte aligned in global memory,
// else one per element (BulkLoad, BulkStore, BulkReduce).
#include <fmt/format.h>

#include <atomic>
#include <cstring>

#include "emu/exec.h"
#include "emu/hopper_events.h"
#include "emu/mbar_watch.h"
#include "emu/ops_async.h"
#include "emu/ops_bulk_store.h"
#include "emu/tma.h"

namespace smemlab::emu {
namespace {

constexpr uint32_t kMbarrierRelease = 16;  // as ops_async_exec.cc

[[noreturn]] void tma_fault(const Warp& w, uint32_t pc, uint32_t l, const std::string& msg) {
  fault(w, pc, static_cast<int>(l), FaultKind::Tma, msg);
}

// One lane's copy: its map, box, coordinates and shared address.
struct Copy {
  tma::TensorMap m;
  tma::Box box;
  int32_t c[tma::kMaxRank] = {};
  uint16_t off[3] = {};
  uint32_t smem = 0;
};

// Reads lane l's tensor map and checks it against the instruction; every
// feature this emulator does not model is a fault naming it.
tma::TensorMap read_map(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t l,
                        const TmaOp& t) {
  const uint64_t addr = reg(w, t.map)[l] + static_cast<uint64_t>(t.map_off);
  if (addr % 64)
    fault(w, pc, static_cast<int>(l), FaultKind::Misaligned,
          fmt::format("a tensor map must be 64-byte aligned (address 0x{:x})", addr));
  Space sp;
  uint64_t shown;
  const uint8_t* p = mem_translate(b, w, op, pc, l, t.map_space, addr, tma::kMapBytes, &sp, &shown);
  tma::TensorMap m;
  std::string why;
  if (!tma::decode(p, &m, &why))
    tma_fault(w, pc, l, fmt::format("the tensor map at 0x{:x} is not valid: {}", addr, why));
  if (m.rank != t.dims)
    tma_fault(w, pc, l,
              fmt::format("a .{}d copy with a tensor map of rank {}", unsigned{t.dims}, m.rank));
  if ((m.mode == tma::Mode::Im2col) != t.im2col)
    tma_fault(w, pc, l,
              fmt::format("a .{} copy with {} tensor map", t.im2col ? "im2col" : "tile",
                          m.mode == tma::Mode::Im2col ? "an im2col" : "a tiled"));
  if (m.interleave != tma::Interleave::None)
    tma_fault(w, pc, l,
              fmt::format("{} tensor maps are not supported by the emulator",
                          tma::interleave_name(m.interleave)));
  if (tma::element_bytes(m.type) == 0)
    tma_fault(w, pc, l,
              fmt::format("the packed data type {} is not supported by the emulator",
                          tma::type_name(m.type)));
  if (m.swizzle > tma::Swizzle::B128)
    tma_fault(w, pc, l,
              fmt::format("{} (a CC 10.0 mode) is not supported by the emulator",
                          tma::swizzle_name(m.swizzle)));
  return m;
}

// Lane l's tensor coordinates into c; faults, as the GPU traps, where it
// refuses them (tma::coordinate_error).
void read_coords(Warp& w, uint32_t pc, uint32_t l, const TmaOp& t, const tma::TensorMap& m,
                 bool store, int32_t c[tma::kMaxRank]) {
  for (unsigned i = 0; i < t.dims; ++i) c[i] = static_cast<int32_t>(reg(w, t.coord[i])[l]);
  const std::string why = tma::coordinate_error(m, c, store);
  if (!why.empty())
    fault(w, pc, static_cast<int>(l), FaultKind::IllegalInstruction,
          fmt::format("{} (the GPU traps with an illegal-instruction error)", why));
}

Copy setup(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t l, const TmaOp& t,
           bool store) {
  Copy k;
  k.m = read_map(b, w, op, pc, l, t);
  k.box = t.im2col ? tma::im2col_box(k.m) : tma::tile_box(k.m);
  if (k.box.row_elems * k.box.esize % 16)
    tma_fault(w, pc, l,
              fmt::format("the box's rows are {} bytes, not a multiple of 16",
                          k.box.row_elems * k.box.esize));
  read_coords(w, pc, l, t, k.m, store, k.c);
  if (t.im2col)
    for (unsigned i = 0; i + 2 < t.dims; ++i)
      k.off[i] = static_cast<uint16_t>(reg(w, t.offs[i])[l]);
  k.smem = static_cast<uint32_t>(reg(w, t.smem)[l] + static_cast<uint64_t>(t.smem_off));
  // Every mode, with a swizzle or without (an H100: misaligned address).
  if (k.smem % 128)
    fault(w, pc, static_cast<int>(l), FaultKind::Misaligned,
          fmt::format("the shared address of a tensor copy must be 128-byte aligned (offset {})",
                      k.smem));
  return k;
}

void row_origin(const Copy& k, bool im2col, uint32_t r, int64_t g[tma::kMaxRank]) {
  if (im2col)
    tma::im2col_row(k.m, k.c, k.off, r, g);
  else
    tma::tile_row(k.m, k.c, r, g);
}

void emit1(BlockCtx& b, Warp& w, const Op& op, uint32_t l, MemOp mop, Space sp, uint64_t addr,
           uint32_t width) {
  Space s[32];
  uint64_t a[32];
  s[l] = sp, a[l] = addr;
  mem_emit(b, w, op, mop, width, 1u << l, s, a);
}

// One 16-byte chunk of a box row: the global addresses of its elements
// (bit e of `inb`: element e is inside the tensor).
struct Chunk {
  uint32_t per = 0;  // elements
  uint32_t inb = 0;
  uint64_t addr[16] = {};
  bool whole() const { return inb == (1u << per) - 1 && addr[0] % 16 == 0; }
};

Chunk chunk_at(const Copy& k, int64_t g[tma::kMaxRank], uint32_t first) {
  Chunk ch;
  ch.per = 16 / k.box.esize;
  const int64_t g0 = g[0];
  for (uint32_t e = 0; e < ch.per; ++e) {
    g[0] = g0 + first + e;
    if (tma::element_address(k.m, g, &ch.addr[e])) ch.inb |= 1u << e;
  }
  g[0] = g0;
  return ch;
}

// Calls f(chunk, swizzled shared address) for every chunk of the box.
template <class F>
void for_each_chunk(const Copy& k, bool im2col, F&& f) {
  const uint32_t row_bytes = k.box.row_elems * k.box.esize, per = 16 / k.box.esize;
  for (uint32_t r = 0; r < k.box.rows; ++r) {
    int64_t g[tma::kMaxRank] = {};
    row_origin(k, im2col, r, g);
    for (uint32_t j = 0; j < row_bytes / 16; ++j) {
      Chunk ch = chunk_at(k, g, j * per);
      f(ch, tma::swizzle(k.m.swizzle, k.smem + r * k.box.pitch + j * 16));
    }
  }
}

void complete_tx(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t l, uint64_t bar,
                 uint32_t bytes, uint64_t copy) {
  Space bs;
  uint64_t shown;
  uint8_t* m = mem_translate(b, w, op, pc, l, MSpace::Shared, bar, 8, &bs, &shown);
  b.remote = 0;
  uint64_t obj;
  std::memcpy(&obj, m, 8);
  // The block that holds the mbarrier (a cluster peer's, for a
  // shared::cluster address of another rank).
  uint32_t off;
  BlockCtx& owner = shared_owner(b, bar, &off);
  const uint64_t word_before = obj;
  mbar_check(b, w, pc, l, owner, off, MB_COMPLETE_TX, true);
  Mbarrier e{};
  e.parity_before = mbar::parity(obj);
  e.pending_before = mbar::pending(obj);
  e.tx_before = mbar::tx_count(obj);
  try {
    mbar::complete_tx(obj, bytes);
  } catch (const mbar::Error& err) {
    fault(w, pc, static_cast<int>(l), FaultKind::Mbarrier, err.what());
  }
  std::memcpy(m, &obj, 8);
  mbar_note(b, w, pc, l, owner, off, MB_COMPLETE_TX, true, word_before, obj);
  const bool completed = mbar::parity(obj) != e.parity_before;
  if (b.obs || owner.obs) {
    e.kind = MbarrierKind::CompleteTx;
    e.lane = static_cast<uint8_t>(l);
    e.completed = completed;
    e.addr = off;
    e.tx = bytes;
    e.parity_after = mbar::parity(obj);
    e.pending_after = mbar::pending(obj);
    e.tx_after = mbar::tx_count(obj);
    e.expected = mbar::expected(obj);
    e.copy = copy;
    e.instr = &b.prog->info[op.info];
    e.warp = w.index;
    send_mbarrier(b, owner, e);
  }
  if (completed && owner.obs) owner.obs->on_barrier_release(BarrierRelease{kMbarrierRelease, 0});
}

// The shared offsets (in the destination block) of the box's 16-byte
// chunks after the swizzle, in the order for_each_chunk walks them.
void shared_chunks(const Copy& k, std::vector<uint32_t>& out) {
  constexpr uint32_t kOffsetMask = (1u << kClusterRankShift) - 1;
  const uint32_t row_bytes = k.box.row_elems * k.box.esize;
  out.clear();
  for (uint32_t r = 0; r < k.box.rows; ++r)
    for (uint32_t j = 0; j < row_bytes / 16; ++j)
      out.push_back(tma::swizzle(k.m.swizzle, k.smem + r * k.box.pitch + j * 16) & kOffsetMask);
}

// The global bytes of the box inside the tensor, as contiguous runs.
void global_ranges(const Copy& k, bool im2col, std::vector<ByteRange>& out) {
  out.clear();
  const uint32_t es = k.box.esize;
  for (uint32_t r = 0; r < k.box.rows; ++r) {
    int64_t g[tma::kMaxRank] = {};
    row_origin(k, im2col, r, g);
    const int64_t g0 = g[0];
    for (uint32_t e = 0; e < k.box.row_elems; ++e) {
      g[0] = g0 + e;
      uint64_t a;
      if (!tma::element_address(k.m, g, &a)) continue;
      if (!out.empty() && out.back().addr + out.back().bytes == a)
        out.back().bytes += es;
      else
        out.push_back({a, es});
    }
  }
}

// The box's global side chunk by chunk in for_each_chunk's order: each
// chunk's address from the tensor's linear layout (also outside it) and
// its bytes inside the tensor.
void global_chunks(const Copy& k, bool im2col, std::vector<GlobalChunk>& out) {
  out.clear();
  const uint32_t es = k.box.esize, row_bytes = k.box.row_elems * es;
  for (uint32_t r = 0; r < k.box.rows; ++r) {
    int64_t g[tma::kMaxRank] = {};
    row_origin(k, im2col, r, g);
    int64_t off = 0;
    bool inside = true;
    for (uint32_t i = 1; i < k.m.rank; ++i) {
      off += g[i] * static_cast<int64_t>(k.m.stride[i - 1]);
      inside = inside && g[i] >= 0 && static_cast<uint64_t>(g[i]) < k.m.dim[i];
    }
    const int64_t end = static_cast<int64_t>(k.m.dim[0] * es);
    for (uint32_t at = 0; at < row_bytes; at += 16) {
      const int64_t first = g[0] * static_cast<int64_t>(es) + at;
      const uint32_t valid = inside && first >= 0 && first < end
                                 ? static_cast<uint32_t>(std::min<int64_t>(16, end - first))
                                 : 0;
      out.push_back({k.m.address + static_cast<uint64_t>(off + first), valid});
    }
  }
}

// A copy's BulkCopy event as its issue shows it.
BulkCopy copy_event(BlockCtx& b, const Warp& w, const Op& op, uint32_t l, const TmaOp& t,
                    const Copy& k, BulkKind kind) {
  BulkCopy ev{};
  ev.phase = BulkPhase::Issue;
  ev.kind = kind;
  ev.tensor = true;
  ev.im2col = t.im2col;
  ev.dims = t.dims;
  ev.swizzle = static_cast<uint8_t>(k.m.swizzle);
  ev.lane = static_cast<uint8_t>(l);
  ev.id = next_copy_id(b);
  ev.mbarrier = kNoMbarrier;
  ev.shared_base = k.smem & ((1u << kClusterRankShift) - 1);
  ev.row_bytes = k.box.row_elems * k.box.esize;
  ev.rows = k.box.rows;
  ev.pitch = k.box.pitch;
  ev.bytes = k.box.bytes();
  ev.unit_strides = true;
  for (uint32_t i = 0; i < k.m.rank; ++i)
    ev.unit_strides = ev.unit_strides && k.m.elem_stride[i] == 1;
  ev.instr = &b.prog->info[op.info];
  ev.warp = w.index;
  return ev;
}

// Sends a load's event to the issuer and every destination block: the
// multicast ranks, or the block its shared address names.
void send_load(BlockCtx& b, const Copy& k, uint32_t ranks, const BulkCopy& ev) {
  if (!ranks) {
    uint32_t off;
    send_bulk(b, shared_owner(b, k.smem, &off), ev);
    return;
  }
  send_bulk(b, b, ev);
  for (uint32_t m = ranks; m; m &= m - 1) {
    BlockCtx& to = *b.cluster->blocks[static_cast<uint32_t>(__builtin_ctz(m))];
    if (&to != &b) send_bulk(b, to, ev, false);
  }
}

// The shared::cluster address of CTA-relative offset `a` in block `rank`.
uint64_t in_rank(uint32_t rank, uint64_t a) {
  return (uint64_t{rank} + 1) << kClusterRankShift | (a & ((1u << kClusterRankShift) - 1));
}

void load(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t l, const TmaOp& t) {
  Copy k = setup(b, w, op, pc, l, t, false);
  // .multicast::cluster: the box and the mbarrier's bytes go to the same
  // CTA-relative offsets in every block of ctaMask (bit r: rank r).
  uint32_t ranks = 0;
  if (t.multicast) {
    ranks = static_cast<uint16_t>(reg(w, t.mask)[l]);
    const size_t n = b.cluster->blocks.size();
    if (ranks >> n)
      tma_fault(w, pc, l,
                fmt::format("multicast to ctaMask 0x{:x}: the cluster has {} block{} (ranks 0 "
                            "to {})",
                            ranks, n, n == 1 ? "" : "s", n - 1));
    if (!ranks) return;
  }
  const uint32_t es = k.box.esize;
  const uint64_t fill = k.m.oob_fill && tma::is_float(k.m.type) ? tma::nan_fill(k.m.type) : 0;
  thread_local std::vector<uint32_t> chunks;
  thread_local std::vector<ByteRange> global;
  thread_local std::vector<GlobalChunk> gchunks;
  BulkCopy ev{};
  if (b.obs) {
    shared_chunks(k, chunks);
    global_ranges(k, t.im2col, global);
    global_chunks(k, t.im2col, gchunks);
    ev = copy_event(b, w, op, l, t, k, BulkKind::Load);
    ev.multicast = static_cast<uint16_t>(ranks);
    ev.chunks = chunks;
    ev.global = global;
    ev.global_chunks = gchunks;
    uint32_t bar_off;
    shared_owner(b, reg(w, t.mbar)[l] + static_cast<uint64_t>(t.mbar_off), &bar_off);
    ev.mbarrier = bar_off;
    send_load(b, k, ranks, ev);
  }
  for_each_chunk(k, t.im2col, [&](const Chunk& ch, uint32_t sa) {
    uint8_t buf[16] = {};
    Space sp;
    uint64_t shown;
    if (ch.whole()) {
      std::memcpy(buf, mem_translate(b, w, op, pc, l, MSpace::Global, ch.addr[0], 16, &sp, &shown),
                  16);
      if (b.obs) emit1(b, w, op, l, MemOp::BulkLoad, Space::Global, shown, 16);
    } else {
      for (uint32_t e = 0; e < ch.per; ++e) {
        if (!(ch.inb >> e & 1)) {
          std::memcpy(buf + e * es, &fill, es);
          continue;
        }
        std::memcpy(buf + e * es,
                    mem_translate(b, w, op, pc, l, MSpace::Global, ch.addr[e], es, &sp, &shown),
                    es);
        if (b.obs) emit1(b, w, op, l, MemOp::BulkLoad, Space::Global, shown, es);
      }
    }
    auto store = [&](uint64_t to) {
      std::memcpy(mem_translate(b, w, op, pc, l, MSpace::Shared, to, 16, &sp, &shown), buf, 16);
      if (b.obs) emit1(b, w, op, l, MemOp::BulkStore, Space::Shared, shown, 16);
    };
    if (!ranks) store(sa);
    for (uint32_t m = ranks; m; m &= m - 1)
      store(in_rank(static_cast<uint32_t>(__builtin_ctz(m)), sa));
  });
  if (b.obs) {
    ev.phase = BulkPhase::Complete;
    send_load(b, k, ranks, ev);
  }
  const uint64_t bar = reg(w, t.mbar)[l] + static_cast<uint64_t>(t.mbar_off);
  const auto bytes = static_cast<uint32_t>(k.box.bytes());
  if (!ranks) complete_tx(b, w, op, pc, l, bar, bytes, ev.id);
  for (uint32_t m = ranks; m; m &= m - 1)
    complete_tx(b, w, op, pc, l, in_rank(static_cast<uint32_t>(__builtin_ctz(m)), bar), bytes,
                ev.id);
}

// old OP v at a global element, atomically (other blocks run in parallel).
template <class U>
void reduce_at(uint8_t* p, tma::Red r, tma::DataType ty, uint64_t v) {
  std::atomic_ref<U> ref(*reinterpret_cast<U*>(p));
  U old = ref.load(std::memory_order_relaxed);
  while (!ref.compare_exchange_weak(old, static_cast<U>(tma::reduce(r, ty, old, v)),
                                    std::memory_order_relaxed)) {
  }
}

tma::Red red_of(AtomOp a) {
  switch (a) {
    case A_MIN:
      return tma::Red::Min;
    case A_MAX:
      return tma::Red::Max;
    case A_INC:
      return tma::Red::Inc;
    case A_DEC:
      return tma::Red::Dec;
    case A_AND:
      return tma::Red::And;
    case A_OR:
      return tma::Red::Or;
    case A_XOR:
      return tma::Red::Xor;
    default:
      return tma::Red::Add;
  }
}

void store(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t l, const TmaOp& t,
           bool reduce) {
  Copy k = setup(b, w, op, pc, l, t, true);
  const tma::Red red = red_of(t.red);
  static const char* const red_names[] = {"add", "min", "max", "inc", "dec", "and", "or", "xor"};
  if (reduce && !tma::reduce_defined(red, k.m.type))
    tma_fault(w, pc, l,
              fmt::format("cp.reduce.async.bulk.tensor .{} is not defined for {}",
                          red_names[static_cast<int>(red)], tma::type_name(k.m.type)));
  const uint32_t es = k.box.esize;
  const MemOp gop = reduce ? MemOp::BulkReduce : MemOp::BulkStore;
  BulkCopy ev{};
  PendingBulk p;
  if (b.obs) {
    shared_chunks(k, p.chunks);
    global_ranges(k, false, p.global);
    global_chunks(k, false, p.global_chunks);
    ev = copy_event(b, w, op, l, t, k, reduce ? BulkKind::Reduce : BulkKind::Store);
    ev.group = b.async[w.index].bulk_committed[l];
    ev.chunks = p.chunks;
    ev.global = p.global;
    ev.global_chunks = p.global_chunks;
    send_bulk(b, b, ev);
  }
  for_each_chunk(k, false, [&](const Chunk& ch, uint32_t sa) {
    Space sp;
    uint64_t shown;
    const uint8_t* src = mem_translate(b, w, op, pc, l, MSpace::Shared, sa, 16, &sp, &shown);
    // The shared read as far as it matters: elements outside the tensor are
    // not stored, so their bytes' values go nowhere (a box wider than the
    // tensor over a tile whose padding no one writes: fast.cu kernel 12).
    if (b.obs && ch.inb == (1u << ch.per) - 1) {
      emit1(b, w, op, l, MemOp::BulkLoad, Space::Shared, shown, 16);
    } else if (b.obs) {
      for (uint32_t e = 0; e < ch.per; ++e)
        if (ch.inb >> e & 1) emit1(b, w, op, l, MemOp::BulkLoad, Space::Shared, shown + e * es, es);
    }
    if (!reduce && ch.whole()) {
      std::memcpy(mem_translate(b, w, op, pc, l, MSpace::Global, ch.addr[0], 16, &sp, &shown), src,
                  16);
      if (b.obs) emit1(b, w, op, l, gop, Space::Global, shown, 16);
      return;
    }
    for (uint32_t e = 0; e < ch.per; ++e) {
      if (!(ch.inb >> e & 1)) continue;
      uint8_t* p = mem_translate(b, w, op, pc, l, MSpace::Global, ch.addr[e], es, &sp, &shown);
      if (!reduce) {
        std::memcpy(p, src + e * es, es);
      } else {
        uint64_t v = 0;
        std::memcpy(&v, src + e * es, es);
        if (es == 2)
          reduce_at<uint16_t>(p, red, k.m.type, v);
        else if (es == 4)
          reduce_at<uint32_t>(p, red, k.m.type, v);
        else
          reduce_at<uint64_t>(p, red, k.m.type, v);
      }
      if (b.obs) emit1(b, w, op, l, gop, Space::Global, shown, es);
    }
  });
  ++b.writes;
  if (b.obs) {
    p.event = ev;
    bulk_pending(b, w, std::move(p));
  }
}

// cp.async.bulk.prefetch.tensor: checks the map and the coordinates,
// moves no data; observers see it issue and complete at once.
void prefetch(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t l, const TmaOp& t) {
  Copy k;
  k.m = read_map(b, w, op, pc, l, t);
  read_coords(w, pc, l, t, k.m, false, k.c);
  if (!b.obs) return;
  k.box = t.im2col ? tma::im2col_box(k.m) : tma::tile_box(k.m);
  if (t.im2col)
    for (unsigned i = 0; i + 2 < t.dims; ++i)
      k.off[i] = static_cast<uint16_t>(reg(w, t.offs[i])[l]);
  thread_local std::vector<ByteRange> global;
  global_ranges(k, t.im2col, global);
  BulkCopy ev = copy_event(b, w, op, l, t, k, BulkKind::Prefetch);
  ev.shared_base = 0;
  ev.global = global;
  send_bulk(b, b, ev);
  ev.phase = BulkPhase::Complete;
  send_bulk(b, b, ev);
}

}  // namespace

void exec_tma(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t exec) {
  const auto kind = static_cast<TmaKind>(op.t2);
  if (kind == TMA_COMMIT || kind == TMA_WAIT) {
    // Copies complete at issue; only observers hear of the groups.
    if (!b.obs || exec == 0) return;
    if (kind == TMA_COMMIT)
      bulk_commit(b, w, exec);
    else
      bulk_wait(b, w, exec, static_cast<uint32_t>(op.imm), (op.aux2 & 1) != 0);
    return;
  }
  if (exec == 0) return;  // a false guard: no lane, and op.imm need not name a TmaOp
  const TmaOp& t = b.prog->tma_ops[static_cast<size_t>(op.imm)];
  if (kind == TMA_STORE || kind == TMA_PREFETCH)
    exec = store_issuing_lanes(w, t.regs.data(), t.regs.size(), exec);
  SMEMLAB_FOR_LANES(exec, {
    switch (kind) {
      case TMA_LOAD:
        load(b, w, op, pc, l, t);
        break;
      case TMA_STORE:
      case TMA_REDUCE:
        store(b, w, op, pc, l, t, kind == TMA_REDUCE);
        break;
      default:
        prefetch(b, w, op, pc, l, t);
        break;
    }
  });
}

}  // namespace smemlab::emu
