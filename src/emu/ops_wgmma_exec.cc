// Executors of wgmma.mma_async, wgmma.fence, wgmma.commit_group and
// wgmma.wait_group (sm_90a). Each warp of a warpgroup computes its own 16
// rows of D when it issues wgmma.mma_async: it reads B (and A, from a
// descriptor) from shared memory and its D registers then, and writes the
// new D registers at once. That is one legal execution of the asynchronous
// instruction: the ISA leaves D undefined until wgmma.wait_group and the
// shared operands must not change before it, so a correct program cannot
// tell the difference; fence, commit_group and wait_group then only check
// that the whole warp executes them (.sync.aligned) in a whole warpgroup.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <type_traits>
#include <vector>

#include "emu/exec.h"
#include "emu/half.h"
#include "emu/hopper_events.h"
#include "emu/ops_tensor_exec.h"
#include "emu/ops_wgmma.h"

namespace smemlab::emu {
namespace {

using tensor::Elem;

// wgmma needs its warp's whole warpgroup: warps 4g..4g+3 of the block, each
// with 32 threads.
void require_warpgroup(const BlockCtx& b, const Warp& w, const Op& op, uint32_t pc) {
  const uint32_t first = w.index / 4 * 4;
  bool whole = first + 4 <= b.warps.size();
  for (uint32_t i = first; whole && i < first + 4; ++i) whole = b.warps[i].exists == ~0u;
  if (whole) return;
  fault(w, pc, 0, FaultKind::Divergent,
        fmt::format("'{}' needs a whole warpgroup (warps {}..{} of 32 threads each), but the "
                    "block has {} threads",
                    b.prog->info[op.info].text, first, first + 3, b.env->block.count()));
}

// One lane's value of a register that the ISA requires to be the same in
// every thread (descriptors, scale-d).
uint64_t uniform(const Warp& w, const Op& op, const BlockCtx& b, uint32_t pc, const uint64_t* r,
                 const char* what) {
  for (uint32_t l = 1; l < 32; ++l)
    if (r[l] != r[0])
      fault(w, pc, static_cast<int>(l), FaultKind::Wgmma,
            fmt::format("'{}': the {} differs between the threads of warp {} (lane 0: 0x{:x}, "
                        "lane {}: 0x{:x})",
                        b.prog->info[op.info].text, what, w.index, r[0], l, r[l]));
  return r[0];
}

unsigned storage_bytes(Elem e) { return tensor::elem_bits(e) / 8; }

const std::array<std::array<double, 256>, 2>& fp8_table() {
  static const auto table = [] {
    std::array<std::array<double, 256>, 2> t{};
    for (unsigned i = 0; i < 256; ++i) {
      t[0][i] = tensor::fp8_value(Elem::E4M3, static_cast<uint8_t>(i));
      t[1][i] = tensor::fp8_value(Elem::E5M2, static_cast<uint8_t>(i));
    }
    return t;
  }();
  return table;
}

// The exact value of an A/B element of type E stored at p.
template <Elem E>
inline double float_value(const uint8_t* p) {
  if constexpr (E == Elem::F16 || E == Elem::BF16) {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return E == Elem::F16 ? half_to_float(h) : bf16_to_float(h);
  } else if constexpr (E == Elem::TF32) {
    uint32_t u;
    std::memcpy(&u, p, 4);
    return std::bit_cast<float>(u & 0xffffe000u);  // the tensor core reads 19 bits
  } else {
    return fp8_table()[E == Elem::E4M3 ? 0 : 1][*p];
  }
}

// Calls f.template operator()<E>() for the element type e (one dispatch per
// instruction, not per element).
template <typename F>
void with_elem(Elem e, F f) {
  switch (e) {
    case Elem::F16:
      return f.template operator()<Elem::F16>();
    case Elem::BF16:
      return f.template operator()<Elem::BF16>();
    case Elem::TF32:
      return f.template operator()<Elem::TF32>();
    case Elem::E4M3:
      return f.template operator()<Elem::E4M3>();
    case Elem::E5M2:
      return f.template operator()<Elem::E5M2>();
    case Elem::S8:
      return f.template operator()<Elem::S8>();
    default:
      return f.template operator()<Elem::U8>();
  }
}

template <Elem E>
inline int64_t int_value(const uint8_t* p) {
  return E == Elem::S8 ? static_cast<int8_t>(*p) : *p;
}

// Copies the 16-byte chunks that hold elements (mn, k), mn in [mn0, mn0 +
// count), k in [0, K), of the matrix `d` describes into `raw`, in the order
// convert_chunks reads them (the swizzles move whole chunks, so a chunk's
// elements stay together): K-major, mn outer and k chunks inner; MN-major, k
// outer and mn chunks inner.
void gather_chunks(BlockCtx& b, const Warp& w, const Op& op, uint32_t pc, const char* which,
                   const tensor::MatrixDesc& d, bool mn_major, unsigned eb, unsigned mn0,
                   unsigned count, unsigned K, std::vector<uint8_t>& raw) {
  const unsigned t = 16 / eb;
  raw.resize(size_t{count} * K * eb);
  uint8_t* out = raw.data();
  const tensor::DescAddressing address(d, mn_major, eb);
  auto chunk = [&](unsigned mn, unsigned k) {
    const uint32_t addr = address(mn, k);
    if (uint64_t{addr} + 16 > b.shared_bytes)
      fault(w, pc, 0, FaultKind::OutOfBounds,
            fmt::format("'{}' reads matrix {} element ({}, {}) at shared offset {}, past the "
                        "block's {} bytes of shared memory (descriptor start {}, LBO {}, SBO {})",
                        b.prog->info[op.info].text, which, mn, k, addr, b.shared_bytes, d.start,
                        d.lbo, d.sbo));
    std::memcpy(out, b.shared.data() + addr, 16);
    out += 16;
  };
  if (!mn_major) {
    for (unsigned mn = mn0; mn < mn0 + count; ++mn)
      for (unsigned k = 0; k < K; k += t) chunk(mn, k);
  } else {
    for (unsigned k = 0; k < K; ++k)
      for (unsigned mn = mn0; mn < mn0 + count; mn += t) chunk(mn, k);
  }
}

// The value of every element of `raw` (gather_chunks' order), times
// `scale`, stored at out[mn * mn_stride + k * k_stride]: doubles for the
// floating-point types (exact), int64 for s8/u8.
template <typename V, Elem E>
void convert_chunks(const uint8_t* raw, bool mn_major, unsigned count, unsigned K, V scale, V* out,
                    size_t mn_stride, size_t k_stride) {
  constexpr unsigned eb = E == Elem::F16 || E == Elem::BF16 ? 2 : E == Elem::TF32 ? 4 : 1;
  auto value = [](const uint8_t* p) -> V {
    if constexpr (E == Elem::S8 || E == Elem::U8)
      return int_value<E>(p);
    else
      return float_value<E>(p);
  };
  if (!mn_major) {
    for (unsigned mn = 0; mn < count; ++mn)
      for (unsigned k = 0; k < K; ++k, raw += eb)
        out[mn * mn_stride + k * k_stride] = scale * value(raw);
  } else {
    for (unsigned k = 0; k < K; ++k)
      for (unsigned mn = 0; mn < count; ++mn, raw += eb)
        out[mn * mn_stride + k * k_stride] = scale * value(raw);
  }
}

// Calls convert_chunks for the element type e: V double takes the
// floating-point types, int64 the integer ones (the other pairs never occur).
template <typename V>
void convert_any(Elem e, const uint8_t* raw, bool mn_major, unsigned count, unsigned K, V scale,
                 V* out, size_t mn_stride, size_t k_stride) {
  with_elem(e, [&]<Elem E>() {
    if constexpr (std::is_same_v<V, double> != (E == Elem::S8 || E == Elem::U8))
      convert_chunks<V, E>(raw, mn_major, count, K, scale, out, mn_stride, k_stride);
  });
}

// The warp's 16 x K rows of A and the K x N matrix B (row-major), as V
// (double or int64) with imm-scale-a/b applied, and C from the D registers.
// B is the same for the four warps of a warpgroup: its converted values are
// kept with the bytes they came from (b_raw) and reused while an instruction
// of the same form reads the same bytes, which the next warp of the group
// does unless shared memory changed between the two.
struct BForm {
  Elem e = Elem::F16;
  bool neg = false, trans = false;
  unsigned n = 0, k = 0;
  bool operator==(const BForm&) const = default;
};

template <typename V>
struct Operands {
  std::vector<V> a, b, c;
  std::vector<uint8_t> a_raw, b_raw, b_raw_next;
  BForm b_form;  // what b was converted as (n 0: nothing yet)
};

template <typename V>
void load_operands(BlockCtx& bc, Warp& w, const Op& op, uint32_t pc, const TensorOp& t,
                   Operands<V>& m) {
  const unsigned N = t.spec.shape.n, K = t.spec.shape.k, q = w.index % 4;
  const Elem ea = t.spec.a, eb = t.spec.b;
  m.a.resize(size_t{16} * K);
  const V sa = t.neg_a ? V(-1) : V(1), sb = t.neg_b ? V(-1) : V(1);
  if (t.desc_a != UINT32_MAX) {
    auto da = tensor::decode_desc(uniform(w, op, bc, pc, reg(w, t.desc_a), "A descriptor"));
    gather_chunks(bc, w, op, pc, "A", da, t.trans_a, storage_bytes(ea), 16 * q, 16, K, m.a_raw);
    convert_any<V>(ea, m.a_raw.data(), t.trans_a, 16, K, sa, m.a.data(), K, 1);
  } else {
    const unsigned per = 32 / tensor::elem_bits(ea), bits = tensor::elem_bits(ea);
    for (unsigned lane = 0; lane < 32; ++lane)
      for (unsigned i = 0; i < 4 * per; ++i) {
        const uint32_t word = static_cast<uint32_t>(reg(w, t.a[i / per])[lane]);
        const uint32_t v = (word >> (bits * (i % per))) & (bits == 32 ? ~0u : (1u << bits) - 1);
        uint8_t bytes[4];
        std::memcpy(bytes, &v, 4);
        tensor::Pos p = tensor::wgmma_a_position(ea, lane, i);
        convert_any<V>(ea, bytes, false, 1, 1, sa, &m.a[p.row * K + p.col], 0, 0);
      }
  }
  auto db = tensor::decode_desc(uniform(w, op, bc, pc, reg(w, t.desc_b), "B descriptor"));
  gather_chunks(bc, w, op, pc, "B", db, t.trans_b, storage_bytes(eb), 0, N, K, m.b_raw_next);
  const BForm form{eb, t.neg_b, t.trans_b, N, K};
  if (m.b_form == form && m.b_raw_next == m.b_raw) return;  // converted for an earlier warp
  m.b_raw.swap(m.b_raw_next);
  m.b.resize(size_t{K} * N);
  convert_any<V>(eb, m.b_raw.data(), t.trans_b, N, K, sb, m.b.data(), 1, N);
  m.b_form = form;
}

// Moves D between the warp's registers and m, D's 16 x N elements in
// column blocks (tensor::d_block_offset): to_regs false reads the registers
// into m, true writes m (rounded to the accumulator type) into them. Element
// i of a lane (wgmma_d_position) lies in block i / 4, its row half
// (i / 2) % 2 and column i % 2: lane l's at 128 (i / 4) + 64 ((i / 2) % 2) +
// 2 l + i % 2. Register j of a lane holds element j (f32, s32) or elements
// 2j, 2j + 1 (f16); D has N / 2 (f32, s32) or N / 4 (f16) registers, an even
// number (N is a multiple of 8).
template <typename V>
void scatter_d(Warp& w, const TensorOp& t, V* m, bool to_regs) {
  const unsigned step = t.spec.d == Elem::F16 ? 1 : 2;
  for (unsigned r = 0; r < t.d.size(); r += step) {
    uint64_t* R = regw(w, t.d[r]);
    if (t.spec.d == Elem::F16) {
      V* at = m + 128 * (r / 2) + 64 * (r % 2);
      if (!to_regs)
        for (unsigned lane = 0; lane < 32; ++lane) {
          at[2 * lane] = half_to_float(static_cast<uint16_t>(R[lane]));
          at[2 * lane + 1] = half_to_float(static_cast<uint16_t>(R[lane] >> 16));
        }
      else
        for (unsigned lane = 0; lane < 32; ++lane)
          R[lane] = tensor::double_to_half(static_cast<double>(at[2 * lane])) |
                    uint64_t{tensor::double_to_half(static_cast<double>(at[2 * lane + 1]))} << 16;
      continue;
    }
    // f32, s32: registers r (even) and r + 1 hold neighbours, together one
    // row half of a block.
    uint64_t* R1 = regw(w, t.d[r + 1]);
    V* at = m + 128 * (r / 4) + 64 * ((r / 2) % 2);
    if constexpr (std::is_same_v<V, int64_t>) {
      auto clamp = [&](int64_t x) -> uint64_t {
        if (t.spec.satfinite) x = x > INT32_MAX ? INT32_MAX : x < INT32_MIN ? INT32_MIN : x;
        return static_cast<uint32_t>(x);
      };
      for (unsigned lane = 0; lane < 32; ++lane) {
        if (!to_regs) {
          at[2 * lane] = static_cast<int32_t>(static_cast<uint32_t>(R[lane]));
          at[2 * lane + 1] = static_cast<int32_t>(static_cast<uint32_t>(R1[lane]));
        } else {
          R[lane] = clamp(at[2 * lane]);
          R1[lane] = clamp(at[2 * lane + 1]);
        }
      }
    } else if (!to_regs) {
      for (unsigned lane = 0; lane < 32; ++lane) {
        at[2 * lane] = std::bit_cast<float>(static_cast<uint32_t>(R[lane]));
        at[2 * lane + 1] = std::bit_cast<float>(static_cast<uint32_t>(R1[lane]));
      }
    } else {
      for (unsigned lane = 0; lane < 32; ++lane) {
        R[lane] = std::bit_cast<uint32_t>(static_cast<float>(at[2 * lane]));
        R1[lane] = std::bit_cast<uint32_t>(static_cast<float>(at[2 * lane + 1]));
      }
    }
  }
}

// One operand's part of a Wgmma event: the descriptor as decoded and the
// chunks the warp read (`chunks` keeps them for the event's span).
void describe_operand(WgmmaOperand& o, uint64_t desc, bool mn_major, Elem e, unsigned mn0,
                      unsigned count, unsigned K, std::vector<uint32_t>& chunks) {
  const tensor::MatrixDesc d = tensor::decode_desc(desc);
  o.desc = desc;
  o.start = d.start;
  o.lbo = d.lbo;
  o.sbo = d.sbo;
  o.base_offset = d.base_offset;
  o.swizzle = d.swizzle;
  o.mn_major = mn_major;
  o.elem_bytes = static_cast<uint8_t>(storage_bytes(e));
  o.mn0 = mn0;
  o.mn = count;
  o.k = K;
  wgmma_chunks(d, mn_major, o.elem_bytes, mn0, count, K, chunks);
  o.chunks = chunks;
}

// The Wgmma event of one warp's wgmma.mma_async (after its operands were
// read without a fault).
void wgmma_event(BlockCtx& b, const Warp& w, const Op& op, const TensorOp& t) {
  thread_local std::vector<uint32_t> a_chunks, b_chunks;
  Wgmma ev;
  ev.kind = WgmmaKind::Mma;
  ev.m = 64;
  ev.n = t.spec.shape.n;
  ev.k = t.spec.shape.k;
  ev.a_shared = t.desc_a != UINT32_MAX;
  if (ev.a_shared)
    describe_operand(ev.a, reg(w, t.desc_a)[0], t.trans_a, t.spec.a, 16 * (w.index % 4), 16, ev.k,
                     a_chunks);
  describe_operand(ev.b, reg(w, t.desc_b)[0], t.trans_b, t.spec.b, 0, ev.n, ev.k, b_chunks);
  ev.group = b.async[w.index].wgmma_committed;
  ev.instr = &b.prog->info[op.info];
  ev.block = b.id;
  ev.warp = w.index;
  b.obs->on_wgmma(ev);
}

}  // namespace

void exec_wgmma(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t exec) {
  if (exec == 0) return;  // predicated off in every lane
  require_warp(w, op, b, pc, exec);
  require_warpgroup(b, w, op, pc);
  const TensorOp& t = b.prog->tensor_ops[static_cast<size_t>(op.imm)];
  const unsigned N = t.spec.shape.n, K = t.spec.shape.k;
  const uint32_t p = w.P[t.scale_d] ^ (t.scale_d_neg ? ~0u : 0u);
  if (p != 0 && p != ~0u)
    fault(w, pc, __builtin_ctz(~p), FaultKind::Wgmma,
          fmt::format("'{}': scale-d differs between the threads of warp {} (0x{:08x})",
                      b.prog->info[op.info].text, w.index, p));
  const bool accumulate = p != 0;
  const bool ints = t.spec.d == Elem::S32;
  thread_local Operands<double> fm;
  thread_local Operands<int64_t> im;
  if (ints)
    load_operands(b, w, op, pc, t, im);
  else
    load_operands(b, w, op, pc, t, fm);
  if (b.obs) wgmma_event(b, w, op, t);
  // C from the D registers (or zero), then D = A * B + C, then back.
  if (ints) {
    im.c.resize(size_t{16} * N);
    if (accumulate)
      scatter_d(w, t, im.c.data(), false);
    else
      std::fill(im.c.begin(), im.c.end(), 0);
    tensor::wgmma_int(N, K, im.a.data(), im.b.data(), im.c.data(), im.c.data());
    scatter_d(w, t, im.c.data(), true);
  } else {
    fm.c.resize(size_t{16} * N);
    if (accumulate)
      scatter_d(w, t, fm.c.data(), false);
    else
      std::fill(fm.c.begin(), fm.c.end(), 0.0);
    tensor::wgmma_float(N, K, fm.a.data(), fm.b.data(), fm.c.data(), fm.c.data());
    scatter_d(w, t, fm.c.data(), true);
  }
}

void exec_wgmma_sync(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t exec) {
  if (exec == 0) return;
  require_warp(w, op, b, pc, exec);
  require_warpgroup(b, w, op, pc);
  if (!b.obs) return;
  // The warp's wgmma-groups: every wgmma.mma_async computed at issue, so
  // wait_group N finds all but the N most recent groups complete.
  uint32_t& committed = b.async[w.index].wgmma_committed;
  Wgmma ev;
  ev.kind = op.aux == 0 ? WgmmaKind::Fence : op.aux == 1 ? WgmmaKind::Commit : WgmmaKind::Wait;
  if (ev.kind == WgmmaKind::Commit) ev.group = committed++;
  if (ev.kind == WgmmaKind::Wait) {
    ev.group = static_cast<uint32_t>(op.imm);
    ev.complete_below = committed > ev.group ? committed - ev.group : 0;
  }
  ev.instr = &b.prog->info[op.info];
  ev.block = b.id;
  ev.warp = w.index;
  b.obs->on_wgmma(ev);
}

}  // namespace smemlab::emu
