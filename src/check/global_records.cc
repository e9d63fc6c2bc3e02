#include "check/global_records.h"

namespace smemlab::check::detail {

uint32_t GlobalRecords::words_of(GlobalLine& g) {
  if (g.words == kNoWords) {
    auto words = static_cast<uint32_t>(global_touch.size());
    global_touch.grow(kLineWords);
    for (unsigned w = 0; w < kLineWords; ++w) {
      GlobalTouch& t = global_touch[words + w];
      t = touch(g, w);
      if (!g.compact || g.thread[w] == kNoThread || read_in_place(g, w)) continue;
      if (!g.write && (!g.has2() || global_second[g.second][w] == kNoThread)) continue;
      // The shadow of the word's one write, as note_write left it. The
      // line's last store event stands in for the word's own: only
      // equality with the current event is ever tested, and the current
      // access is later than every store of the line.
      uint32_t i = full_record(t);
      Shadow& s = global_shadow.word(i);
      if (!g.write) {  // a second reader (the loop only gets here with one)
        s.r2 = true;
        s.r2_atomic = false;
        s.r2_thread = global_second[g.second][w];
        s.r2_wepoch = g.wepoch2;
        s.r2_instr = instr_of(g, w, true);
        continue;
      }
      s.written = s.ever_written = true;
      s.w_known = false;  // (compact lines keep no stored values)
      s.w_thread = t.thread;
      s.w_lanes = 1u << (t.thread % 32);
      s.w_epoch = epoch_of(g, w);
      s.w_wepoch = g.wepoch;
      s.w_event = g.event;
      s.w_instr = instr_of(g, w);
    }
    g.words = words;
    g.compact = false;
    g.in_place = kNoSecond;
  }
  return g.words;
}

uint32_t GlobalRecords::full_record(GlobalTouch& t) {
  if (t.state == kFull) return t.aux;
  auto i = static_cast<uint32_t>(global_shadow.size());
  global_shadow.add(1);
  if (t.state == kReadOnce) {
    Shadow& s = global_shadow.word(i);
    s.read = true;
    s.r_thread = t.thread;
    s.r_instr = t.instr;
    s.r_epoch = t.epoch;
    s.r_wepoch = t.aux;
  }
  t.state = kFull;
  t.aux = i;
  return i;
}

}  // namespace smemlab::check::detail
