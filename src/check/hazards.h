// RAW/WAR/WAW hazards between the threads of a block over the bytes of one
// lane's access, on shared memory (with its `uninitialized` reads) or on
// global memory: the general per-byte path both hazard checkers
// (shared_hazards, global_hazards) end in, over their own ShadowWords.
// Also settles what only this path sees: plain loads racing with atomic
// writes, held back until the kernel ends unless the load proves to be a
// CAS loop's read.
#pragma once

#include <algorithm>
#include <map>
#include <tuple>

#include "check/defect_state.h"

namespace smemlab::check::detail {

class Hazards {
 public:
  Hazards(const BlockState& s, BlockFindings& out) : s_(s), out_(out) {}

  // `slot_of(word, lo, hi)` numbers the access's words in `mem` (bytes
  // [lo, hi) of `word` accessed), or says kSettled: it has applied the
  // access to the word itself (a compact record) and found no hazard.
  static constexpr uint32_t kSettled = UINT32_MAX;
  template <class SlotOf>
  void hazards(const emu::MemAccess& a, uint32_t thread, uint64_t addr, bool reads, bool writes,
               ShadowWords& mem, SlotOf slot_of);

  // A plain whole-word global load or store (`writes`) by `thread` of the
  // word whose record is `s`, when no other thread's access in this barrier
  // epoch can conflict with it (the word's writer in this epoch, if any, is
  // `thread`; for a store, so are its readers in this epoch): applied as
  // hazards() would apply it, with nothing to report, and true. False:
  // nothing done, hazards() decides (a race it reports is seen there). A
  // thread's own words (a grid-stride loop's `y[i] = a * x[i] + y[i]`)
  // then cost a few tests each, not hazards()'s per-byte machinery.
  bool own_global_word(const emu::MemAccess& a, uint32_t thread, bool writes, Shadow& s) const {
    const uint32_t epoch = s_.epoch;
    if (s.written && s.w_epoch == epoch && s.w_thread != thread) return false;
    if (!writes) {
      if (!quiet_global_read(s, thread, epoch))
        note_read(s, thread, false, a.instr, epoch, s_.wepoch[thread / 32]);
      return true;
    }
    if (s.read && s.r_epoch == epoch && (s.r_thread != thread || (s.r2 && s.r2_thread != thread)))
      return false;
    note_write(s, thread, false, a.instr, epoch, s_.wepoch[thread / 32], s_.event,
               stored_bytes(a, thread % 32, 0, 4));
    return true;
  }

  // No shared read of unwritten bytes held back (the fast store paths
  // would skip the test that drops one).
  bool no_pending_uninit() const { return pending_uninit_.empty(); }
  // Bytes [addr, addr + bytes) were written by a cluster peer: a read of
  // them held back as unwritten ran ahead of that write (dsmem-race's to
  // report), it did not read memory nobody writes.
  void forget_uninitialized(uint64_t addr, uint32_t bytes) {
    pending_uninit_.erase(pending_uninit_.lower_bound(addr),
                          pending_uninit_.lower_bound(addr + bytes));
  }
  // The barrier epoch ends (the block too): unwritten bytes read in it are
  // reported.
  void flush_uninitialized();
  void on_barrier_release() {
    flush_uninitialized();
    raw_reads_.clear();
  }

 private:
  // Asked per lane of every atomic: the answer for the last instruction is kept.
  bool is_cas(const emu::InstrInfo* i) {
    if (i != cas_instr_) {
      cas_instr_ = i;
      cas_ = i->trait == emu::InstrTrait::CompareAndSwap;
    }
    return cas_;
  }
  // A read of the byte or word `s` by `thread` (after the hazard tests):
  // the first two distinct readers of the barrier epoch are kept.
  static void note_read(Shadow& s, uint32_t thread, bool atomic, const emu::InstrInfo* instr,
                        uint32_t epoch, uint32_t wepoch) {
    if (!s.read || s.r_epoch != epoch) {
      s.read = true;
      s.r2 = false;
      s.r_atomic = atomic;
      s.r_thread = thread;
      s.r_epoch = epoch;
      s.r_wepoch = wepoch;
      s.r_instr = instr;
    } else if (s.r_thread != thread && !s.r2) {
      s.r2 = true;
      s.r2_atomic = atomic;
      s.r2_thread = thread;
      s.r2_wepoch = wepoch;
      s.r2_instr = instr;
    } else if (!atomic) {
      // Only plain reads race with atomic writes: one takes a slot held
      // by an atomic read (this thread's own first, as a slot per thread).
      bool own_r = s.r_thread == thread, own_r2 = s.r2 && s.r2_thread == thread;
      if (s.r_atomic && (own_r || !own_r2)) {
        s.r_atomic = false;
        s.r_thread = thread;
        s.r_wepoch = wepoch;
        s.r_instr = instr;
      } else if (s.r2 && s.r2_atomic && !own_r) {
        s.r2_atomic = false;
        s.r2_thread = thread;
        s.r2_wepoch = wepoch;
        s.r2_instr = instr;
      }
    }
  }
  void validate_cas_reads(Shadow& s, const emu::InstrInfo* cas, emu::Space space, uint32_t thread,
                          uint64_t byte);

  const BlockState& s_;
  BlockFindings& out_;
  const emu::InstrInfo* cas_instr_ = nullptr;
  bool cas_ = false;
  struct PendingRead {
    uint32_t thread;
    const emu::InstrInfo* instr;
    emu::MemOp op;
  };
  std::map<uint64_t, PendingRead> pending_uninit_;  // byte -> first read of it, unwritten
  // (space, thread, byte) -> the plain load held back as a RAW with an
  // atomic write in this barrier epoch, until the thread CASes the byte.
  std::map<std::tuple<emu::Space, uint32_t, uint64_t>, const emu::InstrInfo*> raw_reads_;
};

template <class SlotOf>
void Hazards::hazards(const emu::MemAccess& a, uint32_t thread, uint64_t addr, bool reads,
                      bool writes, ShadowWords& mem, SlotOf slot_of) {
  bool atomic = reads && writes;
  bool is_shared = a.space == emu::Space::Shared;
  uint32_t warp = thread / 32;
  const uint32_t epoch = s_.epoch;
  // At most one finding per lane access: the first hazard over its bytes.
  bool reported = false;
  // `plain_read`: the plain load of a plain-read-vs-atomic-write pair (a
  // CAS loop's first read, perhaps): held back until the kernel ends.
  auto conflict = [&](const char* what, const char* earlier, uint32_t other, uint32_t other_wepoch,
                      const emu::InstrInfo* other_instr, uint64_t byte,
                      const emu::InstrInfo* plain_read = nullptr) {
    if (reported) return;
    bool same_warp = other / 32 == warp;
    if (same_warp && other_wepoch != s_.wepoch[warp]) return;  // a __syncwarp() between
    reported = true;
    out_.report(
        same_warp ? FindingKind::WarpRace : FindingKind::Race,
        same_warp ? Severity::Warning : Severity::Error,
        fmt::format("{} hazard on {} between thread {} and thread {} of block {}: no {} "
                    "between the two accesses",
                    what,
                    is_shared ? fmt::format("shared byte {}", byte)
                              : fmt::format("global byte {:#x}", byte),
                    other, thread, dim_text(s_.block), same_warp ? "__syncwarp()" : "barrier"),
        a.instr, thread, other_instr, other, role(a.op), earlier, plain_read);
  };
  bool plain_load = a.op == emu::MemOp::Load;
  bool cas = atomic && a.op == emu::MemOp::Atomic && is_cas(a.instr);
  // The record is `n` bytes from `byte` (a word, or one byte).
  auto visit = [&](Shadow& s, uint64_t byte, uint32_t n) {
    if (!writes && (is_shared ? quiet_read(s, thread, epoch) : quiet_global_read(s, thread, epoch)))
      return;
    if (cas) validate_cas_reads(s, a.instr, a.space, thread, byte);
    // A lane that wrote the byte itself in the writing instruction (all
    // lanes storing one value) reads its own write, whichever lane won.
    bool self_wrote = s.w_thread / 32 == warp && (s.w_lanes >> (thread % 32) & 1u);
    bool other_wrote = s.written && s.w_epoch == epoch && s.w_thread != thread &&
                       s.w_event != s_.event && !self_wrote && !(atomic && s.w_atomic);
    if (is_shared && reads && !s.ever_written && !reported && !pending_uninit_.count(byte)) {
      // Held until the barrier epoch ends: if another thread writes the
      // byte in this epoch, the read merely ran ahead of it (a race,
      // reported as such) rather than reading memory nobody writes.
      pending_uninit_[byte] = {thread, a.instr, a.op};
      reported = true;
    }
    // A plain store of the bits a plain store of another thread left:
    // either order leaves memory as it is (docs/check-rules.md, "Equal
    // stores"). Its readers in between are still tested below (WAR).
    const uint64_t value =
        writes ? stored_bytes(a, thread % 32, static_cast<uint32_t>(byte - addr), n) : kNoValue;
    if (other_wrote && s.w_known && value == s.w_value && !s.w_atomic) other_wrote = false;
    if (other_wrote) {
      bool deferred = plain_load && s.w_atomic;
      if (deferred) raw_reads_.try_emplace(std::make_tuple(a.space, thread, byte), a.instr);
      conflict(writes && !atomic ? "WAW" : "RAW", "write", s.w_thread, s.w_wepoch, s.w_instr, byte,
               deferred ? a.instr : nullptr);
    }
    // Both readers: the first may be ordered before this write by a
    // __syncwarp() of its warp while the second (another warp) is not.
    if (writes && s.read && s.r_epoch == epoch) {
      if (s.r_thread != thread && !(atomic && s.r_atomic))
        conflict("WAR", "read", s.r_thread, s.r_wepoch, s.r_instr, byte,
                 atomic ? s.r_instr : nullptr);
      if (s.r2 && s.r2_thread != thread && !(atomic && s.r2_atomic))
        conflict("WAR", "read", s.r2_thread, s.r2_wepoch, s.r2_instr, byte,
                 atomic ? s.r2_instr : nullptr);
    }
    if (writes) {
      if (is_shared)
        if (auto p = pending_uninit_.find(byte);
            p != pending_uninit_.end() && p->second.thread != thread)
          pending_uninit_.erase(p);
      note_write(s, thread, atomic, a.instr, epoch, s_.wepoch[warp], s_.event, value);
    }
    if (reads) note_read(s, thread, atomic, a.instr, epoch, s_.wepoch[warp]);
  };
  for (uint64_t word = addr / 4; word <= (addr + a.width - 1) / 4; ++word) {
    uint64_t lo = std::max(addr, word * 4), hi = std::min(addr + a.width, word * 4 + 4);
    uint32_t slot = slot_of(word, lo, hi);
    if (slot == kSettled) continue;
    if (mem.whole(slot) && hi - lo == 4) {
      visit(mem.word(slot), lo, 4);
      continue;
    }
    for (uint64_t byte = lo; byte < hi; ++byte) visit(mem.byte(slot, byte % 4), byte, 1);
  }
}

}  // namespace smemlab::check::detail
