// Warp collectives: shfl.sync, vote(.sync), redux.sync, match.sync,
// bar.warp.sync and activemask. A collective runs once every live lane of
// its member mask has reached it (lanes arriving earlier wait in coll_wait);
// exited lanes and lanes that are not threads of the block count as arrived.
// bar.warp.sync also matches waiting lanes at other bar.warp.sync instructions.
#include <fmt/format.h>

#include "emu/exec.h"
#include "emu/ops_alu.h"

namespace smemlab::emu {
namespace {

uint32_t member_mask(const Warp& w, const Op& op, uint32_t lane) {
  uint32_t r;
  switch (op.code / 16) {
    case SHFL:
      r = op.r[5];
      break;
    case VOTE:
      r = op.r[2];
      break;
    case REDUX:
      r = op.r[2];
      break;
    case MATCH:
      r = op.r[3];
      break;
    case WARPSYNC:
      r = op.r[0];
      break;
    default:
      return 0;  // activemask: no waiting
  }
  if (r == UINT32_MAX) return 0;  // non-.sync vote
  return static_cast<uint32_t>(reg(w, r)[lane]);
}

}  // namespace

uint32_t collective_partners(const Warp& w, const Op* ops, const Op& op, uint32_t pc) {
  uint32_t waiting = 0;
  if (op.code == code(WARPSYNC, U32)) {
    // Different __syncwarp() calls may satisfy each other (CUDA guide).
    SMEMLAB_FOR_LANES(w.coll_wait, waiting |= (ops[w.pc[l]].code == op.code ? 1u : 0u) << l);
  } else {
    SMEMLAB_FOR_LANES(w.coll_wait, waiting |= (w.pc[l] == pc ? 1u : 0u) << l);
  }
  return waiting;
}

bool collective_ready(const Warp& w, const Op* ops, const Op& op, uint32_t pc, uint32_t group) {
  uint32_t lane = static_cast<uint32_t>(__builtin_ctz(group));
  uint32_t need = member_mask(w, op, lane) & w.live & w.exists;
  uint32_t arrived = group | collective_partners(w, ops, op, pc);
  return (need & ~arrived) == 0;
}

void exec_collective(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t exec) {
  Base base = static_cast<Base>(op.code / 16);
  uint32_t mm = member_mask(w, op, static_cast<uint32_t>(__builtin_ctz(exec)));
  if (b.obs && base != ACTIVEMASK)
    b.obs->on_warp_sync(WarpSync{base == VOTE && op.r[2] == UINT32_MAX ? exec : mm, exec,
                                 &b.prog->info[op.info], b.id, w.index});
  switch (base) {
    case WARPSYNC:
      break;
    case ACTIVEMASK: {
      uint64_t* D = regw(w, op.r[0]);
      SMEMLAB_FOR_LANES(exec, D[l] = exec);
      break;
    }
    case SHFL: {
      uint64_t* D = regw(w, op.r[0]);
      const uint64_t *A = reg(w, op.r[2]), *B = reg(w, op.r[3]), *C = reg(w, op.r[4]);
      uint64_t vals[32];
      for (int l = 0; l < 32; ++l) vals[l] = A[l];
      uint32_t p = 0;
      SMEMLAB_FOR_LANES(exec, {
        uint32_t bb = static_cast<uint32_t>(B[l]) & 31, c = static_cast<uint32_t>(C[l]);
        uint32_t segmask = (c >> 8) & 31, clamp = c & 31;
        uint32_t maxl = (l & segmask) | (clamp & ~segmask), minl = l & segmask;
        uint32_t j;
        bool ok;
        switch (op.aux) {
          case 0:
            j = l - bb;
            ok = static_cast<int32_t>(j) >= static_cast<int32_t>(maxl);
            break;  // up
          case 1:
            j = l + bb;
            ok = j <= maxl;
            break;  // down
          case 2:
            j = l ^ bb;
            ok = j <= maxl;
            break;  // bfly
          default:
            j = minl | (bb & ~segmask);
            ok = j <= maxl;
            break;  // idx
        }
        if (op.aux == 0) ok = l >= bb && j >= maxl;
        if (!ok) j = l;
        D[l] = static_cast<uint32_t>(vals[j & 31]);
        p |= static_cast<uint32_t>(ok) << l;
      });
      w.P[op.r[1]] = (w.P[op.r[1]] & ~exec) | p;
      break;
    }
    case VOTE: {
      uint32_t src = w.P[op.r[1]] ^ ((op.aux2 & 1) ? ~0u : 0u);
      uint32_t members = op.r[2] == UINT32_MAX ? exec : (mm & exec);
      uint32_t ballot = src & members;
      if (op.aux == 3) {
        uint64_t* D = regw(w, op.r[0]);
        SMEMLAB_FOR_LANES(exec, D[l] = ballot);
      } else {
        bool r = op.aux == 0   ? ballot == members
                 : op.aux == 1 ? ballot != 0
                               : (ballot == 0 || ballot == members);
        w.P[op.r[0]] = (w.P[op.r[0]] & ~exec) | (r ? exec : 0u);
      }
      break;
    }
    case REDUX: {
      uint32_t members = mm & exec;
      const uint64_t* A = reg(w, op.r[1]);
      bool sgn = op.t == S32;
      uint32_t acc = op.aux == 3 ? ~0u
                                 : (op.aux == 1 ? (sgn ? 0x7fffffffu : ~0u)
                                                : (op.aux == 2 ? (sgn ? 0x80000000u : 0u) : 0u));
      SMEMLAB_FOR_LANES(members, {
        uint32_t v = static_cast<uint32_t>(A[l]);
        switch (op.aux) {
          case 0:
            acc += v;
            break;
          case 1:
            acc = sgn ? static_cast<uint32_t>(
                            std::min<int32_t>(static_cast<int32_t>(acc), static_cast<int32_t>(v)))
                      : std::min(acc, v);
            break;
          case 2:
            acc = sgn ? static_cast<uint32_t>(
                            std::max<int32_t>(static_cast<int32_t>(acc), static_cast<int32_t>(v)))
                      : std::max(acc, v);
            break;
          case 3:
            acc &= v;
            break;
          case 4:
            acc |= v;
            break;
          default:
            acc ^= v;
            break;
        }
      });
      uint64_t* D = regw(w, op.r[0]);
      uint64_t out = sgn ? put(static_cast<int32_t>(acc)) : acc;
      SMEMLAB_FOR_LANES(exec, D[l] = out);
      break;
    }
    case MATCH: {
      uint32_t members = mm & exec;
      const uint64_t* A = reg(w, op.r[2]);
      uint64_t* D = regw(w, op.r[0]);
      bool wide = op.t == U64 || op.t == S64;
      auto val = [&](uint32_t l) { return wide ? A[l] : (A[l] & 0xffffffffu); };
      uint32_t p = 0;
      uint32_t all_equal = members;
      SMEMLAB_FOR_LANES(
          members, if (val(l) != val(static_cast<uint32_t>(__builtin_ctz(members)))) all_equal = 0);
      SMEMLAB_FOR_LANES(exec, {
        if (op.aux == 1) {
          D[l] = all_equal;
          p |= (all_equal ? 1u : 0u) << l;
        } else {
          uint32_t same = 0;
          for (uint32_t k = 0; k < 32; ++k)
            if (((members >> k) & 1u) && val(k) == val(l)) same |= 1u << k;
          D[l] = same;
        }
      });
      if (op.aux == 1) w.P[op.r[1]] = (w.P[op.r[1]] & ~exec) | p;
      break;
    }
    default:
      fault(w, pc, -1, "unsupported", "unknown collective");
  }
}

}  // namespace smemlab::emu
