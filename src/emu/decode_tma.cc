// Decoding of the TMA instructions (PTX ISA 8.x, "Data movement and
// conversion instructions: cp.async.bulk.tensor" and neighbours). Every
// modifier is checked: a form not implemented is a decode error naming it.
#include "emu/decode_tma.h"

#include <fmt/format.h>

#include <set>
#include <string>

#include "emu/decode_tensor.h"

namespace smemlab::emu {
namespace {

using K = ptx::Operand::Kind;

// The .Nd modifier: 1..5, or 0 when absent.
unsigned dims_of(const ptx::Instruction& in) {
  for (const auto& m : in.mods)
    if (m.size() == 2 && m[1] == 'd' && m[0] >= '1' && m[0] <= '5')
      return static_cast<unsigned>(m[0] - '0');
  return 0;
}

// Fails unless every modifier is one of `allowed` (or the .Nd one).
void only_mods(DecodeContext& c, const ptx::Instruction& in, const std::set<std::string>& allowed) {
  for (const auto& m : in.mods) {
    if (allowed.count(m) || (m.size() == 2 && m[1] == 'd' && m[0] >= '1' && m[0] <= '5')) continue;
    unsupported_form(c, in, fmt::format("'.{}' is not supported", m));
  }
}

// [tensorMap, {c0, ..}]: the map's address and `dims` s32 coordinates.
void map_operand(DecodeContext& c, const ptx::Instruction& in, const ptx::Operand& a, unsigned dims,
                 TmaOp& t) {
  if (a.kind != K::Addr || a.elems.size() != 1 || a.elems[0].kind != K::Vector)
    c.fail(a.pos, fmt::format("'{}' expects [tensorMap, {{coordinates}}]", in.text()));
  ptx::Operand base = a;
  base.elems.clear();
  address_operand(c, base, &t.map, &t.map_off, &t.map_space);
  if (t.map_space == MSpace::Shared || t.map_space == MSpace::Local)
    c.fail(a.pos, "a tensor map lives in .param, .const or .global memory");
  const auto& coords = a.elems[0].elems;
  if (coords.size() != dims)
    c.fail(a.pos, fmt::format("'{}' expects {} tensor coordinates, found {}", in.text(), dims,
                              coords.size()));
  for (unsigned i = 0; i < dims; ++i) t.coord[i] = c.src(coords[i], S32);
  t.regs.push_back(t.map);
  t.regs.insert(t.regs.end(), t.coord, t.coord + dims);
}

// {o0, ..}: the dims - 2 u16 im2col offsets.
void im2col_offsets(DecodeContext& c, const ptx::Instruction& in, const ptx::Operand& v, TmaOp& t) {
  if (v.kind != K::Vector || v.elems.size() != t.dims - 2u)
    c.fail(v.pos, fmt::format("'{}' expects {} im2col offsets {{..}}", in.text(), t.dims - 2));
  for (unsigned i = 0; i + 2 < t.dims; ++i) {
    t.offs[i] = c.src(v.elems[i], U16);
    t.regs.push_back(t.offs[i]);
  }
}

void push_tma(DecodeContext& c, Op op, TmaKind kind, TmaOp&& t) {
  op.code = code(TMA, U32);
  op.t2 = kind;
  op.imm = static_cast<int64_t>(c.prog->tma_ops.size());
  c.prog->tma_ops.push_back(std::move(t));
  c.push(op);
}

// cp.async.bulk.tensor.Nd.shared::cluster.global{.tile|.im2col}
//   .mbarrier::complete_tx::bytes{.multicast::cluster}{.L2::cache_hint}
//   [dstMem], [tensorMap, {coords}], [mbar]{, {im2colOffsets}}{, ctaMask}{, policy}
void decode_load(DecodeContext& c, const ptx::Instruction& in, const Op& op, TmaOp& t) {
  only_mods(c, in,
            {"async", "bulk", "tensor", "shared::cluster", "shared::cta", "global", "tile",
             "im2col", "mbarrier::complete_tx::bytes", "multicast::cluster", "L2::cache_hint"});
  if (!in.has_mod("mbarrier::complete_tx::bytes"))
    unsupported_form(c, in, "a global -> shared copy needs .mbarrier::complete_tx::bytes");
  t.multicast = in.has_mod("multicast::cluster");
  if (t.multicast && in.has_mod("shared::cta"))
    unsupported_form(c, in, ".multicast with .shared::cta");
  const auto& ops = in.operands;
  size_t want =
      3 + (t.im2col ? 1 : 0) + (t.multicast ? 1 : 0) + (in.has_mod("L2::cache_hint") ? 1 : 0);
  if (ops.size() != want)
    c.fail(in.pos, fmt::format("'{}' expects {} operands, found {}", in.text(), want, ops.size()));
  MSpace sd = MSpace::Shared, sm = MSpace::Shared;
  address_operand(c, ops[0], &t.smem, &t.smem_off, &sd);
  map_operand(c, in, ops[1], t.dims, t);
  address_operand(c, ops[2], &t.mbar, &t.mbar_off, &sm);
  if (sd != MSpace::Shared || sm != MSpace::Shared)
    c.fail(in.pos, "the destination and the mbarrier are shared-memory addresses");
  t.regs.push_back(t.smem);
  t.regs.push_back(t.mbar);
  size_t next = 3;
  if (t.im2col) im2col_offsets(c, in, ops[next++], t);
  if (t.multicast) {
    t.mask = c.src(ops[next++], U16);
    t.regs.push_back(t.mask);
  }
  if (next < ops.size()) t.regs.push_back(c.src(ops[next], U64));  // cache policy: a hint
  push_tma(c, op, TMA_LOAD, std::move(t));
}

// cp.async.bulk.tensor.Nd.global.shared::cta.tile.bulk_group{.L2::cache_hint}
//   [tensorMap, {coords}], [srcMem]{, policy}
// cp.reduce.async.bulk.tensor.Nd.global.shared::cta.OP.tile.bulk_group{.L2::cache_hint}
void decode_store(DecodeContext& c, const ptx::Instruction& in, const Op& op, TmaOp& t,
                  bool reduce) {
  static const char* const reds[] = {"add", "min", "max", "inc", "dec", "and", "or", "xor"};
  static const AtomOp red_ops[] = {A_ADD, A_MIN, A_MAX, A_INC, A_DEC, A_AND, A_OR, A_XOR};
  std::set<std::string> allowed = {"async",       "bulk",       "tensor", "global",
                                   "shared::cta", "bulk_group", "tile",   "L2::cache_hint"};
  if (reduce) {
    allowed.insert("reduce");
    int k = mod_index(reds, 8, in);
    if (k < 0) unsupported_form(c, in, "needs .add, .min, .max, .inc, .dec, .and, .or or .xor");
    allowed.insert(reds[k]);
    t.red = red_ops[k];
  }
  only_mods(c, in, allowed);
  if (!in.has_mod("bulk_group"))
    unsupported_form(c, in, "a shared -> global copy needs .bulk_group");
  const auto& ops = in.operands;
  size_t want = 2 + (in.has_mod("L2::cache_hint") ? 1 : 0);
  if (ops.size() != want)
    c.fail(in.pos, fmt::format("'{}' expects {} operands, found {}", in.text(), want, ops.size()));
  map_operand(c, in, ops[0], t.dims, t);
  MSpace ss = MSpace::Shared;
  address_operand(c, ops[1], &t.smem, &t.smem_off, &ss);
  if (ss != MSpace::Shared) c.fail(ops[1].pos, "the source is a shared-memory address");
  t.regs.push_back(t.smem);
  if (want == 3) t.regs.push_back(c.src(ops[2], U64));
  push_tma(c, op, reduce ? TMA_REDUCE : TMA_STORE, std::move(t));
}

// cp.async.bulk.prefetch.tensor.Nd.L2.global{.tile|.im2col}{.L2::cache_hint}
//   [tensorMap, {coords}]{, {im2colOffsets}}{, policy}
void decode_prefetch(DecodeContext& c, const ptx::Instruction& in, const Op& op, TmaOp& t) {
  only_mods(
      c, in,
      {"async", "bulk", "prefetch", "tensor", "L2", "global", "tile", "im2col", "L2::cache_hint"});
  const auto& ops = in.operands;
  size_t want = 1 + (t.im2col ? 1 : 0) + (in.has_mod("L2::cache_hint") ? 1 : 0);
  if (ops.size() != want)
    c.fail(in.pos, fmt::format("'{}' expects {} operands, found {}", in.text(), want, ops.size()));
  map_operand(c, in, ops[0], t.dims, t);
  if (t.im2col) im2col_offsets(c, in, ops[1], t);
  if (in.has_mod("L2::cache_hint")) t.regs.push_back(c.src(ops.back(), U64));
  push_tma(c, op, TMA_PREFETCH, std::move(t));
}

// cp.async.bulk.commit_group; cp.async.bulk.wait_group{.read} N
void decode_group(DecodeContext& c, const ptx::Instruction& in, Op op) {
  op.code = code(TMA, U32);
  if (in.mods[2] == "commit_group") {
    only_mods(c, in, {"async", "bulk", "commit_group"});
    if (!in.operands.empty()) c.fail(in.pos, "cp.async.bulk.commit_group takes no operands");
    op.t2 = TMA_COMMIT;
  } else {
    only_mods(c, in, {"async", "bulk", "wait_group", "read"});
    if (in.operands.size() != 1 || in.operands[0].kind != K::Imm)
      c.fail(in.pos, "cp.async.bulk.wait_group needs an immediate N");
    op.t2 = TMA_WAIT;
    op.imm = static_cast<int64_t>(in.operands[0].bits);
    op.aux2 = in.has_mod("read") ? 1 : 0;
  }
  c.push(op);
}

}  // namespace

bool is_tma(const ptx::Instruction& in) {
  const auto& m = in.mods;
  if (in.opcode != "cp" || m.size() < 3) return false;
  // (cp.reduce.async.bulk.global: the 1-D form, ops_bulk_store.cc)
  if (m[0] == "reduce") return m.size() > 3 && m[3] != "global";
  if (m[0] != "async" || m[1] != "bulk") return false;
  return m[2] == "tensor" || m[2] == "commit_group" || m[2] == "wait_group" ||
         (m[2] == "prefetch" && m.size() > 3 && m[3] == "tensor");
}

void decode_tma(DecodeContext& c, const ptx::Instruction& in, const Op& op) {
  const auto& m = in.mods;
  if (m[2] == "commit_group" || m[2] == "wait_group") return decode_group(c, in, op);
  bool reduce = m[0] == "reduce";
  if (reduce && !(m.size() > 3 && m[1] == "async" && m[2] == "bulk" && m[3] == "tensor"))
    unsupported_form(c, in, "only cp.reduce.async.bulk.tensor");
  TmaOp t;
  t.dims = static_cast<uint8_t>(dims_of(in));
  if (t.dims == 0) unsupported_form(c, in, "needs .1d .. .5d");
  t.im2col = in.has_mod("im2col");
  if (t.im2col && t.dims < 3) unsupported_form(c, in, ".im2col needs .3d, .4d or .5d");
  if (m[2] == "prefetch") return decode_prefetch(c, in, op, t);
  // The first state space names the destination: global -> a store.
  bool store = false;
  for (const auto& s : m)
    if (s == "global" || s.rfind("shared", 0) == 0) {
      store = s == "global";
      break;
    }
  if (store || reduce) return decode_store(c, in, op, t, reduce);
  decode_load(c, in, op, t);
}

}  // namespace smemlab::emu
