// Real calls (CALL/RET): recursion, calls through function addresses
// (function pointers, virtual functions) and predicated calls. Each thread
// has a stack in its local frame above the static part (Program::stack_base
// .. frame_bytes); a call pushes an activation record for the callee's
// .local/.param variables and saves the callee's registers and predicates
// (host side, ThreadCalls), so a recursive activation finds its caller's
// values again at ret. Lanes of a warp that call different functions, or
// are at different depths, run in the order of their call chains
// (pick_call_group), so they reconverge after the call as after a branch.
#include <fmt/format.h>

#include <cstring>

#include "emu/exec.h"

namespace smemlab::emu {
namespace {

uint8_t* lane_frame(const BlockCtx& b, Warp& w, uint32_t lane) {
  return w.local + size_t{lane} * b.prog->frame_bytes;
}

// The callee a lane calls: the call site's, or the function whose address
// the target register holds.
uint32_t resolve_callee(const BlockCtx& b, const Warp& w, uint32_t pc, uint32_t lane,
                        const Program::CallSite& cs) {
  const Program& p = *b.prog;
  if (cs.callee >= 0) return static_cast<uint32_t>(cs.callee);
  const uint64_t a = w.R[size_t{cs.target} * 32 + lane];
  const uint64_t i = (a - kFunctionWindow) / 16;
  if (a < kFunctionWindow || (a - kFunctionWindow) % 16 != 0 || i >= p.callee_of_function.size() ||
      p.callee_of_function[i] < 0)
    fault(w, pc, static_cast<int>(lane), FaultKind::InvalidPc,
          fmt::format("call through a function pointer holding 0x{:x}, which is the address of no "
                      "function of the module",
                      a));
  return static_cast<uint32_t>(p.callee_of_function[i]);
}

void call_lane(BlockCtx& b, Warp& w, uint32_t pc, uint32_t lane, const Program::CallSite& cs) {
  const Program& p = *b.prog;
  const uint32_t ci = resolve_callee(b, w, pc, lane, cs);
  const Program::Callee& f = p.callees[ci];
  if (cs.args.size() != f.params.size() || cs.rets.size() > f.retvals.size())
    fault(
        w, pc, static_cast<int>(lane), FaultKind::InvalidPc,
        fmt::format("call passes {} arguments and {} return values to '{}', which takes {} and {}",
                    cs.args.size(), cs.rets.size(), f.name, f.params.size(), f.retvals.size()));
  ThreadCalls& tc = b.calls[size_t{w.index} * 32 + lane];
  // The record holds the callee's .local and .param variables; the GPU's
  // stack frame only its .local ones and the return address and saved
  // frame (16 bytes): that is what counts against cudaLimitStackSize.
  const uint32_t need = (f.frame_bytes + 15u) / 16u * 16u;
  const uint32_t cost = (f.local_bytes + 15u) / 16u * 16u + 16u;
  if (uint64_t{tc.used} + cost > p.stack_limit || uint64_t{tc.sp} + need > p.frame_bytes)
    fault(w, pc, static_cast<int>(lane), FaultKind::StackOverflow,
          fmt::format("stack overflow calling '{}' at call depth {}: the thread's {}-byte stack "
                      "(cudaLimitStackSize) is exhausted",
                      f.name, tc.records.size() + 1, p.stack_limit));
  uint8_t* frame = lane_frame(b, w, lane);
  // Arguments are read before the callee's registers change: a recursive
  // caller's argument slots are addressed through its own frame registers.
  uint8_t args[512];
  uint32_t nargs = 0;
  for (size_t k = 0; k < cs.args.size(); ++k) {
    const auto& a = cs.args[k];
    const uint32_t n = std::min(a.size, f.params[k].size);
    const uint64_t at = w.R[size_t{a.reg} * 32 + lane] + a.offset;
    if (nargs + n > sizeof args || at + n > p.frame_bytes)
      fault(w, pc, static_cast<int>(lane), FaultKind::Internal, "call arguments out of the frame");
    std::memcpy(args + nargs, frame + at, n);
    nargs += n;
  }
  tc.records.push_back({pc + 1, ci, tc.sp, tc.used, static_cast<uint32_t>(tc.saved.size())});
  for (uint32_t r = f.reg_begin; r < f.reg_end; ++r) tc.saved.push_back(w.R[size_t{r} * 32 + lane]);
  for (uint32_t q = f.pred_begin; q < f.pred_end; q += 64) {
    uint64_t bits = 0;
    for (uint32_t k = q; k < f.pred_end && k < q + 64; ++k)
      bits |= uint64_t{(w.P[k] >> lane) & 1u} << (k - q);
    tc.saved.push_back(bits);
  }
  const uint32_t fp = tc.sp;
  tc.sp += need;
  tc.used += cost;
  std::memset(frame + fp, 0, need);
  for (const auto& [r, off] : f.frame_regs) w.R[size_t{r} * 32 + lane] = fp + off;
  nargs = 0;
  for (size_t k = 0; k < cs.args.size(); ++k) {
    const uint32_t n = std::min(cs.args[k].size, f.params[k].size);
    std::memcpy(frame + fp + f.params[k].offset, args + nargs, n);
    nargs += n;
  }
}

// Returns the lane's return pc.
uint32_t ret_lane(BlockCtx& b, Warp& w, uint32_t pc, uint32_t lane) {
  const Program& p = *b.prog;
  ThreadCalls& tc = b.calls[size_t{w.index} * 32 + lane];
  if (tc.records.empty())
    fault(w, pc, static_cast<int>(lane), FaultKind::Internal, "ret without a call");
  const ThreadCalls::Record rec = tc.records.back();
  const Program::Callee& f = p.callees[rec.callee];
  uint8_t* frame = lane_frame(b, w, lane);
  uint8_t rets[512];
  uint32_t nrets = 0;
  for (const auto& s : f.retvals) {
    const uint32_t n = std::min<uint32_t>(s.size, static_cast<uint32_t>(sizeof rets) - nrets);
    std::memcpy(rets + nrets, frame + rec.sp + s.offset, n);
    nrets += n;
  }
  size_t k = rec.saved_at;
  for (uint32_t r = f.reg_begin; r < f.reg_end; ++r) w.R[size_t{r} * 32 + lane] = tc.saved[k++];
  for (uint32_t q = f.pred_begin; q < f.pred_end; q += 64) {
    const uint64_t bits = tc.saved[k++];
    for (uint32_t i = q; i < f.pred_end && i < q + 64; ++i)
      w.P[i] = (w.P[i] & ~(1u << lane)) | (static_cast<uint32_t>((bits >> (i - q)) & 1u) << lane);
  }
  tc.saved.resize(rec.saved_at);
  tc.sp = rec.sp;
  tc.used = rec.used;
  tc.records.pop_back();
  if (tc.records.empty()) w.in_call &= ~(1u << lane);
  // The caller's return-value slots, through its (restored) registers.
  const Program::CallSite& cs = p.call_sites[static_cast<size_t>(p.ops[rec.ret_pc - 1].imm)];
  nrets = 0;
  for (size_t i = 0; i < cs.rets.size(); ++i) {
    const uint32_t n = std::min(cs.rets[i].size, f.retvals[i].size);
    const uint64_t at = w.R[size_t{cs.rets[i].reg} * 32 + lane] + cs.rets[i].offset;
    if (at + n <= p.frame_bytes) std::memcpy(frame + at, rets + nrets, n);
    nrets += f.retvals[i].size;
  }
  return rec.ret_pc;
}

// Sets the PCs after a CALL or RET: `to[l]` for the executing lanes, pc + 1
// for the others of the group; the warp stays uniform when all went to one.
void move_lanes(Step& s, const uint32_t* to) {
  Warp& w = s.w;
  const uint32_t first = s.exec ? to[__builtin_ctz(s.exec)] : s.pc + 1;
  bool same = s.exec == s.group;
  SMEMLAB_FOR_LANES(s.exec, same = same && to[l] == first);
  if (w.uniform && same) {
    w.cpc = first;
    return;
  }
  if (w.uniform) {
    SMEMLAB_FOR_LANES(w.runnable, w.pc[l] = w.cpc);
    w.uniform = false;
  }
  SMEMLAB_FOR_LANES(s.group & ~s.exec, w.pc[l] = s.pc + 1);
  SMEMLAB_FOR_LANES(s.exec, w.pc[l] = to[l]);
}

// Element i of a lane's scheduling key: its call chain's return pcs, then
// its pc; past the end, larger than any pc (a lane deeper in a call made
// at the same site sorts first).
uint64_t key_at(const ThreadCalls& tc, uint32_t pc, size_t i) {
  if (i < tc.records.size()) return tc.records[i].ret_pc;
  return i == tc.records.size() ? pc : UINT64_MAX;
}

int compare_lanes(const BlockCtx& b, const Warp& w, uint32_t x, uint32_t y) {
  const ThreadCalls& a = b.calls[size_t{w.index} * 32 + x];
  const ThreadCalls& c = b.calls[size_t{w.index} * 32 + y];
  const size_t n = std::max(a.records.size(), c.records.size()) + 1;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t u = key_at(a, w.pc[x], i), v = key_at(c, w.pc[y], i);
    if (u != v) return u < v ? -1 : 1;
  }
  return 0;
}

}  // namespace

void pick_call_group(const BlockCtx& b, const Warp& w, uint32_t* pc, uint32_t* group) {
  int best = -1;
  SMEMLAB_FOR_LANES(w.runnable, {
    if (best < 0 || compare_lanes(b, w, l, static_cast<uint32_t>(best)) < 0)
      best = static_cast<int>(l);
  });
  uint32_t g = 0;
  SMEMLAB_FOR_LANES(w.runnable, {
    if (compare_lanes(b, w, l, static_cast<uint32_t>(best)) == 0) g |= 1u << l;
  });
  *pc = w.pc[best];
  *group = g;
}

bool exec_call(Step& s) {
  uint32_t to[32];
  // (A call no lane takes, its guard false everywhere, touches no call site.)
  if (s.exec) {
    const Program::CallSite& cs = s.b.prog->call_sites[static_cast<size_t>(s.op.imm)];
    SMEMLAB_FOR_LANES(s.exec, {
      call_lane(s.b, s.w, s.pc, l, cs);
      to[l] = s.b.prog->callees[s.b.calls[size_t{s.w.index} * 32 + l].records.back().callee].entry;
    });
  }
  s.w.in_call |= s.exec;
  move_lanes(s, to);
  return false;
}

bool exec_ret(Step& s) {
  uint32_t to[32];
  SMEMLAB_FOR_LANES(s.exec, to[l] = ret_lane(s.b, s.w, s.pc, l));
  move_lanes(s, to);
  return false;
}

}  // namespace smemlab::emu
