// Races (`race`, `warp-race`) between the threads of a block on global
// memory: per 4-byte word, a compact record while the word is one plain
// whole-word read (GlobalTouch) and a full shadow record (per word, then
// per byte) once anything else comes; the per-word path ends in Hazards.
// What the block touched is kept for the merge across blocks
// (global_owners). Lines that continue a coalesced stream are taken first by
// GlobalStreams.
#pragma once

#include <cstdint>

#include "check/defect_state.h"
#include "check/global_records.h"
#include "check/hazards.h"

namespace smemlab::check::detail {

class GlobalHazards {
 public:
  GlobalHazards(BlockState& s, Hazards& hazards, GlobalRecords& r)
      : s_(s), hazards_(hazards), r_(r) {}

  // One lane's access.
  void global(const emu::MemAccess& a, uint32_t thread, uint64_t addr);

  // A global word with a full record is quiet while it was read whole by
  // two threads in this barrier epoch and not written in it: a plain load
  // of it by any thread changes nothing and reports nothing (hazards()
  // returns at quiet_global_read; its bytes are touched already). Noted in
  // its line (GlobalLine::quiet, one bit per word, stamped with the epoch)
  // when a load leaves it so, and cleared by any other access to it; a
  // barrier ends it by moving the epoch. Only the line of the last global
  // access is asked (the lanes of a load mostly share it): a word elsewhere
  // is simply not known to be quiet. One bit in the line, not a mark in the
  // word's record: the records of a large input are cache misses.
  bool quiet_global(uint64_t addr, uint32_t words) const {
    if (!has_line_ || last_g_->quiet_epoch != s_.epoch + 1) return false;
    for (uint64_t w = addr / 4; w < addr / 4 + words; ++w)
      if (w / kLineWords != last_line_ || !(last_g_->quiet >> (w % kLineWords) & 1u)) return false;
    return true;
  }

 private:
  uint32_t word_record(const emu::MemAccess& a, uint32_t thread, uint64_t word, uint64_t lo,
                       uint64_t hi, bool plain, bool plain_read);
  void note_quiet_global(uint64_t addr, uint32_t words);
  void note_quiet_word(uint64_t w, uint32_t slot);

  BlockState& s_;
  Hazards& hazards_;
  GlobalRecords& r_;
  // The line of the last global lookup, its first record and itself.
  GlobalLine* last_g_ = nullptr;
  uint64_t last_line_ = 0;
  uint32_t last_base_ = 0;
  bool has_line_ = false;
};

}  // namespace smemlab::check::detail
