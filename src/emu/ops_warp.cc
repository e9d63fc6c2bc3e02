// Warp collectives: shfl.sync, vote(.sync), redux.sync, match.sync,
// bar.warp.sync and activemask. A collective runs once every live lane of
// its member mask has reached it (lanes arriving earlier wait in coll_wait);
// exited lanes and lanes that are not threads of the block count as arrived.
// Lanes of one member mask may reach it at different instructions of the same
// kind (a shuffle in both branches of an if/else): they execute together, each
// lane with its own instruction's operands (bar.warp.sync: any bar.warp.sync).
#include <fmt/format.h>

#include <cstring>

#include "emu/decode_context.h"
#include "emu/exec.h"
#include "emu/ops_alu.h"

namespace smemlab::emu {
namespace {

// The register holding an instruction's member mask; UINT32_MAX for none
// (activemask, non-.sync vote: no waiting).
uint32_t member_reg(const Op& op) {
  switch (op.code / 16) {
    case SHFL:
      return op.r[5];
    case VOTE:
    case REDUX:
    case ELECT:
      return op.r[2];
    case MATCH:
      return op.r[3];
    case WARPSYNC:
      return op.r[0];
    default:
      return UINT32_MAX;
  }
}

uint32_t member_mask(const Warp& w, const Op& op, uint32_t lane) {
  uint32_t r = member_reg(op);
  if (r == UINT32_MAX) return 0;
  return static_cast<uint32_t>(reg(w, r)[lane]);
}

// The member mask all of `lanes` name (`*uniform` false where they differ).
uint32_t common_member_mask(const Warp& w, const Op& op, uint32_t lanes, bool* uniform) {
  uint32_t r = member_reg(op);
  *uniform = true;
  if (r == UINT32_MAX) return 0;
  const uint64_t* M = reg(w, r);
  uint32_t first = static_cast<uint32_t>(M[__builtin_ctz(lanes)]), differ = 0;
  SMEMLAB_FOR_LANES(lanes, differ |= static_cast<uint32_t>(M[l]) ^ first);
  *uniform = differ == 0;
  return first;
}

// shfl.sync's lanes for one mode (a template argument, so the mode is
// resolved once per warp-instruction, not per lane); returns the lanes
// whose source lane was in range.
template <unsigned Mode>
uint32_t shfl_lanes(uint64_t* D, const uint64_t* vals, const uint64_t* B, const uint64_t* C,
                    uint32_t exec) {
  uint32_t p = 0;
  SMEMLAB_FOR_LANES(exec, {
    uint32_t bb = static_cast<uint32_t>(B[l]) & 31, c = static_cast<uint32_t>(C[l]);
    uint32_t segmask = (c >> 8) & 31, clamp = c & 31;
    uint32_t maxl = (l & segmask) | (clamp & ~segmask);
    uint32_t j;
    bool ok;
    if constexpr (Mode == 0) {  // up
      j = l - bb;
      ok = l >= bb && j >= maxl;
    } else if constexpr (Mode == 1) {  // down
      j = l + bb;
      ok = j <= maxl;
    } else if constexpr (Mode == 2) {  // bfly
      j = l ^ bb;
      ok = j <= maxl;
    } else {  // idx
      j = (l & segmask) | (bb & ~segmask);
      ok = j <= maxl;
    }
    if (!ok) j = l;
    D[l] = static_cast<uint32_t>(vals[j & 31]);
    p |= static_cast<uint32_t>(ok) << l;
  });
  return p;
}

// shfl.sync with all lanes at one instruction.
void shfl_one(Warp& w, const Op& op, uint32_t exec) {
  uint64_t* D = regw(w, op.r[0]);
  const uint64_t *A = reg(w, op.r[2]), *B = reg(w, op.r[3]), *C = reg(w, op.r[4]);
  uint64_t vals[32];
  std::memcpy(vals, A, sizeof(vals));
  uint32_t p;
  switch (op.aux) {
    case 0:
      p = shfl_lanes<0>(D, vals, B, C, exec);
      break;
    case 1:
      p = shfl_lanes<1>(D, vals, B, C, exec);
      break;
    case 2:
      p = shfl_lanes<2>(D, vals, B, C, exec);
      break;
    default:
      p = shfl_lanes<3>(D, vals, B, C, exec);
      break;
  }
  w.P[op.r[1]] = (w.P[op.r[1]] & ~exec) | p;
}

// vote with all lanes at one instruction naming one member mask (`mm`;
// `all` for a non-.sync vote): one ballot for the warp.
void vote_one(Warp& w, const Op& op, uint32_t all, uint32_t mm) {
  uint32_t members = op.r[2] == UINT32_MAX ? all : (mm & all);
  uint32_t src = (w.P[op.r[1]] ^ (op.aux2 & 1u ? ~0u : 0u)) & all;
  uint32_t ballot = src & members;
  if (op.aux == 3) {
    uint64_t* D = regw(w, op.r[0]);
    SMEMLAB_FOR_LANES(all, D[l] = ballot);
    return;
  }
  bool v = op.aux == 0   ? ballot == members
           : op.aux == 1 ? ballot != 0
                         : (ballot == 0 || ballot == members);
  uint32_t& m = w.P[op.r[0]];
  m = (m & ~all) | (v ? all : 0u);
}

// redux.sync's identity and combining step for op.aux (add, min, max, and,
// or, xor), shared by the one-mask and the general path.
uint32_t redux_identity(const Op& op) {
  bool sgn = op.t == S32;
  return op.aux == 3   ? ~0u
         : op.aux == 1 ? (sgn ? 0x7fffffffu : ~0u)
         : op.aux == 2 ? (sgn ? 0x80000000u : 0u)
                       : 0u;
}

uint32_t redux_combine(const Op& op, uint32_t acc, uint32_t v) {
  bool sgn = op.t == S32;
  int32_t sa = static_cast<int32_t>(acc), sv = static_cast<int32_t>(v);
  switch (op.aux) {
    case 0:
      return acc + v;
    case 1:
      return sgn ? static_cast<uint32_t>(std::min(sa, sv)) : std::min(acc, v);
    case 2:
      return sgn ? static_cast<uint32_t>(std::max(sa, sv)) : std::max(acc, v);
    case 3:
      return acc & v;
    case 4:
      return acc | v;
    default:
      return acc ^ v;
  }
}

uint64_t redux_result(const Op& op, uint32_t acc) {
  return op.t == S32 ? put(static_cast<int32_t>(acc)) : uint64_t{acc};
}

// redux.sync over `members` (the lanes' one member mask, within those
// taking part), in lane order.
uint64_t redux_value(const Warp& w, const Op& op, uint32_t members) {
  const uint64_t* A = reg(w, op.r[1]);
  uint32_t acc = redux_identity(op);
  SMEMLAB_FOR_LANES(members, acc = redux_combine(op, acc, static_cast<uint32_t>(A[l])));
  return redux_result(op, acc);
}

// One instruction, one member mask for all its lanes: shfl, vote and redux
// as operations on the warp; false for what takes the general path.
bool collective_one(Warp& w, const Op& op, uint32_t all, uint32_t mm) {
  switch (static_cast<Base>(op.code / 16)) {
    case SHFL:
      shfl_one(w, op, all);
      return true;
    case VOTE:
      vote_one(w, op, all, mm);
      return true;
    case REDUX: {
      uint64_t v = redux_value(w, op, mm & all);
      uint64_t* D = regw(w, op.r[0]);
      SMEMLAB_FOR_LANES(all, D[l] = v);
      return true;
    }
    case WARPSYNC:
      return true;
    default:
      return false;
  }
}

}  // namespace

uint32_t collective_partners(const Warp& w, const Op* ops, const Op& op) {
  uint32_t waiting = 0;
  if (op.code == code(WARPSYNC, U32)) {
    // Different __syncwarp() calls may satisfy each other (CUDA guide).
    SMEMLAB_FOR_LANES(w.coll_wait, waiting |= (ops[w.pc[l]].code == op.code ? 1u : 0u) << l);
  } else {
    // The same collective (opcode, type and mode) at any instruction.
    SMEMLAB_FOR_LANES(w.coll_wait, {
      const Op& o = ops[w.pc[l]];
      waiting |= (o.code == op.code && o.aux == op.aux ? 1u : 0u) << l;
    });
  }
  return waiting;
}

bool collective_ready(const Warp& w, const Op* ops, const Op& op, uint32_t group) {
  // Lanes of one instruction may name different member masks (the disjoint
  // groups of a labeled_partition / match.any): each lane's group must be here.
  uint32_t need = 0;
  if (uint32_t r = member_reg(op); r != UINT32_MAX) {
    const uint64_t* M = reg(w, r);
    SMEMLAB_FOR_LANES(group, need |= static_cast<uint32_t>(M[l]));
  }
  need &= w.live & w.exists;
  uint32_t arrived = group | collective_partners(w, ops, op);
  return (need & ~arrived) == 0;
}

void exec_collective(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t group,
                     uint32_t partners) {
  // Lanes may come from different instructions of the same kind (partners
  // waiting elsewhere): each lane uses its own instruction's operands.
  Base base = static_cast<Base>(op.code / 16);
  if (partners == 0 && base != ACTIVEMASK) {  // the common case: one instruction
    bool uniform;
    uint32_t mm = common_member_mask(w, op, group, &uniform);
    if (uniform && (base == SHFL || base == VOTE || base == REDUX || base == WARPSYNC)) {
      // (The one event the general path below reports for it.)
      if (b.obs)
        b.obs->on_warp_sync(WarpSync{base == VOTE && op.r[2] == UINT32_MAX ? group : mm, group,
                                     &b.prog->info[op.info], b.id, w.index});
      collective_one(w, op, group, mm);
      return;
    }
  }
  const Op* lop[32];
  const Op* ops = b.prog->ops.data();
  uint32_t all = group | partners;
  SMEMLAB_FOR_LANES(all, lop[l] = ((group >> l) & 1u) ? &op : &ops[w.pc[l]]);
  auto R = [&](uint32_t l, int k) { return reg(w, lop[l]->r[k])[l]; };
  auto W = [&](uint32_t l, int k, uint64_t v) { regw(w, lop[l]->r[k])[l] = v; };
  auto P = [&](uint32_t l, int k, bool v) {
    uint32_t& m = w.P[lop[l]->r[k]];
    m = (m & ~(1u << l)) | (static_cast<uint32_t>(v) << l);
  };
  uint32_t mm = member_mask(w, op, static_cast<uint32_t>(__builtin_ctz(group)));
  if (b.obs && base != ACTIVEMASK) {
    // One event per instruction taking part.
    uint32_t left = all;
    while (left) {
      const Op* o = lop[__builtin_ctz(left)];
      uint32_t lanes = 0;
      SMEMLAB_FOR_LANES(left, lanes |= (lop[l] == o ? 1u : 0u) << l);
      left &= ~lanes;
      // `all`: on sm_70+ the lanes at other instructions of the same kind
      // execute the collective together with this instruction's lanes.
      b.obs->on_warp_sync(WarpSync{base == VOTE && o->r[2] == UINT32_MAX ? all : mm, all,
                                   &b.prog->info[o->info], b.id, w.index});
    }
  }
  switch (base) {
    case WARPSYNC:
      break;
    case ACTIVEMASK:
      SMEMLAB_FOR_LANES(all, W(l, 0, all));
      break;
    case SHFL: {
      if (partners == 0) {  // one instruction, lanes naming different member masks
        shfl_one(w, op, group);
        break;
      }
      uint64_t vals[32];
      for (uint32_t l = 0; l < 32; ++l) vals[l] = reg(w, op.r[2])[l];  // inactive lanes: stale
      SMEMLAB_FOR_LANES(all, vals[l] = R(l, 2));
      SMEMLAB_FOR_LANES(all, {
        uint32_t bb = static_cast<uint32_t>(R(l, 3)) & 31, c = static_cast<uint32_t>(R(l, 4));
        uint32_t segmask = (c >> 8) & 31, clamp = c & 31;
        uint32_t maxl = (l & segmask) | (clamp & ~segmask), minl = l & segmask;
        uint32_t j;
        bool ok;
        switch (lop[l]->aux) {
          case 0:  // up
            j = l - bb;
            ok = l >= bb && j >= maxl;
            break;
          case 1:  // down
            j = l + bb;
            ok = j <= maxl;
            break;
          case 2:  // bfly
            j = l ^ bb;
            ok = j <= maxl;
            break;
          default:  // idx
            j = minl | (bb & ~segmask);
            ok = j <= maxl;
            break;
        }
        if (!ok) j = l;
        W(l, 0, static_cast<uint32_t>(vals[j & 31]));
        P(l, 1, ok);
      });
      break;
    }
    case VOTE: {
      uint32_t src = 0;
      SMEMLAB_FOR_LANES(all, src |= (((w.P[lop[l]->r[1]] >> l) & 1u) ^ (lop[l]->aux2 & 1u)) << l);
      SMEMLAB_FOR_LANES(all, {
        // Each lane votes among its own member mask (see REDUX).
        uint32_t members = lop[l]->r[2] == UINT32_MAX ? all : (member_mask(w, *lop[l], l) & all);
        uint32_t ballot = src & members;
        uint8_t mode = lop[l]->aux;
        if (mode == 3) {
          W(l, 0, ballot);
        } else {
          P(l, 0,
            mode == 0   ? ballot == members
            : mode == 1 ? ballot != 0
                        : (ballot == 0 || ballot == members));
        }
      });
      break;
    }
    case REDUX: {
      // Each lane reduces over its own member mask (lanes of one group name
      // the same mask; several groups may execute one instruction together).
      auto reduce = [&](uint32_t members) {
        uint32_t acc = redux_identity(op);
        SMEMLAB_FOR_LANES(members, acc = redux_combine(op, acc, static_cast<uint32_t>(R(l, 1))));
        return redux_result(op, acc);
      };
      uint32_t last_mask = 0;
      uint64_t last = 0;
      bool have = false;
      SMEMLAB_FOR_LANES(all, {
        uint32_t members = member_mask(w, *lop[l], l) & all;
        if (!have || members != last_mask) last = reduce(members);
        have = true;
        last_mask = members;
        W(l, 0, last);
      });
      break;
    }
    case ELECT: {
      // The leader: the lowest lane of the member mask that executes it.
      SMEMLAB_FOR_LANES(all, {
        uint32_t members = member_mask(w, *lop[l], l) & all;  // its own group (see REDUX)
        uint32_t leader = members ? static_cast<uint32_t>(__builtin_ctz(members)) : 32;
        W(l, 0, leader);
        P(l, 1, l == leader);
      });
      break;
    }
    case MATCH: {
      bool wide = op.t == U64 || op.t == S64;
      auto val = [&](uint32_t l) { return wide ? R(l, 2) : (R(l, 2) & 0xffffffffu); };
      SMEMLAB_FOR_LANES(all, {
        // Each lane matches among its own member mask (see REDUX).
        uint32_t members = member_mask(w, *lop[l], l) & all;
        uint32_t all_equal = members;
        uint64_t first = members ? val(static_cast<uint32_t>(__builtin_ctz(members))) : 0;
        for (uint32_t k = 0; k < 32; ++k)
          if (((members >> k) & 1u) && val(k) != first) all_equal = 0;
        if (lop[l]->aux == 1) {
          W(l, 0, all_equal);
          P(l, 1, all_equal != 0);
        } else {
          uint32_t same = 0;
          for (uint32_t k = 0; k < 32; ++k)
            if (((members >> k) & 1u) && val(k) == val(l)) same |= 1u << k;
          W(l, 0, same);
        }
      });
      break;
    }
    default:
      fault(w, pc, -1, FaultKind::Unsupported, "unknown collective");
  }
}

}  // namespace smemlab::emu

// ---- Decoders -----------------------------------------------------------------

namespace smemlab::emu {

using K = ptx::Operand::Kind;

void decode_shfl(Insn& d) {
  static const char* modes[] = {"up", "down", "bfly", "idx"};
  int m = mod_index(modes, 4, d.in);
  if (m < 0 || !d.in.has_mod("sync")) d.unsupported();
  d.need(5);
  const auto& ops = d.operands();
  DecodeContext& c = d.c;
  Op& op = d.op;
  op.code = code(SHFL, U32);
  op.aux = static_cast<uint8_t>(m);
  op.r[0] = c.dst(ops[0]);
  op.r[1] = ops[0].pair.empty() ? c.scratch_pred() : c.pred_name(ops[0].pair, ops[0].pos, K::Reg);
  op.r[2] = c.src(ops[1], U32);
  op.r[3] = c.src(ops[2], U32);
  op.r[4] = c.src(ops[3], U32);
  op.r[5] = c.src(ops[4], U32);
  d.push();
}

void decode_vote(Insn& d) {
  static const char* modes[] = {"all", "any", "uni", "ballot"};
  int m = mod_index(modes, 4, d.in);
  if (m < 0) d.unsupported();
  bool sync = d.in.has_mod("sync");
  d.need(sync ? 3 : 2);
  const auto& ops = d.operands();
  DecodeContext& c = d.c;
  Op& op = d.op;
  op.code = code(VOTE, U32);
  op.aux = static_cast<uint8_t>(m);
  op.r[0] = m == 3 ? c.dst(ops[0]) : c.pred(ops[0]);
  op.r[1] = c.pred(ops[1]);
  op.aux2 = ops[1].negate ? 1 : 0;
  op.r[2] = sync ? c.src(ops[2], U32) : UINT32_MAX;
  d.push();
}

void decode_redux(Insn& d) {
  static const char* rops[] = {"add", "min", "max", "and", "or", "xor"};
  int m = mod_index(rops, 6, d.in);
  if (m < 0 || is_float(d.t)) d.unsupported();
  d.need(3);
  const auto& ops = d.operands();
  d.op.code = code(REDUX, d.t);
  d.op.aux = static_cast<uint8_t>(m);
  d.op.r[0] = d.c.dst(ops[0]);
  d.op.r[1] = d.c.src(ops[1], d.t);
  d.op.r[2] = d.c.src(ops[2], U32);
  d.push();
}

void decode_match(Insn& d) {
  bool all = d.in.has_mod("all");
  if (!all && !d.in.has_mod("any")) d.unsupported();
  d.need(3);
  const auto& ops = d.operands();
  DecodeContext& c = d.c;
  Op& op = d.op;
  op.code = code(MATCH, d.t);
  op.aux = all ? 1 : 0;
  op.r[0] = c.dst(ops[0]);
  op.r[1] = ops[0].pair.empty() ? c.scratch_pred() : c.pred_name(ops[0].pair, ops[0].pos, K::Reg);
  op.r[2] = c.src(ops[1], d.t);
  op.r[3] = c.src(ops[2], U32);
  d.push();
}

void decode_activemask(Insn& d) {
  d.need(1);
  d.op.code = code(ACTIVEMASK, U32);
  d.op.r[0] = d.c.dst(d.operands()[0]);
  d.push();
}

// elect.sync d|p, membermask (d may be `_`): the lowest lane of the member
// mask is the leader; d = its lane id, p true in it only.
void decode_elect(Insn& d) {
  if (!d.in.has_mod("sync") || d.in.mods.size() != 1) d.unsupported();
  d.need(2);
  const auto& ops = d.operands();
  DecodeContext& c = d.c;
  Op& op = d.op;
  op.code = code(ELECT, U32);
  op.r[0] = c.dst(ops[0]);
  op.r[1] = ops[0].pair.empty() ? c.scratch_pred() : c.pred_name(ops[0].pair, ops[0].pos, K::Reg);
  op.r[2] = c.src(ops[1], U32);
  d.push();
}

}  // namespace smemlab::emu
