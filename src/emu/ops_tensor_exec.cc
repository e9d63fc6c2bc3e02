// Executors of ldmatrix/stmatrix, movmatrix, mma.sync and wmma.*: gather the
// warp's registers (or memory) into whole matrices with the layouts of
// ops_tensor.h, compute, scatter back. All are .sync.aligned: every thread of
// the warp must execute them together, else the kernel faults.
#include "emu/ops_tensor_exec.h"

#include <fmt/format.h>

#include <bit>
#include <cstring>
#include <memory>
#include <vector>

#include "emu/exec.h"
#include "emu/half.h"
#include "emu/ops_tensor.h"

namespace smemlab::emu {

void require_warp(const Warp& w, const Op& op, const BlockCtx& b, uint32_t pc, uint32_t exec) {
  if (exec == w.exists && w.exists == ~0u) return;
  const InstrInfo& i = b.prog->info[op.info];
  fault(w, pc, exec ? __builtin_ctz(exec) : 0, FaultKind::Divergent,
        fmt::format("'{}' is .sync.aligned: all 32 threads of warp {} must execute it together, "
                    "but lanes 0x{:08x} did",
                    i.text, w.index, exec));
}

namespace {

using tensor::Elem;
using tensor::Operand;

uint64_t elem_mask(Elem e) {
  unsigned bits = tensor::elem_bits(e);
  return bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

// Element i of a fragment held in registers `regs` of `lane`.
uint64_t get_elem(const Warp& w, const std::vector<uint32_t>& regs, Elem e, unsigned lane,
                  unsigned i) {
  unsigned per = tensor::per_register(e), bits = tensor::elem_bits(e);
  uint64_t r = reg(w, regs[i / per])[lane];
  return per == 1 ? r & elem_mask(e) : (r >> (bits * (i % per))) & elem_mask(e);
}

// Writes a whole fragment: `value(lane, i)` for its `count` elements.
template <typename F>
void put_fragment(Warp& w, const std::vector<uint32_t>& regs, Elem e, unsigned count, F value) {
  unsigned per = tensor::per_register(e), bits = tensor::elem_bits(e);
  for (unsigned r = 0; r < regs.size(); ++r) {
    uint64_t vals[32];
    for (unsigned lane = 0; lane < 32; ++lane) {
      uint64_t v = 0;
      for (unsigned j = 0; j < per && r * per + j < count; ++j)
        v |= (value(lane, r * per + j) & elem_mask(e)) << (bits * j);
      vals[lane] = v;
    }
    std::memcpy(regw(w, regs[r]), vals, sizeof(vals));  // after all reads: d may alias a/b/c
  }
}

struct Matrices {
  std::vector<uint64_t> a, b, c, d;
};

// Where each (lane, element) of a fragment sits in its matrix: a pure
// function of the layout, computed once per thread and layout instead of
// once per element of every mma (positions()[lane * count + i]).
struct FragmentLayoutKey {
  bool wmma;
  unsigned m, n, k;
  Elem e;
  Operand o;
  bool operator==(const FragmentLayoutKey&) const = default;
};
struct FragmentLayout {
  FragmentLayoutKey key;
  unsigned count;
  std::vector<tensor::Pos> pos;
};

const FragmentLayout& fragment_layout(bool wmma, tensor::Shape s, Elem e, Operand o) {
  thread_local std::vector<std::unique_ptr<FragmentLayout>> cache;
  const FragmentLayoutKey key{wmma, s.m, s.n, s.k, e, o};
  for (const auto& l : cache)
    if (l->key == key) return *l;
  auto l = std::make_unique<FragmentLayout>();
  l->key = key;
  l->count = wmma ? tensor::wmma_elements(s, e, o) : tensor::mma_elements(s, e, o);
  l->pos.resize(size_t{32} * l->count);
  for (unsigned lane = 0; lane < 32; ++lane)
    for (unsigned i = 0; i < l->count; ++i)
      l->pos[size_t{lane} * l->count + i] =
          wmma ? tensor::wmma_position(s, e, o, lane, i) : tensor::mma_position(s, e, o, lane, i);
  cache.push_back(std::move(l));
  return *cache.back();
}

void exec_wmma_memory(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, const TensorOp& t) {
  const tensor::Shape s = t.spec.shape;
  const bool load = t.kind == TensorOp::WmmaLoad;
  const unsigned rows = t.which == Operand::B ? s.k : s.m;
  const unsigned cols = t.which == Operand::A ? s.k : s.n;
  const unsigned bytes = tensor::elem_bits(t.elem) / 8;
  const FragmentLayout& lay = fragment_layout(true, s, t.elem, t.which);
  const unsigned count = lay.count;
  const unsigned distinct = rows * cols / 32;
  const uint64_t* A = reg(w, t.addr);
  const uint64_t* S = t.stride == UINT32_MAX ? nullptr : reg(w, t.stride);
  // Per element index: every lane's address; the data moves element by
  // element, each index one warp-wide access for observers.
  std::vector<uint64_t> loaded(size_t{32} * count);
  for (unsigned i = 0; i < distinct; ++i) {
    Space spaces[32];
    uint64_t shown[32];
    for (unsigned lane = 0; lane < 32; ++lane) {
      tensor::Pos p = lay.pos[size_t{lane} * count + i];
      uint64_t ld = S ? S[lane] : (t.row_major ? cols : rows);
      uint64_t index = t.row_major ? p.row * ld + p.col : p.col * ld + p.row;
      uint64_t addr = A[lane] + static_cast<uint64_t>(t.offset) + index * bytes;
      uint8_t* host =
          mem_translate(b, w, op, pc, lane, t.space, addr, bytes, &spaces[lane], &shown[lane]);
      if (load) {
        uint64_t v = 0;
        std::memcpy(&v, host, bytes);
        loaded[size_t{lane} * count + i] = v;
      } else {
        uint64_t v = get_elem(w, t.c, t.elem, lane, i);
        std::memcpy(host, &v, bytes);
      }
    }
    if (b.obs) mem_emit(b, w, op, load ? MemOp::Load : MemOp::Store, bytes, ~0u, spaces, shown);
  }
  if (load) {
    // Elements past `distinct` repeat the first ones (f16/bf16 A and B).
    put_fragment(w, t.d, t.elem, count, [&](unsigned lane, unsigned i) {
      return loaded[size_t{lane} * count + i % distinct];
    });
  }
}

}  // namespace

void exec_mma(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t exec) {
  if (exec == 0) return;  // predicated off in every lane
  require_warp(w, op, b, pc, exec);
  const TensorOp& t = b.prog->tensor_ops[static_cast<size_t>(op.imm)];
  if (t.kind == TensorOp::WmmaLoad || t.kind == TensorOp::WmmaStore)
    return exec_wmma_memory(b, w, op, pc, t);
  const tensor::Shape s = t.spec.shape;
  const bool wmma = t.kind == TensorOp::WmmaMma;
  Matrices m;
  m.a.resize(size_t{s.m} * s.k);
  m.b.resize(size_t{s.k} * s.n);
  m.c.resize(size_t{s.m} * s.n);
  m.d.resize(m.c.size());
  auto gather = [&](const std::vector<uint32_t>& regs, Elem e, Operand o, unsigned cols,
                    std::vector<uint64_t>& out) {
    const FragmentLayout& lay = fragment_layout(wmma, s, e, o);
    unsigned distinct = static_cast<unsigned>(out.size() / 32);
    unsigned n = std::min(lay.count, distinct);
    for (unsigned lane = 0; lane < 32; ++lane)
      for (unsigned i = 0; i < n; ++i) {
        tensor::Pos p = lay.pos[size_t{lane} * lay.count + i];
        out[size_t{p.row} * cols + p.col] = get_elem(w, regs, e, lane, i);
      }
  };
  gather(t.a, t.spec.a, Operand::A, s.k, m.a);
  gather(t.b, t.spec.b, Operand::B, s.n, m.b);
  gather(t.c, t.spec.c, Operand::C, s.n, m.c);
  tensor::mma(t.spec, m.a.data(), m.b.data(), m.c.data(), m.d.data());
  const FragmentLayout& dl = fragment_layout(wmma, s, t.spec.d, Operand::C);
  put_fragment(w, t.d, t.spec.d, dl.count, [&](unsigned lane, unsigned i) {
    tensor::Pos p = dl.pos[size_t{lane} * dl.count + i];
    return m.d[size_t{p.row} * s.n + p.col];
  });
}

void exec_ldmatrix(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t exec) {
  if (exec == 0) return;  // predicated off in every lane
  require_warp(w, op, b, pc, exec);
  const unsigned x = op.vec;
  const bool store = op.t2 != 0, trans = op.aux2 != 0;
  const uint32_t rows_mask = x == 4 ? ~0u : (1u << (8 * x)) - 1;
  const uint64_t* A = reg(w, op.r[4]);
  uint8_t* row[32];
  Space spaces[32];
  uint64_t shown[32];
  SMEMLAB_FOR_LANES(rows_mask, row[l] = mem_translate(b, w, op, pc, l, static_cast<MSpace>(op.aux),
                                                      A[l] + static_cast<uint64_t>(op.imm), 16,
                                                      &spaces[l], &shown[l]));
  // Element (r, c) of matrix j is the c-th 16-bit value of the row lane 8j + r addressed.
  auto at = [&](unsigned j, tensor::Pos p) { return row[8 * j + p.row] + 2 * p.col; };
  if (store) {
    for (unsigned j = 0; j < x; ++j) {
      const uint64_t* R = reg(w, op.r[j]);
      for (unsigned lane = 0; lane < 32; ++lane)
        for (unsigned h = 0; h < 2; ++h) {
          uint16_t v = static_cast<uint16_t>(R[lane] >> (16 * h));
          std::memcpy(at(j, tensor::ldmatrix_position(trans, lane, h)), &v, 2);
        }
    }
  } else {
    uint64_t vals[4][32];
    for (unsigned j = 0; j < x; ++j)
      for (unsigned lane = 0; lane < 32; ++lane) {
        uint16_t lo, hi;
        std::memcpy(&lo, at(j, tensor::ldmatrix_position(trans, lane, 0)), 2);
        std::memcpy(&hi, at(j, tensor::ldmatrix_position(trans, lane, 1)), 2);
        vals[j][lane] = uint64_t{lo} | uint64_t{hi} << 16;
      }
    for (unsigned j = 0; j < x; ++j) std::memcpy(regw(w, op.r[j]), vals[j], sizeof(vals[j]));
  }
  if (b.obs)
    mem_emit(b, w, op, store ? MemOp::Store : MemOp::Load, 16, rows_mask, spaces, shown,
             static_cast<uint8_t>(x));
}

void exec_cvt_tf32(BlockCtx&, Warp& w, const Op& op, uint32_t, uint32_t exec) {
  const uint64_t* A = reg(w, op.r[1]);
  uint64_t* D = regw(w, op.r[0]);
  auto mode = static_cast<tensor::Tf32Round>(op.aux);
  SMEMLAB_FOR_LANES(exec, D[l] = tensor::to_tf32(static_cast<uint32_t>(A[l]), mode, op.aux2 != 0));
}

void exec_cvt_fp8(BlockCtx&, Warp& w, const Op& op, uint32_t, uint32_t exec) {
  const uint64_t* A = reg(w, op.r[1]);
  const uint64_t* B = op.r[2] == UINT32_MAX ? nullptr : reg(w, op.r[2]);
  uint64_t* D = regw(w, op.r[0]);
  const auto e = static_cast<Elem>(op.t2);
  const bool relu = op.aux2 != 0;
  auto f32 = [](uint64_t v) {
    return static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(v)));
  };
  auto f16 = [](uint64_t v) {
    return static_cast<double>(half_to_float(static_cast<uint16_t>(v)));
  };
  // d[15:8] from a (or a's upper f16), d[7:0] from b (or a's lower f16);
  // fp8x2 -> f16x2: d[31:16] from a[15:8], d[15:0] from a[7:0].
  if (op.aux == 0)
    SMEMLAB_FOR_LANES(exec, D[l] = uint64_t{tensor::to_fp8(e, f32(A[l]), relu)} << 8 |
                                   tensor::to_fp8(e, f32(B[l]), relu));
  else if (op.aux == 1)
    SMEMLAB_FOR_LANES(exec, D[l] = uint64_t{tensor::to_fp8(e, f16(A[l] >> 16), relu)} << 8 |
                                   tensor::to_fp8(e, f16(A[l]), relu));
  else
    SMEMLAB_FOR_LANES(
        exec, D[l] = uint64_t{tensor::fp8_to_half(e, static_cast<uint8_t>(A[l] >> 8), relu)} << 16 |
                     tensor::fp8_to_half(e, static_cast<uint8_t>(A[l]), relu));
}

void exec_movmatrix(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t exec) {
  if (exec == 0) return;  // predicated off in every lane
  require_warp(w, op, b, pc, exec);
  const uint64_t* S = reg(w, op.r[1]);
  uint64_t out[32];
  for (unsigned lane = 0; lane < 32; ++lane) {
    uint64_t v = 0;
    for (unsigned h = 0; h < 2; ++h) {
      tensor::LaneHalf src = tensor::movmatrix_source(lane, h);
      v |= ((S[src.lane] >> (16 * src.half)) & 0xffffu) << (16 * h);
    }
    out[lane] = v;
  }
  std::memcpy(regw(w, op.r[0]), out, sizeof(out));
}

}  // namespace smemlab::emu
