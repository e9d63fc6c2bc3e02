#include "check/global_hazards.h"

namespace smemlab::check::detail {

void GlobalHazards::global(const emu::MemAccess& a, uint32_t thread, uint64_t addr) {
  const bool async_read = a.op == emu::MemOp::CpAsyncLoad || a.op == emu::MemOp::BulkLoad;
  bool reads = a.op != emu::MemOp::Store, writes = a.op != emu::MemOp::Load && !async_read;
  // cp.async and a TMA load read global memory like a load (their shared
  // half is the write); a TMA store's or reduction's global write is taken
  // as an atomic (another block's copy may write the same tile's bytes).
  bool plain = a.op == emu::MemOp::Load || a.op == emu::MemOp::Store || async_read;
  // Atomics don't race between blocks; once a block has used one, its
  // later accesses are taken to follow the kernel's own inter-block
  // protocol (last-block-done, tickets) and are not reported.
  if (!plain) s_.atomic_seen = true;
  bool plain_read = a.op == emu::MemOp::Load || async_read;
  auto slot_of = [&](uint64_t word, uint64_t lo, uint64_t hi) {
    return word_record(a, thread, word, lo, hi, plain, plain_read);
  };
  if (s_.compact && plain && a.width == 4 && addr % 4 == 0) {
    // One whole word: its record, then the thread's own word in a few
    // tests (Hazards::own_global_word), else hazards() over that record.
    // (Settled: a compact record, never quiet: note_quiet_global would
    // skip it.)
    uint32_t slot = slot_of(addr / 4, addr, addr + 4);
    if (slot == Hazards::kSettled) return;
    if (!(r_.global_shadow.whole(slot) &&
          hazards_.own_global_word(a, thread, writes, r_.global_shadow.word(slot))))
      hazards_.hazards(a, thread, addr, reads, writes, r_.global_shadow,
                       [slot](uint64_t, uint64_t, uint64_t) { return slot; });
    if (plain_read) note_quiet_word(addr / 4, slot);
    return;
  }
  hazards_.hazards(a, thread, addr, reads, writes, r_.global_shadow, slot_of);
  if (s_.compact && plain_read && addr % 4 == 0 && a.width % 4 == 0)
    note_quiet_global(addr, a.width / 4);
}

// Word `word`'s record for a lane's access of its bytes [lo, hi): the
// compact states applied here (Hazards::kSettled: nothing to report), else
// its full shadow record, for hazards().
uint32_t GlobalHazards::word_record(const emu::MemAccess& a, uint32_t thread, uint64_t word,
                                    uint64_t lo, uint64_t hi, bool plain, bool plain_read) {
  const uint32_t warp = thread / 32;
  uint64_t line = word / kLineWords;
  if (line != last_line_ || !has_line_) {
    last_g_ = &r_.line_of(line);
    last_base_ = r_.words_of(*last_g_);
    last_line_ = line;
    has_line_ = true;
  }
  GlobalTouch& t = r_.global_touch[last_base_ + static_cast<uint32_t>(word % kLineWords)];
  // What hazards() would do to a fresh word, or to one this
  // thread alone read (once, or again in this epoch or from the
  // same instruction): record the read, report nothing.
  uint32_t shadow = Hazards::kSettled;
  if (s_.compact && plain_read && hi - lo == 4 && t.state == kFresh) {
    t.state = kReadOnce;
    t.epoch = s_.epoch;
    t.aux = s_.wepoch[warp];
  } else if (s_.compact && plain_read && hi - lo == 4 && t.state == kReadOnce &&
             t.thread == thread && (t.epoch == s_.epoch || t.instr == a.instr)) {
    if (t.epoch != s_.epoch) {
      t.epoch = s_.epoch;
      t.aux = s_.wepoch[warp];
    }
  } else {
    shadow = r_.full_record(t);
    if (!(plain_read && hi - lo == 4))  // may end its quiet (quiet_global)
      last_g_->quiet &= ~(1u << (word % kLineWords));
  }
  if (plain) {
    auto bytes = static_cast<uint8_t>(((1u << (hi - lo)) - 1u) << (lo - word * 4));
    bool write = a.op == emu::MemOp::Store;
    if (!t.touched || (write && !t.written)) {  // first access, then first write
      t.after_atomic = s_.atomic_seen;
      t.instr = a.instr;
      t.thread = thread;
    }
    t.touched |= bytes;
    if (write) t.written |= bytes;
  }
  return shadow;
}

// After a plain load of whole words at `addr` (in the last line looked up).
void GlobalHazards::note_quiet_global(uint64_t addr, uint32_t words) {
  for (uint64_t w = addr / 4; w < addr / 4 + words; ++w) {
    if (w / kLineWords != last_line_) return;
    const GlobalTouch& t = r_.global_touch[last_base_ + static_cast<uint32_t>(w % kLineWords)];
    if (t.state == kFull) note_quiet_word(w, t.aux);
  }
}

// Word `w` (in the last line looked up), whose full record is `slot`, after
// a plain load of it.
void GlobalHazards::note_quiet_word(uint64_t w, uint32_t slot) {
  if (!r_.global_shadow.whole(slot)) return;
  const Shadow& s = r_.global_shadow.word(slot);
  if (!s.r2 || !quiet_global_read(s, s.r_thread, s_.epoch)) return;
  if (last_g_->quiet_epoch != s_.epoch + 1) {
    last_g_->quiet = 0;
    last_g_->quiet_epoch = s_.epoch + 1;
  }
  last_g_->quiet |= 1u << (w % kLineWords);
}

}  // namespace smemlab::check::detail
