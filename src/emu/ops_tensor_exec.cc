// Executors of ldmatrix/stmatrix, movmatrix, mma.sync and wmma.*: gather the
// warp's registers (or memory) into whole matrices with the layouts of
// ops_tensor.h, compute, scatter back. All are .sync.aligned: every thread of
// the warp must execute them together, else the kernel faults.
#include "emu/ops_tensor_exec.h"

#include <fmt/format.h>

#include <algorithm>
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

// Writes a whole fragment: `value(lane, i)` for its `count` elements.
template <typename F>
void put_fragment(Warp& w, const std::vector<uint32_t>& regs, Elem e, unsigned count, F value) {
  const unsigned per = tensor::per_register(e), bits = tensor::elem_bits(e);
  const uint64_t mask = elem_mask(e);
  for (unsigned r = 0; r < regs.size(); ++r) {
    uint64_t vals[32];
    for (unsigned lane = 0; lane < 32; ++lane) {
      uint64_t v = 0;
      for (unsigned j = 0; j < per && r * per + j < count; ++j)
        v |= (value(lane, r * per + j) & mask) << (bits * j);
      vals[lane] = v;
    }
    std::memcpy(regw(w, regs[r]), vals, sizeof(vals));  // after all reads: d may alias a/b/c
  }
}

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
  // at[i * 32 + lane]: element i's index in its row-major matrix (the
  // matrix of `cols` columns: k for A, n for B and C/D).
  std::vector<uint16_t> at;
  // Per lane, the least and greatest row and column of its elements (a
  // wmma load/store bounds a lane's addresses with them).
  std::vector<tensor::Pos> lo, hi;
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
  l->at.resize(size_t{32} * l->count);
  l->lo.assign(32, tensor::Pos{~0u, ~0u});
  l->hi.assign(32, tensor::Pos{0, 0});
  const unsigned cols = o == Operand::A ? s.k : s.n;
  for (unsigned lane = 0; lane < 32; ++lane)
    for (unsigned i = 0; i < l->count; ++i) {
      const tensor::Pos p =
          wmma ? tensor::wmma_position(s, e, o, lane, i) : tensor::mma_position(s, e, o, lane, i);
      l->pos[size_t{lane} * l->count + i] = p;
      l->at[size_t{i} * 32 + lane] = static_cast<uint16_t>(p.row * cols + p.col);
      l->lo[lane] = {std::min(l->lo[lane].row, p.row), std::min(l->lo[lane].col, p.col)};
      l->hi[lane] = {std::max(l->hi[lane].row, p.row), std::max(l->hi[lane].col, p.col)};
    }
  cache.push_back(std::move(l));
  return *cache.back();
}

// Where a wmma load/store's lanes read or write: lane l's element at matrix
// position p is at base[l] + (p.row * ld[l] + p.col) * bytes (column-major:
// row and column swapped).
struct WmmaAddresses {
  uint64_t base[32], ld[32];
  bool row_major;
  unsigned bytes;
  uint64_t at(unsigned lane, tensor::Pos p) const {
    const uint64_t index = row_major ? p.row * ld[lane] + p.col : p.col * ld[lane] + p.row;
    return base[lane] + index * bytes;
  }
};

// The whole warp's accesses in one place, checked once: `host` is the host
// byte of address `first`, whose space the per-lane translation would
// resolve it to is `space`, shown to observers less `window`.
struct WmmaSpan {
  uint8_t* host = nullptr;
  uint64_t first = 0, window = 0;
  Space space = Space::Global;
};

bool outside_windows(uint64_t lo, uint64_t end) {
  for (uint64_t win : {kSharedWindow, kLocalWindow, kConstWindow, kParamWindow})
    if (end > win && lo < win + kWindowSize) return false;
  return true;
}

// The span of every lane's elements when they all lie, aligned, inside one
// global allocation or the block's own shared memory (the spaces of the
// samples' fragments), so that each lane's translation would succeed there;
// else no span, and the per-lane path translates (and faults) as before.
// A lane's elements lie between its least and greatest row and column.
WmmaSpan wmma_span(BlockCtx& b, const TensorOp& t, const FragmentLayout& lay,
                   const WmmaAddresses& ad) {
  uint64_t lo = ~uint64_t{0}, end = 0;
  for (unsigned lane = 0; lane < 32; ++lane) {
    // Far from wrapping: each address below is then the exact sum.
    if (ad.ld[lane] >> 31 || ad.base[lane] >> 62 || ad.base[lane] % ad.bytes) return {};
    lo = std::min(lo, ad.at(lane, lay.lo[lane]));
    end = std::max(end, ad.at(lane, lay.hi[lane]) + ad.bytes);
  }
  MSpace sp = t.space;
  uint64_t window = 0;
  if (sp == MSpace::Generic) {
    if (outside_windows(lo, end))
      sp = MSpace::Global;
    else if (lo - kSharedWindow < kWindowSize && end - 1 - kSharedWindow < kWindowSize)
      sp = MSpace::Shared, window = kSharedWindow;
    else
      return {};
  }
  if (sp == MSpace::Global) {
    uint8_t* host = b.env->global->translate(lo, end - lo);
    return host ? WmmaSpan{host, lo, 0, Space::Global} : WmmaSpan{};
  }
  if (sp == MSpace::Shared) {
    const uint64_t off = lo - window, off_end = end - window;
    if (off_end > b.shared_bytes || (off_end - 1) >> kClusterRankShift) return {};
    return {b.shared.data() + off, lo, window, Space::Shared};
  }
  return {};
}

void exec_wmma_memory(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, const TensorOp& t) {
  const tensor::Shape s = t.spec.shape;
  const bool load = t.kind == TensorOp::WmmaLoad;
  const unsigned rows = t.which == Operand::B ? s.k : s.m;
  const unsigned cols = t.which == Operand::A ? s.k : s.n;
  const FragmentLayout& lay = fragment_layout(true, s, t.elem, t.which);
  const unsigned count = lay.count;
  const unsigned distinct = rows * cols / 32;
  WmmaAddresses ad;
  ad.row_major = t.row_major;
  ad.bytes = tensor::elem_bits(t.elem) / 8;
  const unsigned bytes = ad.bytes;
  const uint64_t* A = reg(w, t.addr);
  const uint64_t* S = t.stride == UINT32_MAX ? nullptr : reg(w, t.stride);
  for (unsigned lane = 0; lane < 32; ++lane) {
    ad.base[lane] = A[lane] + static_cast<uint64_t>(t.offset);
    ad.ld[lane] = S ? S[lane] : (t.row_major ? cols : rows);
  }
  const WmmaSpan span = wmma_span(b, t, lay, ad);
  uint64_t loaded[32 * 16];
  auto move = [&]<typename U>(U) {
    constexpr unsigned per = 4 / sizeof(U) ? 4 / sizeof(U) : 1, bits = 8 * sizeof(U);
    // Per element index: every lane's address; the data moves element by
    // element, each index one warp-wide access for observers.
    for (unsigned i = 0; i < distinct; ++i) {
      Space spaces[32];
      uint64_t shown[32];
      const uint64_t* R = load ? nullptr : reg(w, t.c[i / per]);
      for (unsigned lane = 0; lane < 32; ++lane) {
        const uint64_t addr = ad.at(lane, lay.pos[size_t{lane} * count + i]);
        uint8_t* host;
        if (span.host) {
          host = span.host + (addr - span.first);
          spaces[lane] = span.space;
          shown[lane] = addr - span.window;
        } else {
          host =
              mem_translate(b, w, op, pc, lane, t.space, addr, bytes, &spaces[lane], &shown[lane]);
        }
        U v;
        if (load) {
          std::memcpy(&v, host, sizeof v);
          loaded[size_t{lane} * count + i] = v;
        } else {
          v = static_cast<U>(R[lane] >> (bits * (i % per)));
          std::memcpy(host, &v, sizeof v);
        }
      }
      if (b.obs) mem_emit(b, w, op, load ? MemOp::Load : MemOp::Store, bytes, ~0u, spaces, shown);
    }
  };
  switch (bytes) {
    case 1:
      move(uint8_t{});
      break;
    case 2:
      move(uint16_t{});
      break;
    case 4:
      move(uint32_t{});
      break;
    default:
      move(uint64_t{});
  }
  if (load) {
    // Elements past `distinct` repeat the first ones (f16/bf16 A and B).
    put_fragment(w, t.d, t.elem, count, [&](unsigned lane, unsigned i) {
      return loaded[size_t{lane} * count + i % distinct];
    });
  }
}

// Elements [0, distinct) of a fragment of type E in registers `regs` (a
// wmma f16 A/B fragment's later elements repeat these), each converted to
// its exact value at its place in the row-major matrix `out`.
template <Elem E>
void gather_as(const Warp& w, const std::vector<uint32_t>& regs, const FragmentLayout& lay,
               unsigned distinct, double* out) {
  constexpr unsigned bits = E == Elem::F64                                        ? 64
                            : E == Elem::F16 || E == Elem::BF16                   ? 16
                            : E == Elem::S8 || E == Elem::U8 || tensor::is_fp8(E) ? 8
                                                                                  : 32;
  constexpr unsigned per = E == Elem::F64 ? 1 : 32 / bits;
  constexpr uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  const unsigned n = std::min(lay.count, distinct);
  for (unsigned r = 0; r * per < n; ++r) {
    const uint64_t* R = reg(w, regs[r]);
    for (unsigned j = 0; j < per && r * per + j < n; ++j) {
      const uint16_t* at = lay.at.data() + size_t{r * per + j} * 32;
      for (unsigned lane = 0; lane < 32; ++lane)
        out[at[lane]] = tensor::input_value_of<E>((R[lane] >> (bits * j)) & mask);
    }
  }
}

void gather_values(const Warp& w, const std::vector<uint32_t>& regs, Elem e,
                   const FragmentLayout& lay, unsigned elements, double* out) {
  const unsigned distinct = elements / 32;
  switch (e) {
#define SMEMLAB_GATHER(E) \
  case Elem::E:           \
    return gather_as<Elem::E>(w, regs, lay, distinct, out);
    SMEMLAB_GATHER(F16)
    SMEMLAB_GATHER(BF16)
    SMEMLAB_GATHER(TF32)
    SMEMLAB_GATHER(F32)
    SMEMLAB_GATHER(F64)
    SMEMLAB_GATHER(S8)
    SMEMLAB_GATHER(U8)
    SMEMLAB_GATHER(S32)
    SMEMLAB_GATHER(E4M3)
    SMEMLAB_GATHER(E5M2)
#undef SMEMLAB_GATHER
  }
}

// D's registers from the sums: each element rounded (or wrapped) to D's
// type and packed into its register. Written after every read (D may be
// the same registers as A, B or C).
void scatter_results(Warp& w, const TensorOp& t, const FragmentLayout& dl, const double* acc) {
  const Elem e = t.spec.d;
  const unsigned per = tensor::per_register(e), bits = tensor::elem_bits(e);
  const uint64_t mask = elem_mask(e);
  for (unsigned r = 0; r < t.d.size(); ++r) {
    uint64_t vals[32] = {};
    for (unsigned j = 0; j < per && r * per + j < dl.count; ++j) {
      const uint16_t* at = dl.at.data() + size_t{r * per + j} * 32;
      for (unsigned lane = 0; lane < 32; ++lane)
        vals[lane] |= (tensor::mma_result(t.spec, acc[at[lane]]) & mask) << (bits * j);
    }
    std::memcpy(regw(w, t.d[r]), vals, sizeof(vals));
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
  // Each element converted once, straight from its register to its place
  // in the matrix of values (the largest: m16n8k32's A, 16 x 32).
  double av[512], bv[512], acc[512];
  gather_values(w, t.a, t.spec.a, fragment_layout(wmma, s, t.spec.a, Operand::A), s.m * s.k, av);
  gather_values(w, t.b, t.spec.b, fragment_layout(wmma, s, t.spec.b, Operand::B), s.k * s.n, bv);
  gather_values(w, t.c, t.spec.c, fragment_layout(wmma, s, t.spec.c, Operand::C), s.m * s.n, acc);
  tensor::mma_sums(s, t.spec.a == Elem::F64, av, bv, acc);
  scatter_results(w, t, fragment_layout(wmma, s, t.spec.d, Operand::C), acc);
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
