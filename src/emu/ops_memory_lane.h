// Loads and stores as the native tier's generated code runs them (issue 30):
// ld/st of global and shared memory, and ld of the parameter and constant
// spaces, compiled with the op a constant. Each is the fast path of
// exec_memory (ops_memory.cc) for a launch nobody observes: every lane
// inside one window of host memory (the space, or the global allocation
// holding the first lane's address) and aligned, then the data moved lane
// by lane with no per-lane translation. Any other case (a lane outside the
// window or misaligned, another allocation, an observer attached, a
// shared::cluster address) is exec_memory's own, called through the ABI
// (native_abi.h): its faults (lane, address, source line), events and
// per-lane order are the interpreter's, because it is the interpreter.
// So the compiled form only decides that nothing can fault, which
// fast_access decides with the same test.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "emu/exec.h"
#include "emu/native_abi.h"

namespace smemlab::emu {

// Host bytes [host, host + size) holding device addresses [lo, lo + size).
struct MemWindow {
  uint8_t* host = nullptr;
  uint64_t lo = 0, size = 0;
};

// What the generated code calls out of line (NativeAbi's).
struct NativeMemCalls {
  NativeCallAlu exec_memory = nullptr;
  bool (*global_window)(BlockCtx& b, uint64_t addr, MemWindow* m) = nullptr;
};

// One lane's vector of 8 or 16 aligned bytes as one host access (the GPU's
// one transaction, which programs rely on across blocks: ops_memory.cc's
// whole_vector_copy says why, and calls this); false for a host address that
// is not aligned to the span (the caller copies bytewise).
using MemWhole16 = uint64_t __attribute__((vector_size(16)));
template <uint32_t Span>
[[gnu::always_inline]] inline bool mem_whole_copy(uint8_t* dst, const uint8_t* src) {
  if (((reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src)) & (Span - 1)) != 0)
    return false;
  if constexpr (Span == 16)
    *reinterpret_cast<volatile MemWhole16*>(dst) =
        *reinterpret_cast<const volatile MemWhole16*>(src);
  else
    *reinterpret_cast<volatile uint64_t*>(dst) = *reinterpret_cast<const volatile uint64_t*>(src);
  return true;
}

// A loaded element's register value: the bytes zero-extended for 8-byte
// elements and the unsigned, float and packed types, else canonical (as
// lanes_access).
template <uint32_t EW>
[[gnu::always_inline]] inline uint64_t mem_value(T t, uint64_t v) {
  const bool plain = EW == 8 || t == U32 || t == F32 || t == U16 || t == U8 || t == F16 ||
                     t == BF16 || t == F16X2 || t == BF16X2;
  return plain ? v : canonical(t, v);
}

template <uint32_t EW>
using MemWord = std::conditional_t<
    EW == 1, uint8_t,
    std::conditional_t<EW == 2, uint16_t, std::conditional_t<EW == 4, uint32_t, uint64_t>>>;

// The data movement once every lane of `exec` is inside the window and
// aligned: element size EW, VEC elements, off[l] the lane's byte in host.
// A vector of 8 or 16 bytes moves lane by lane as one access; other vectors
// element by element over the lanes (stores: of lanes writing one byte the
// last one's value stays, as in exec_memory).
template <bool kLoad, uint32_t EW, uint32_t VEC>
[[gnu::always_inline]] inline void mem_move(Warp& w, const Op& op, uint32_t exec, uint8_t* host,
                                            const uint64_t* off) {
  using U = MemWord<EW>;
  const T t = static_cast<T>(op.t);
  constexpr uint32_t kSpan = EW * VEC;
  if constexpr (VEC > 1 && (kSpan == 8 || kSpan == 16)) {
    SMEMLAB_FOR_LANES(exec, {
      alignas(16) uint8_t buf[16];
      uint8_t* p = host + off[l];
      if constexpr (kLoad) {
        if (!mem_whole_copy<kSpan>(buf, p)) std::memcpy(buf, p, kSpan);
        for (uint32_t i = 0; i < VEC; ++i) {
          U v;
          std::memcpy(&v, buf + i * EW, EW);
          regw(w, op.r[i])[l] = mem_value<EW>(t, v);
        }
      } else {
        for (uint32_t i = 0; i < VEC; ++i) {
          U v = static_cast<U>(reg(w, op.r[i])[l]);
          std::memcpy(buf + i * EW, &v, EW);
        }
        if (!mem_whole_copy<kSpan>(p, buf)) std::memcpy(p, buf, kSpan);
      }
    });
    return;
  }
  for (uint32_t i = 0; i < VEC; ++i) {
    uint64_t* R = regw(w, op.r[i]);
    if constexpr (kLoad) {
      SMEMLAB_FOR_LANES(exec, {
        U v;
        std::memcpy(&v, host + off[l] + i * EW, EW);
        R[l] = mem_value<EW>(t, v);
      });
    } else {
      SMEMLAB_FOR_LANES(exec, {
        U v = static_cast<U>(R[l]);
        std::memcpy(host + off[l] + i * EW, &v, EW);
      });
    }
  }
}

// A full warp's load whose lanes all read the same bytes of a read-only
// space (a kernel parameter, a constant): read once, each element's value
// written to every lane (what mem_move's lanes each read: nothing writes
// those spaces during a launch).
template <uint32_t EW, uint32_t VEC>
[[gnu::always_inline]] inline void mem_broadcast(Warp& w, const Op& op, const uint8_t* p) {
  const T t = static_cast<T>(op.t);
  for (uint32_t i = 0; i < VEC; ++i) {
    MemWord<EW> v;
    std::memcpy(&v, p + i * EW, EW);
    const uint64_t x = mem_value<EW>(t, v);
    uint64_t* R = regw(w, op.r[i]);
    for (uint32_t l = 0; l < 32; ++l) R[l] = x;
  }
}

// Whether the native tier compiles this ld/st (the generated code's
// mem_op_native): global and shared loads and stores, parameter and
// constant loads, of 1, 2, 4 or 8 byte elements, at most 4 of them.
inline bool mem_op_compiled(const Op& op) {
  const Base b = static_cast<Base>(op.code / 16);
  if (b != LD && b != ST) return false;
  if (op.width != 1 && op.width != 2 && op.width != 4 && op.width != 8) return false;
  if (op.vec < 1 || op.vec > 4 || op.vec == 3) return false;
  switch (static_cast<MSpace>(op.aux)) {
    case MSpace::Global:
    case MSpace::Shared:
      return true;
    case MSpace::Param:
    case MSpace::Const:
      return b == LD;
    default:
      return false;
  }
}

// Whether other warps see what the op touches, so the `gpu` schedule ends
// the warp's turn after it (gpu_round.h's gpu_turn_ends for ld/st).
inline bool mem_op_ends_turn(const Op& op) {
  const MSpace s = static_cast<MSpace>(op.aux);
  return s != MSpace::Local && s != MSpace::Param && s != MSpace::Const;
}

// An ld/st (B) of a launch: the compiled fast path, else exec_memory.
// op is a constant of the generated code (mem_op_compiled holds for it),
// so the space, element size and count fold away.
template <Base B, uint32_t EW, uint32_t VEC>
[[gnu::always_inline]] inline void mem_op_native(BlockCtx& b, Warp& w, const Op& op, uint32_t pc,
                                                 uint32_t exec, const NativeMemCalls& calls) {
  constexpr bool kLoad = B == LD;
  if (exec == 0) return;  // (exec_memory's first test: nothing, not even a write counted)
  MemWindow m;
  bool window = !b.obs;  // (observed: exec_memory builds the events)
  if (window) {
    const uint64_t* A = reg(w, op.r[4]);
    switch (static_cast<MSpace>(op.aux)) {
      case MSpace::Shared:
        m = {b.shared.data(), 0, b.shared_bytes};
        break;
      case MSpace::Param:
        m = {const_cast<uint8_t*>(b.env->params), 0, b.prog->param_bytes};
        break;
      case MSpace::Const:
        m = {const_cast<uint8_t*>(b.env->const_bank), 0, b.env->const_bytes};
        break;
      default:  // (Global)
        window = calls.global_window(b, A[__builtin_ctz(exec)] + static_cast<uint64_t>(op.imm), &m);
        break;
    }
  }
  constexpr uint32_t kTotal = EW * VEC;
  if (window && m.size >= kTotal) {
    // fast_access's test: every lane's offset within [0, size - total] and
    // aligned to min(total, 16) (the window's start is aligned to 256).
    const uint64_t* A = reg(w, op.r[4]);
    const uint64_t base = static_cast<uint64_t>(op.imm) - m.lo, limit = m.size - kTotal;
    constexpr uint64_t kAlign = kTotal > 16 ? 15 : kTotal - 1;
    uint64_t off[32], bad = 0, differ = 1;
    // (Every lane's offset, active or not: the loop stays branch-free; only
    // the active lanes' are tested and used. All before any register is
    // written: a load's destination may be its address register.)
    for (uint32_t l = 0; l < 32; ++l) off[l] = A[l] + base;
    if (exec == ~0u) {
      differ = 0;
      for (uint32_t l = 0; l < 32; ++l) {
        bad |= ((limit - off[l]) | off[l]) >> 63 | (off[l] & kAlign);
        differ |= off[l] ^ off[0];
      }
    } else {
      SMEMLAB_FOR_LANES(exec, bad |= static_cast<uint64_t>(off[l] > limit) | (off[l] & kAlign));
    }
    if (!bad) {
      if constexpr (!kLoad) ++b.writes;  // (exec_memory counts a store once)
      const MSpace sp = static_cast<MSpace>(op.aux);
      if (kLoad && !differ && (sp == MSpace::Param || sp == MSpace::Const)) {
        mem_broadcast<EW, VEC>(w, op, m.host + off[0]);
        return;
      }
      mem_move<kLoad, EW, VEC>(w, op, exec, m.host, off);
      return;
    }
  }
  calls.exec_memory(b, w, op, pc, exec);
}

}  // namespace smemlab::emu
