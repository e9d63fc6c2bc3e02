// ld/st/atom/red/cp.async: address translation with exact bounds for every
// space, alignment checks, and the memory events for observers. Global
// atomics use std::atomic_ref because blocks run on several host threads;
// shared memory belongs to one block and so to one host thread.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <type_traits>

#include "emu/atom_results.h"
#include "emu/decode_context.h"
#include "emu/decode_tensor.h"
#include "emu/decode_tma.h"
#include "emu/exec.h"
#include "emu/half.h"
#include "emu/hopper_events.h"
#include "emu/ops_alu.h"
#include "emu/ops_memory_lane.h"

namespace smemlab::emu {
namespace {

const char* verb(const Op& op) {
  if (op.code / 16 == LD || op.code / 16 == BUILTIN) return "load";
  if (op.code / 16 == ST) return "store";
  if (op.code / 16 == LDMATRIX) return op.t2 ? "stmatrix" : "ldmatrix";
  if (op.code / 16 == MMA) return "wmma";
  if (op.code / 16 == MBAR) return "mbarrier";
  if (op.code / 16 == BULK) return "cp.async.bulk";
  if (op.code / 16 == BULK_ST) return op.t2 ? "cp.reduce.async.bulk" : "cp.async.bulk";
  if (op.code / 16 == TMA) return "cp.async.bulk.tensor";
  if (op.code / 16 == TEX) return "texture read";
  if (op.code / 16 == SULD) return "surface load";
  if (op.code / 16 == SUST) return "surface store";
  return op.t2 == 1 ? "reduction" : "atomic";
}

std::string describe_global(const GlobalMemory& g, uint64_t addr, uint32_t size) {
  if (addr >= kHeapBase) {
    bool freed = false;
    const DeviceAllocation* a = g.heap().below(addr, &freed);
    if (a && freed && addr - a->base < std::max<uint64_t>(a->size, 1))
      return fmt::format(" (inside '{}' at 0x{:x}, which was freed)", a->name, a->base);
    if (a && addr >= a->base + a->size)
      return fmt::format(" ({} bytes past the end of {}-byte allocation '{}' at 0x{:x}{})",
                         addr + size - (a->base + a->size), a->size, a->name, a->base,
                         freed ? ", freed" : "");
    if (a)
      return fmt::format(" (straddles the end of {}-byte allocation '{}' at 0x{:x})", a->size,
                         a->name, a->base);
    return " (in the device heap, before its first allocation)";
  }
  if (const GlobalMemory::Range* r = g.reserved_at(addr); r && !g.find(addr))
    return fmt::format(
        " (not mapped: in the reserved range [0x{:x}, 0x{:x}) of cuMemAddressReserve)", r->base,
        r->base + r->size);
  if (const GlobalMemory::Freed* f = g.freed_at(addr))
    return fmt::format(
        " (inside the {}-byte allocation{} at 0x{:x}, which was freed: a use after free)", f->size,
        f->name.empty() ? "" : " '" + f->name + "'", f->base);
  const GlobalMemory::Allocation* best = nullptr;
  for (const auto& a : g.allocations())
    if (a->base <= addr && (!best || a->base > best->base)) best = a.get();
  if (best && addr >= best->base + best->size)
    return fmt::format(" ({} bytes past the end of {}-byte allocation{} at 0x{:x})",
                       addr + size - (best->base + best->size), best->size,
                       best->name.empty() ? "" : " '" + best->name + "'", best->base);
  if (best && addr + size > best->base + best->size)
    return fmt::format(" (straddles the end of {}-byte allocation at 0x{:x})", best->size,
                       best->base);
  return best && is_global_address(addr) ? "" : " (not a global address)";
}

// Host pointer for `size` bytes at `addr` in space `s`, or a fault.
uint8_t* translate(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t lane, MSpace s,
                   uint64_t addr, uint32_t size, Space* space, uint64_t* shown) {
  if (s == MSpace::Generic) {
    if (is_global_address(addr))
      s = MSpace::Global;
    else if (addr - kSharedWindow < kWindowSize)
      s = MSpace::Shared, addr -= kSharedWindow;
    else if (addr - kLocalWindow < kWindowSize)
      s = MSpace::Local, addr -= kLocalWindow;
    else if (addr - kConstWindow < kWindowSize)
      s = MSpace::Const, addr -= kConstWindow;
    else if (addr - kParamWindow < kWindowSize)
      s = MSpace::Param, addr -= kParamWindow;
    else
      s = MSpace::Global;
  }
  *shown = addr;
  uint32_t align = size > 16 ? 16 : size;
  if (align && (addr & (align - 1)))
    fault(w, pc, static_cast<int>(lane), FaultKind::Misaligned,
          fmt::format("misaligned {}-byte {} at address 0x{:x}", size, verb(op), addr));
  uint8_t* p = nullptr;
  const LaunchEnv& e = *b.env;
  switch (s) {
    case MSpace::Global:
      *space = Space::Global;
      p = e.global->translate(addr, size);
      if (!p)
        fault(w, pc, static_cast<int>(lane), FaultKind::OutOfBounds,
              fmt::format("global {} of {} bytes at 0x{:x} is outside every allocation{}", verb(op),
                          size, addr, describe_global(*e.global, addr, size)));
      return p;
    case MSpace::Shared:
      *space = Space::Shared;
      if (addr >> kClusterRankShift && addr < kWindowSize) {
        // A shared::cluster address: this block's or a peer's (then
        // observers, which see one block's shared memory, do not see it).
        BlockCtx& owner = cluster_shared(b, w, pc, lane, &addr, size, verb(op));
        if (&owner != &b) {
          b.remote |= 1u << lane;
          b.remote_rank[lane] = static_cast<uint8_t>(owner.rank);
        }
        *shown = addr;
        return owner.shared.data() + addr;
      }
      if (addr + size > b.shared_bytes || addr >= kWindowSize)
        fault(w, pc, static_cast<int>(lane), FaultKind::OutOfBounds,
              fmt::format("shared {} of {} bytes at offset {} is outside the block's {} bytes of "
                          "shared memory",
                          verb(op), size, static_cast<int64_t>(addr), b.shared_bytes));
      return b.shared.data() + addr;
    case MSpace::Local: {
      *space = (op.aux2 & 1) && op.code / 16 != ATOM ? Space::Param : Space::Local;
      uint32_t fb = b.prog->frame_bytes;
      if (addr + size > fb || addr >= kWindowSize)
        fault(w, pc, static_cast<int>(lane), FaultKind::OutOfBounds,
              fmt::format("local {} of {} bytes at offset {} is outside the thread's {}-byte frame",
                          verb(op), size, static_cast<int64_t>(addr), fb));
      return w.local + size_t{lane} * fb + addr;
    }
    case MSpace::Const:
      *space = Space::Const;
      if (addr + size > e.const_bytes || addr >= kWindowSize)
        fault(w, pc, static_cast<int>(lane), FaultKind::OutOfBounds,
              fmt::format("const {} of {} bytes at offset {} is outside the {}-byte constant bank",
                          verb(op), size, addr, e.const_bytes));
      return const_cast<uint8_t*>(e.const_bank) + addr;
    case MSpace::Param:
      *space = Space::Param;
      if (addr + size > b.prog->param_bytes || addr >= kWindowSize)
        fault(
            w, pc, static_cast<int>(lane), FaultKind::OutOfBounds,
            fmt::format("param {} of {} bytes at offset {} is outside the {}-byte parameter buffer",
                        verb(op), size, addr, b.prog->param_bytes));
      return const_cast<uint8_t*>(e.params) + addr;
    default:
      break;
  }
  return nullptr;
}

// atom.add.noftz.{f16,bf16,f16x2,bf16x2} (atomicAdd on __half, __half2,
// __nv_bfloat16, __nv_bfloat162): each 16-bit lane added in f32 and rounded
// once to nearest even (exact: the f32 sum of two halves never lands on a
// false tie), denormals kept (.noftz).
uint64_t add_halves(T t, uint64_t a, uint64_t b) {
  bool bf = t == BF16 || t == BF16X2;
  int n = t == F16X2 || t == BF16X2 ? 2 : 1;
  uint64_t r = 0;
  for (int i = 0; i < n; ++i) {
    auto x = static_cast<uint16_t>(a >> (16 * i)), y = static_cast<uint16_t>(b >> (16 * i));
    float s = bf ? bf16_to_float(x) + bf16_to_float(y) : half_to_float(x) + half_to_float(y);
    r |= uint64_t{bf ? float_to_bf16(s) : float_to_half(s)} << (16 * i);
  }
  return r;
}

template <typename U>
uint64_t atom_apply(const Op& op, uint8_t* p, uint64_t bv, uint64_t cv, bool global) {
  T t = static_cast<T>(op.t);
  auto apply = [&](U old) -> U {
    U b = static_cast<U>(bv), c = static_cast<U>(cv);
    switch (op.aux2) {
      case A_ADD:
        if (t == F16 || t == BF16 || t == F16X2 || t == BF16X2)
          return static_cast<U>(add_halves(t, old, b));
        if (t == F32) return static_cast<U>(put(get<float>(old) + get<float>(b)));
        if (t == F64) return static_cast<U>(put(get<double>(old) + get<double>(b)));
        return static_cast<U>(old + b);
      case A_MIN:
      case A_MAX: {
        bool mx = op.aux2 == A_MAX;
        if (t == S32 || t == S64) {
          using S = std::make_signed_t<U>;
          S o = static_cast<S>(old), x = static_cast<S>(b);
          return static_cast<U>(mx ? (o > x ? o : x) : (o < x ? o : x));
        }
        if (t == F32) {
          float o = get<float>(old), x = get<float>(b);
          return static_cast<U>(put(mx ? std::fmax(o, x) : std::fmin(o, x)));
        }
        return mx ? (old > b ? old : b) : (old < b ? old : b);
      }
      case A_INC:
        return old >= b ? U(0) : static_cast<U>(old + 1);
      case A_DEC:
        return (old == 0 || old > b) ? b : static_cast<U>(old - 1);
      case A_CAS:
        return old == b ? c : old;
      case A_EXCH:
        return b;
      case A_AND:
        return old & b;
      case A_OR:
        return old | b;
      default:
        return old ^ b;
    }
  };
  U* ptr = reinterpret_cast<U*>(p);
  if (!global) {
    U old;
    std::memcpy(&old, p, sizeof(U));
    U nv = apply(old);
    std::memcpy(p, &nv, sizeof(U));
    return old;
  }
  std::atomic_ref<U> ref(*ptr);
  U old = ref.load(std::memory_order_relaxed);
  while (!ref.compare_exchange_weak(old, apply(old), std::memory_order_relaxed)) {
  }
  return old;
}

// (`st`: the event is a plain st of `op`, its values known: stage_stored.)
void emit(BlockCtx& b, Warp& w, const Op& op, MemOp mop, uint32_t width, uint32_t exec,
          const Space* spaces, const uint64_t* addrs, uint8_t matrices = 0, bool mbarrier = false,
          bool st = false) {
  // A peer's shared memory: not this block's own accesses (translate set
  // b.remote only for lanes that resolved to shared memory).
  if (const uint32_t peer = exec & b.remote)
    emit_dshared(b, w, op, mop, width, peer, addrs, matrices, mbarrier);
  exec &= ~b.remote;
  b.remote = 0;
  if (exec == 0) return;
  // Mostly every lane resolved to one space: one event, built in one pass.
  // (Lanes outside exec may hold anything in addrs; stage_access zeroes them.)
  const Space first = spaces[__builtin_ctz(exec)];
  uint32_t same = 0;
  SMEMLAB_FOR_LANES(exec, same |= static_cast<uint32_t>(spaces[l] == first) << l);
  if (same == exec) {
    stage_access(b, w, op, mop, width, exec, first, addrs, 0);
    if (st) stage_stored(b.event, w, op);
    b.event.matrices = matrices;
    b.event.mbarrier = mbarrier;
    report_access(b);
    b.event.mbarrier = false;
    return;
  }
  uint32_t done = 0;
  while (done != exec) {
    uint32_t first = static_cast<uint32_t>(__builtin_ctz(exec & ~done));
    MemAccess a;
    a.space = spaces[first];
    a.op = mop;
    a.width = static_cast<uint8_t>(width);
    a.matrices = matrices;
    a.mbarrier = mbarrier;
    a.mask = 0;
    std::memset(a.addr, 0, sizeof(a.addr));
    SMEMLAB_FOR_LANES(exec & ~done, {
      if (spaces[l] == a.space) {
        a.mask |= 1u << l;
        a.addr[l] = addrs[l];
      }
    });
    done |= a.mask;
    a.instr = &b.prog->info[op.info];
    a.block = b.id;
    a.warp = w.index;
    if (st) stage_stored(a, w, op);
    b.obs->on_memory(a);
  }
}

}  // namespace

uint8_t* read_generic(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t lane, uint64_t addr,
                      uint32_t size) {
  Space sp;
  uint64_t shown;
  return translate(b, w, op, pc, lane, MSpace::Generic, addr, size, &sp, &shown);
}

// One lane's vector access (ld/st .v2/.v4) as a single host access of its
// whole span where that span is 8 or 16 aligned bytes. The GPU performs such
// an access as one transaction, and programs rely on it across blocks: CUB's
// decoupled look-back publishes a tile's {status, value} as one .v2.u64 store
// that a later block polls with one load. Element by element, a block on
// another host thread could see the new status beside the old value
// (segmentationTreeThrust computed a cycle that way). A volatile access of 8
// or 16 aligned bytes is one instruction on x86-64 (16: one SSE move, atomic
// when aligned on processors with AVX); volatile, so the compiler can neither
// split it nor forward the bytes around it (a plain memcpy through a buffer
// whose halves were read separately became two 8-byte loads, and the test
// below failed). Returns false for other spans.
// A span whose host bytes are not aligned to its size (a local frame's host
// buffer need not be) is not copied: the caller copies it as before. The
// copy itself is mem_whole_copy's (ops_memory_lane.h), which the native
// tier's compiled loads and stores call too: one definition of the rule.
inline bool whole_vector_copy(uint8_t* dst, const uint8_t* src, uint32_t bytes) {
  if (bytes == 16) return mem_whole_copy<16>(dst, src);
  if (bytes == 8) return mem_whole_copy<8>(dst, src);
  return false;
}

// The data movement of a checked access: element size EW, op.vec elements.
template <bool kLoad, uint32_t EW>
inline void lanes_access(Warp& w, const Op& op, uint32_t exec, uint8_t* host, const uint64_t* A,
                         uint64_t base) {
  using U = std::conditional_t<
      EW == 1, uint8_t,
      std::conditional_t<EW == 2, uint16_t, std::conditional_t<EW == 4, uint32_t, uint64_t>>>;
  T t = static_cast<T>(op.t);
  const uint32_t span = EW * op.vec;
  if (op.vec > 1 && (span == 8 || span == 16)) {
    // Whole vectors lane by lane (see whole_vector_copy): aligned vectors of
    // two lanes either coincide or are disjoint, so memory ends as with the
    // element-major order below.
    const bool plain = EW == 8 || t == U32 || t == F32 || t == U16 || t == U8 || t == F16 ||
                       t == BF16 || t == F16X2 || t == BF16X2;
    const uint32_t n = std::min<uint32_t>(op.vec, 16 / EW);  // (span <= 16: the bound is op.vec)
    SMEMLAB_FOR_LANES(exec, {
      alignas(16) uint8_t buf[16];
      uint8_t* p = host + (A[l] + base);
      if (kLoad) {
        if (!whole_vector_copy(buf, p, span)) std::memcpy(buf, p, span);
        for (uint32_t i = 0; i < n; ++i) {
          U v;
          std::memcpy(&v, buf + i * EW, EW);
          regw(w, op.r[i])[l] = plain ? v : canonical(t, v);
        }
      } else {
        for (uint32_t i = 0; i < n; ++i) {
          U v = static_cast<U>(reg(w, op.r[i])[l]);
          std::memcpy(buf + i * EW, &v, EW);
        }
        if (!whole_vector_copy(p, buf, span)) std::memcpy(p, buf, span);
      }
    });
    return;
  }
  for (uint32_t i = 0; i < op.vec; ++i) {
    uint64_t* R = regw(w, op.r[i]);
    const uint64_t off = base + i * EW;
    if (kLoad) {
      if (EW == 8 || t == U32 || t == F32 || t == U16 || t == U8 || t == F16 || t == BF16 ||
          t == F16X2 || t == BF16X2) {
        SMEMLAB_FOR_LANES(exec, {
          U v;
          std::memcpy(&v, host + (A[l] + off), EW);
          R[l] = v;
        });
      } else {
        SMEMLAB_FOR_LANES(exec, {
          U v;
          std::memcpy(&v, host + (A[l] + off), EW);
          R[l] = canonical(t, v);
        });
      }
    } else {
      SMEMLAB_FOR_LANES(exec, {
        U v = static_cast<U>(R[l]);
        std::memcpy(host + (A[l] + off), &v, EW);
      });
    }
  }
}

// Fast path: every lane inside one window [lo, hi) of host memory `host`
// (host + addr - lo is the byte), aligned; no per-lane translation.
// Returns false (nothing done) if any lane is outside or misaligned.
template <bool kLoad>
bool fast_access(Warp& w, const Op& op, uint32_t exec, uint8_t* host, uint64_t lo, uint64_t hi,
                 uint32_t total) {
  if (hi - lo < total) return false;
  const uint64_t* A = reg(w, op.r[4]);
  const uint64_t base = static_cast<uint64_t>(op.imm) - lo;  // address - lo = A[l] + base
  const uint64_t limit = hi - lo - total;
  const uint64_t amask = total > 16 ? 15 : total - 1;  // lo is aligned to 256
  uint64_t bad = 0;
  if (exec == ~0u) {
    // A full warp: the offsets and their check in one branch-free pass the
    // compiler can vectorize, then the data without any test per lane.
    // (limit - x) | x has its top bit set exactly when x > limit, for any
    // limit below 2^63: plain 64-bit arithmetic, no unsigned compare.
    uint64_t a[32], over = 0, bits = 0;
    for (uint32_t l = 0; l < 32; ++l) {
      a[l] = A[l] + base;
      over |= (limit - a[l]) | a[l];
      bits |= a[l];
    }
    if ((over >> 63) | (bits & amask)) return false;
    if (op.vec == 1 && op.width == 4 && (!kLoad || op.t == U32 || op.t == F32 || op.t == S32)) {
      uint64_t* R = regw(w, op.r[0]);
      if (kLoad && op.t == S32) {
#pragma GCC unroll 8
        for (uint32_t l = 0; l < 32; ++l) {
          int32_t v;
          std::memcpy(&v, host + a[l], 4);
          R[l] = static_cast<uint64_t>(static_cast<int64_t>(v));
        }
      } else if (kLoad) {
#pragma GCC unroll 8
        for (uint32_t l = 0; l < 32; ++l) {
          uint32_t v;
          std::memcpy(&v, host + a[l], 4);
          R[l] = v;
        }
      } else {
#pragma GCC unroll 8
        for (uint32_t l = 0; l < 32; ++l) {
          uint32_t v = static_cast<uint32_t>(R[l]);
          std::memcpy(host + a[l], &v, 4);
        }
      }
      return true;
    }
  } else {
    SMEMLAB_FOR_LANES(exec, {
      uint64_t a = A[l] + base;
      bad |= static_cast<uint64_t>(a > limit) | (a & amask);
    });
  }
  if (bad) return false;
  uint64_t saved[32];
  if (kLoad && op.vec > 1) {  // a destination may be the address register
    std::memcpy(saved, A, sizeof(saved));
    A = saved;
  }
  switch (op.width) {
    case 1:
      lanes_access<kLoad, 1>(w, op, exec, host, A, base);
      break;
    case 2:
      lanes_access<kLoad, 2>(w, op, exec, host, A, base);
      break;
    case 4:
      lanes_access<kLoad, 4>(w, op, exec, host, A, base);
      break;
    default:
      lanes_access<kLoad, 8>(w, op, exec, host, A, base);
      break;
  }
  return true;
}

void exec_memory(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t exec) {
  if (exec == 0) return;
  Base base = static_cast<Base>(op.code / 16);
  MSpace ms = static_cast<MSpace>(op.aux);
  b.writes += base != LD;
  uint32_t ew = op.width, total = ew * (base == ATOM ? 1u : op.vec);
  const uint64_t* A = reg(w, op.r[4]);
  Space spaces[32];
  uint64_t shown[32];
  T t = static_cast<T>(op.t);
  b.remote = 0;
  if (base != ATOM) {
    bool done = false;
    // With an observer, the event of a fast access (all lanes in space ms) is
    // built before a load can overwrite its own address register; the
    // per-lane path below builds its own.
    const bool fast_space = ms == MSpace::Shared || ms == MSpace::Global ||
                            (base == LD && (ms == MSpace::Param || ms == MSpace::Const));
    if (b.obs && fast_space) {
      Space sp = ms == MSpace::Shared   ? Space::Shared
                 : ms == MSpace::Global ? Space::Global
                 : ms == MSpace::Param  ? Space::Param
                                        : Space::Const;
      stage_access(b, w, op, base == LD ? MemOp::Load : MemOp::Store, total, exec, sp, A,
                   static_cast<uint64_t>(op.imm));
      if (base == ST) stage_stored(b.event, w, op);
    }
    if (ms == MSpace::Shared) {
      done = base == LD
                 ? fast_access<true>(w, op, exec, b.shared.data(), 0, b.shared_bytes, total)
                 : fast_access<false>(w, op, exec, b.shared.data(), 0, b.shared_bytes, total);
    } else if (ms == MSpace::Param && base == LD) {
      done = fast_access<true>(w, op, exec, const_cast<uint8_t*>(b.env->params), 0,
                               b.prog->param_bytes, total);
    } else if (ms == MSpace::Const && base == LD) {
      done = fast_access<true>(w, op, exec, const_cast<uint8_t*>(b.env->const_bank), 0,
                               b.env->const_bytes, total);
    } else if (ms == MSpace::Global) {
      const uint64_t first = A[__builtin_ctz(exec)] + static_cast<uint64_t>(op.imm);
      if (const GlobalMemory::Allocation* a = b.env->global->find(first)) {
        uint8_t* host = a->data;
        done = base == LD
                   ? fast_access<true>(w, op, exec, host, a->base, a->base + a->size, total)
                   : fast_access<false>(w, op, exec, host, a->base, a->base + a->size, total);
      }
    }
    if (done) {
      if (b.obs) report_access(b);
      return;
    }
  }
  SMEMLAB_FOR_LANES(exec, {
    uint64_t addr = A[l] + static_cast<uint64_t>(op.imm);
    uint8_t* p = translate(b, w, op, pc, l, ms, addr, total, &spaces[l], &shown[l]);
    if (base == LD) {
      alignas(16) uint8_t whole[16];
      const bool at_once = op.vec > 1 && whole_vector_copy(whole, p, total);
      for (uint32_t i = 0; i < op.vec; ++i) {
        uint64_t v = 0;
        std::memcpy(&v, (at_once ? whole : p) + i * ew, ew);
        regw(w, op.r[i])[l] = canonical(t, v);
      }
    } else if (base == ST) {
      alignas(16) uint8_t whole[16];
      const bool at_once = op.vec > 1 && (total == 8 || total == 16);
      for (uint32_t i = 0; i < op.vec; ++i) {
        uint64_t v = reg(w, op.r[i])[l];
        std::memcpy((at_once ? whole : p) + i * ew, &v, ew);
      }
      if (at_once && !whole_vector_copy(p, whole, total)) std::memcpy(p, whole, total);
    } else {
      bool global = spaces[l] == Space::Global;
      uint64_t bv = reg(w, op.r[1])[l], cv = op.aux2 == A_CAS ? reg(w, op.r[2])[l] : 0;
      uint64_t old = ew == 8   ? atom_apply<uint64_t>(op, p, bv, cv, global)
                     : ew == 4 ? atom_apply<uint32_t>(op, p, bv, cv, global)
                               : atom_apply<uint16_t>(op, p, bv, cv, global);
      regw(w, op.r[0])[l] = canonical(t, old);
    }
  });
  if (b.obs) {
    MemOp mop = base == LD   ? MemOp::Load
                : base == ST ? MemOp::Store
                : op.t2      ? MemOp::Reduction
                             : MemOp::Atomic;
    if (ms == MSpace::Generic) {
      emit(b, w, op, mop, total, exec, spaces, shown, 0, false, base == ST);
    } else {
      // A named space (local memory, an atomic, a fast access that fell
      // back): every lane translated into the same space, one event, built
      // without emit's per-lane space test.
      const uint32_t own = exec & ~b.remote;
      if (const uint32_t peer = exec & b.remote) emit_dshared(b, w, op, mop, total, peer, shown, 0);
      b.remote = 0;
      if (own) {
        stage_access(b, w, op, mop, total, own, spaces[__builtin_ctz(own)], shown, 0);
        if (base == ST) stage_stored(b.event, w, op);
        report_access(b);
      }
    }
  }
}

namespace {

// Performs the pending copies of `lanes` whose group is below limit[lane]
// (all of them when limit is null), in issue order, and reports each
// completed batch to observers as the cp.async's read and write.
void cpasync_complete(BlockCtx& b, Warp& w, uint32_t lanes, const uint32_t* limit) {
  auto& copies = b.async[w.index].copies;
  for (AsyncCopy& c : copies) {
    uint32_t done = 0;
    SMEMLAB_FOR_LANES(c.lanes & lanes, {
      if (!limit || c.group[l] < limit[l]) done |= 1u << l;
    });
    if (!done) continue;
    SMEMLAB_FOR_LANES(done, {
      alignas(16) uint8_t tmp[16] = {};
      // A whole 8- or 16-byte source is one host read, as it is one
      // transaction on the GPU (whole_vector_copy: a block on another host
      // thread storing it whole is never seen half done). A shorter source
      // is zero-filled; a src-size of 0 has no source (src_host null).
      const bool whole = c.src_size[l] == c.bytes && whole_vector_copy(tmp, c.src_host[l], c.bytes);
      if (!whole && c.src_size[l]) std::memcpy(tmp, c.src_host[l], c.src_size[l]);
      std::memcpy(c.dst_host[l], tmp, c.bytes);
    });
    c.lanes &= ~done;
    if (b.obs) {
      Space ss[32], ds[32];
      SMEMLAB_FOR_LANES(done, ss[l] = Space::Global; ds[l] = Space::Shared);
      const Op& op = b.prog->ops[c.pc];
      emit(b, w, op, MemOp::CpAsyncLoad, c.bytes, done, ss, c.src);
      emit(b, w, op, MemOp::CpAsyncStore, c.bytes, done, ds, c.dst);
      CpAsyncCopy e{};
      e.mask = done;
      e.width = c.bytes;
      e.bypass = (op.aux2 & 1) != 0;
      e.src_size = op.r[2] != UINT32_MAX;
      SMEMLAB_FOR_LANES(done, {
        if (!c.src_size[l]) e.no_read |= 1u << l;
        e.shared[l] = c.dst[l];
        e.global[l] = c.src[l];
      });
      e.instr = &b.prog->info[op.info];
      e.block = b.id;
      e.warp = w.index;
      b.obs->on_cp_async(e);
    }
  }
  std::erase_if(copies, [](const AsyncCopy& c) { return c.lanes == 0; });
}

void cpasync_issue(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t exec) {
  const uint64_t *D = reg(w, op.r[4]), *S = reg(w, op.r[5]), *SO = reg(w, op.r[1]);
  AsyncState& st = b.async[w.index];
  AsyncCopy c;
  c.pc = pc;
  c.lanes = exec;
  c.bytes = op.width;
  uint32_t n = op.width;
  SMEMLAB_FOR_LANES(exec, {
    uint32_t src_size = op.r[2] == UINT32_MAX ? n : static_cast<uint32_t>(reg(w, op.r[2])[l]);
    if (src_size > n) src_size = n;
    Space sp;
    c.dst_host[l] = translate(b, w, op, pc, l, MSpace::Shared, D[l] + static_cast<uint64_t>(op.imm),
                              n, &sp, &c.dst[l]);
    c.src[l] = S[l] + SO[l];
    c.src_host[l] =
        src_size ? translate(b, w, op, pc, l, MSpace::Global, c.src[l], src_size, &sp, &c.src[l])
                 : nullptr;
    c.src_size[l] = src_size;
    c.group[l] = st.committed[l];
  });
  st.copies.push_back(c);
}

}  // namespace

uint8_t* mem_translate(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t lane, MSpace s,
                       uint64_t addr, uint32_t size, Space* space, uint64_t* shown) {
  return translate(b, w, op, pc, lane, s, addr, size, space, shown);
}

void mem_emit(BlockCtx& b, Warp& w, const Op& op, MemOp mop, uint32_t width, uint32_t exec,
              const Space* spaces, const uint64_t* addrs, uint8_t matrices, bool mbarrier) {
  emit(b, w, op, mop, width, exec, spaces, addrs, matrices, mbarrier);
}

void cpasync_complete_all(BlockCtx& b, Warp& w, uint32_t lanes) {
  cpasync_complete(b, w, lanes, nullptr);
}

void exec_cpasync(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t exec) {
  if (exec == 0) return;
  AsyncState& st = b.async[w.index];
  switch (op.aux) {
    case CPA_COPY:
      cpasync_issue(b, w, op, pc, exec);
      return;
    case CPA_COMMIT:
      SMEMLAB_FOR_LANES(exec, ++st.committed[l]);
      return;
    case CPA_WAIT_ALL:
      // = commit_group + wait_group 0: uncommitted copies complete too.
      SMEMLAB_FOR_LANES(exec, ++st.committed[l]);
      cpasync_complete(b, w, exec, nullptr);
      return;
    default: {
      // wait_group N: all but the most recent N committed groups complete;
      // copies not yet committed to a group are not waited for.
      if (st.copies.empty()) return;
      uint32_t limit[32] = {};
      uint64_t keep = static_cast<uint64_t>(op.imm);
      SMEMLAB_FOR_LANES(exec, limit[l] = st.committed[l] > keep
                                             ? st.committed[l] - static_cast<uint32_t>(keep)
                                             : 0u);
      cpasync_complete(b, w, exec, limit);
    }
  }
}

}  // namespace smemlab::emu

// ---- Decoders -----------------------------------------------------------------

namespace smemlab::emu {

using K = ptx::Operand::Kind;

void decode_ld_st(Insn& d) {
  DecodeContext& c = d.c;
  const ptx::Instruction& in = d.in;
  const auto& ops = d.operands();
  Op& op = d.op;
  T t = d.t;
  d.need(2);
  bool store = d.opcode() == "st";
  const ptx::Operand& data = store ? ops[1] : ops[0];
  const ptx::Operand& addr = store ? ops[0] : ops[1];
  if (addr.kind != K::Addr) c.fail(addr.pos, "expected an address operand [..]");
  if (t == B128 || t == PRED) d.unsupported();
  op.code = code(store ? ST : LD, t);
  op.aux = static_cast<uint8_t>(space_of(in));
  op.width = static_cast<uint8_t>(type_bytes(t));
  std::vector<const ptx::Operand*> elems;
  if (data.kind == K::Vector) {
    for (const auto& e : data.elems) elems.push_back(&e);
  } else {
    elems.push_back(&data);
  }
  if (elems.size() > 4) d.unsupported();
  op.vec = static_cast<uint8_t>(elems.size());
  for (size_t i = 0; i < elems.size(); ++i)
    op.r[i] = store ? c.src(*elems[i], t) : c.dst(*elems[i]);
  // Address: a register base, a symbol, or an absolute value.
  uint64_t sym_base = 0;
  bool have_reg = false, sym_frame = false;
  if (!addr.name.empty()) {
    auto& fr = c.frames.back();
    auto r = fr.regs.find(addr.name);
    if (r != fr.regs.end()) {
      op.r[4] = r->second;
      have_reg = true;
    } else if (const SymbolInfo* s = c.symbol(addr.name)) {
      sym_base = s->address;
      sym_frame = s->frame_relative;
      MSpace ms = static_cast<MSpace>(op.aux);
      if (s->space == MSpace::Local && ms == MSpace::Param) {
        op.aux = static_cast<uint8_t>(MSpace::Local);
        op.aux2 = 1;  // a call parameter: report it as .param
      } else if (ms == MSpace::Generic) {
        op.aux = static_cast<uint8_t>(s->space);
      } else if (s->space != ms && !(ms == MSpace::Global && s->space == MSpace::Global)) {
        c.fail(addr.pos,
               fmt::format("symbol '{}' is not in the instruction's state space", addr.name));
      }
    } else {
      c.fail(addr.pos, fmt::format("undeclared register or symbol '{}'", addr.name));
    }
  }
  if (!have_reg) op.r[4] = sym_frame ? c.frame_reg(0) : c.constant(0);
  op.imm = static_cast<int64_t>(sym_base) + addr.offset;
  if (static_cast<MSpace>(op.aux) == MSpace::Param && store)
    c.fail(in.pos, "st.param to a kernel parameter is not supported");
  d.push();
}

void decode_atom(Insn& d) {
  DecodeContext& c = d.c;
  const ptx::Instruction& in = d.in;
  const auto& ops = d.operands();
  Op& op = d.op;
  T t = d.t;
  static const char* names[] = {"add", "min",  "max", "inc", "dec",
                                "cas", "exch", "and", "or",  "xor"};
  int a = mod_index(names, 10, in);
  bool halves = t == F16 || t == BF16 || t == F16X2 || t == BF16X2;
  if (a < 0 || (halves && a != A_ADD) || t == B128) d.unsupported();  // halves: add only
  bool red = d.opcode() == "red";
  d.need(red ? 2 : (a == A_CAS ? 4 : 3));
  const ptx::Operand& addr = red ? ops[0] : ops[1];
  if (addr.kind != K::Addr) c.fail(addr.pos, "expected an address operand [..]");
  op.code = code(ATOM, t);
  op.aux = static_cast<uint8_t>(space_of(in));
  op.aux2 = static_cast<uint8_t>(a);
  // A RED's form (atom_results.h): marked here, kept where the result is dead.
  const bool red_form = !red && space_of(in) == MSpace::Global && a != A_CAS && a != A_EXCH &&
                        !in.has_mod("acquire") && !in.has_mod("acq_rel");
  op.t2 = red ? 1 : red_form ? kAtomUnreadCandidate : 0;
  op.width = static_cast<uint8_t>(type_bytes(t));
  op.r[0] = red ? c.scratch() : c.dst(ops[0]);
  op.r[1] = c.src(ops[red ? 1 : 2], t);
  if (a == A_CAS) op.r[2] = c.src(ops[3], t);
  auto& fr = c.frames.back();
  auto r = fr.regs.find(addr.name);
  if (r != fr.regs.end()) {
    op.r[4] = r->second;
    op.imm = addr.offset;
  } else if (const SymbolInfo* s = c.symbol(addr.name)) {
    op.r[4] = c.symbol_base(*s);
    op.imm = static_cast<int64_t>(s->address) + addr.offset;
    if (static_cast<MSpace>(op.aux) == MSpace::Generic) op.aux = static_cast<uint8_t>(s->space);
  } else {
    c.fail(addr.pos, fmt::format("undeclared register or symbol '{}'", addr.name));
  }
  d.push();
}

// cp.async (the copy, commit_group, wait_group N, wait_all: CpAsyncKind);
// cp.async.mbarrier.arrive and cp.async.bulk belong to decode_tensor.cc.
void decode_cp(Insn& d) {
  DecodeContext& c = d.c;
  const ptx::Instruction& in = d.in;
  const auto& ops = d.operands();
  Op& op = d.op;
  if (is_tma(in)) return decode_tma(c, in, op);
  if (is_tensor_or_async(in)) return decode_tensor(d);  // (cp.reduce.async.bulk.global too)
  if (in.mods.empty() || in.mods[0] != "async") d.unsupported();
  if (in.mods.size() >= 2 &&
      (in.mods[1] == "commit_group" || in.mods[1] == "wait_group" || in.mods[1] == "wait_all")) {
    op.code = code(CPASYNC, U8);
    op.aux = in.mods[1] == "commit_group" ? CPA_COMMIT
             : in.mods[1] == "wait_all"   ? CPA_WAIT_ALL
                                          : CPA_WAIT_GROUP;
    if (op.aux == CPA_WAIT_GROUP) {
      d.need(1);
      if (ops[0].kind != K::Imm) c.fail(ops[0].pos, "cp.async.wait_group needs an immediate N");
      op.imm = static_cast<int64_t>(ops[0].bits);
    }
    d.push();
    return;
  }
  if (ops.size() < 3 || ops[0].kind != K::Addr || ops[1].kind != K::Addr || ops[2].kind != K::Imm)
    d.unsupported();
  op.code = code(CPASYNC, U8);
  op.aux = CPA_COPY;
  op.width = static_cast<uint8_t>(ops[2].bits);
  if (op.width != 4 && op.width != 8 && op.width != 16)
    c.fail(ops[2].pos, "cp.async copies 4, 8 or 16 bytes");
  if (in.has_mod("cg") && op.width != 16) c.fail(ops[2].pos, "cp.async.cg copies 16 bytes");
  op.aux2 = in.has_mod("cg") ? 1 : 0;  // .cg (L1 bypass): observers' CpAsyncCopy::bypass
  auto base = [&](const ptx::Operand& a, uint64_t* off) -> uint32_t {
    auto& fr = c.frames.back();
    auto r = fr.regs.find(a.name);
    *off = static_cast<uint64_t>(a.offset);
    if (r != fr.regs.end()) return r->second;
    const SymbolInfo* s = c.symbol(a.name);
    if (!s) c.fail(a.pos, fmt::format("undeclared register or symbol '{}'", a.name));
    *off += s->address;
    return c.symbol_base(*s);
  };
  uint64_t doff, soff;
  op.r[4] = base(ops[0], &doff);
  op.imm = static_cast<int64_t>(doff);
  op.r[5] = base(ops[1], &soff);
  op.r[1] = c.constant(soff);
  op.r[2] = ops.size() > 3 && ops[3].kind != K::Vector ? c.src(ops[3], U32) : UINT32_MAX;
  d.push();
}

void decode_cvta(Insn& d) {
  d.need(2);
  MSpace s = space_of(d.in);
  if (s == MSpace::Generic) d.unsupported();
  Op& op = d.op;
  op.aux = static_cast<uint8_t>(s);
  if (d.opcode() == "isspacep") {
    op.code = code(ISSPACEP, U64);
    op.r[0] = d.c.pred(d.operands()[0]);
  } else {
    op.code = code(CVTA, d.t);
    op.aux2 = d.in.has_mod("to") ? 1 : 0;
    op.r[0] = d.c.dst(d.operands()[0]);
  }
  op.r[1] = d.c.src(d.operands()[1], d.t);
  d.push();
}

}  // namespace smemlab::emu
