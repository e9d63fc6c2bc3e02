// The fast path of the global hazard checks: a plain load or store of
// whole aligned words whose lines continue a coalesced stream (each word
// accessed by one thread, from up to kLineInstrs instructions; a second
// reader per word; words read and written back in place) is applied to the
// line's compact form (GlobalLine) as the per-word path would apply it. No
// finding can come from the lines taken here, so taking them first leaves
// the findings and their order unchanged (docs/check-cost.md).
#pragma once

#include <cstdint>

#include "check/defect_state.h"
#include "check/global_records.h"

namespace smemlab::check::detail {

class GlobalStreams {
 public:
  GlobalStreams(const BlockState& s, GlobalRecords& r) : s_(s), r_(r) {}

  // The lanes of `a` (a plain load or store of whole aligned words) whose
  // lines continue a stream are taken here; returns the lanes left for the
  // per-word path (GlobalHazards::global).
  uint32_t global_stream(const emu::MemAccess& a);

 private:
  static bool broadcast(const emu::MemAccess& a);
  bool stream_line(const emu::MemAccess& a, uint64_t line, uint32_t in_line, bool distinct,
                   uint32_t in_words = 0);
  bool stream_in_place(const emu::MemAccess& a, GlobalLine& g, uint32_t in_line);
  enum class Step { kNo, kDone, kGo };
  Step line_step(const emu::MemAccess& a, const GlobalLine& g, uint32_t in_line,
                 uint32_t in_words) const;
  int line_instr(GlobalLine& g, const emu::InstrInfo* instr);
  bool stream_word(const emu::MemAccess& a, GlobalLine& g, unsigned lane);
  bool stream_line_distinct(const emu::MemAccess& a, GlobalLine& g, uint32_t in_line,
                            uint32_t in_words);
  [[gnu::noinline]] bool stream_line_general(const emu::MemAccess& a, GlobalLine& g,
                                             uint32_t in_line);

  const BlockState& s_;
  GlobalRecords& r_;
};

}  // namespace smemlab::check::detail
