#include "check/global_streams.h"

#include <algorithm>

namespace smemlab::check::detail {

// A plain load or store of whole aligned words: the lines where it
// continues a coalesced stream (see GlobalLine) take it here, as the
// per-word path would (a fresh word becomes read once by its thread, or
// written once; a re-read by the same thread in the same epoch changes
// nothing); returns the lanes left for the per-lane path. No finding can
// come from the lines taken here, so taking them first leaves the
// findings and their order unchanged.
uint32_t GlobalStreams::global_stream(const emu::MemAccess& a) {
  if (uint64_t{a.warp} * 32 + 31 >= kNoThread) return a.mask;  // threads fit in 16 bits
  const uint32_t words = a.width / 4u;
  if (words > kLineWords) return a.mask;
  // A whole warp at consecutive addresses (most coalesced code): its
  // lines and their lanes follow from the first address.
  if (a.mask == UINT32_MAX) {
    uint64_t off = 0;
    for (unsigned l = 0; l < 31; ++l) off |= (a.addr[l + 1] - a.addr[l]) ^ a.width;
    if (off == 0) {
      uint32_t rest = 0;
      for (unsigned l = 0; l < 32;) {
        // (addresses are width-aligned, so a line holds whole lanes)
        auto first = static_cast<unsigned>(a.addr[l] / 4 % kLineWords);
        unsigned n = std::min(32 - l, (kLineWords - first) / words);
        uint32_t in_line = static_cast<uint32_t>(((uint64_t{1} << n) - 1) << l);
        auto in_words = static_cast<uint32_t>(((uint64_t{1} << (n * words)) - 1) << first);
        if (!stream_line(a, a.addr[l] / (4 * kLineWords), in_line, true, in_words)) rest |= in_line;
        l += n;
      }
      return rest;
    }
  }
  // A load with every lane at one address (a broadcast): its first two
  // lanes one by one; after them its words have two readers in this
  // epoch, and the other lanes' reads change nothing (see
  // stream_line_general). Lanes left: the per-word path's, in order.
  if (a.op != emu::MemOp::Store && broadcast(a)) {
    const uint32_t l0 = a.mask & -a.mask, l1 = (a.mask & ~l0) & -(a.mask & ~l0);
    const uint64_t line = a.addr[__builtin_ctz(a.mask)] / (4 * kLineWords);
    if (!stream_line(a, line, l0, true)) return a.mask;
    if (l1 && !stream_line(a, line, l1, true)) return a.mask & ~l0;
    return 0;
  }
  // Lanes at increasing addresses, none overlapping the last: every word
  // is accessed by one lane, and the lanes of a line are consecutive.
  // Else, lanes all in one line (a broadcast, a half-warp repeat) are
  // taken in lane order.
  uint64_t prev = a.addr[__builtin_ctz(a.mask)];
  bool increasing = true, one_line = true, spread = true;
  const uint64_t first_line = prev / (4 * kLineWords);
  for (uint32_t m = a.mask & (a.mask - 1); m; m &= m - 1) {
    uint64_t addr = a.addr[__builtin_ctz(m)];
    increasing &= addr > prev && addr - prev >= a.width;
    one_line &= addr / (4 * kLineWords) == first_line;
    spread &= addr / (4 * kLineWords) != prev / (4 * kLineWords);
    prev = addr;
  }
  if (!increasing) return one_line && stream_line(a, first_line, a.mask, false) ? 0 : a.mask;
  uint32_t rest = 0;
  if (spread) {  // every lane in a line of its own (a column of a row-major array)
    for (uint32_t m = a.mask; m; m &= m - 1) {
      const auto lane = static_cast<unsigned>(__builtin_ctz(m));
      if (!stream_line(a, a.addr[lane] / (4 * kLineWords), 1u << lane, true)) rest |= 1u << lane;
    }
    return rest;
  }
  for (uint32_t m = a.mask; m;) {
    // The lanes in the line of the first lane left (widths divide the
    // line, so no lane straddles two).
    uint64_t line = a.addr[__builtin_ctz(m)] / (4 * kLineWords);
    uint32_t in_line = 0;
    for (uint32_t k = m; k && a.addr[__builtin_ctz(k)] / (4 * kLineWords) == line; k &= k - 1)
      in_line |= 1u << __builtin_ctz(k);
    m &= ~in_line;
    if (!stream_line(a, line, in_line, true)) rest |= in_line;
  }
  return rest;
}

// Every active lane of `a` at one address.
bool GlobalStreams::broadcast(const emu::MemAccess& a) {
  const uint64_t first = a.addr[__builtin_ctz(a.mask)];
  uint64_t off = 0;
  if (a.mask == UINT32_MAX) {  // (no bit-by-bit walk: it vectorizes)
    for (unsigned l = 0; l < 32; ++l) off |= a.addr[l] ^ first;
  } else {
    for (uint32_t m = a.mask; m; m &= m - 1) off |= a.addr[__builtin_ctz(m)] ^ first;
  }
  return off == 0;
}

// global_stream's step for one line: lanes `in_line` of `a` access it
// (`distinct`: each its own words; `in_words`, when not 0: the words they
// access). False: the line does not continue a stream (nothing done).
bool GlobalStreams::stream_line(const emu::MemAccess& a, uint64_t line, uint32_t in_line,
                                bool distinct, uint32_t in_words) {
  const bool write = a.op == emu::MemOp::Store;
  const uint32_t wepoch = s_.wepoch[a.warp], words = a.width / 4u;
  GlobalLine& g = r_.line_of(line);
  bool fresh = g.words == kNoWords && !g.compact;
  if (fresh) {
    g.compact = true;
    g.write = write;
    g.instr = a.instr;
    g.epoch = s_.epoch;
    g.wepoch = wepoch;
    g.now = 0;
    g.after_atomic = s_.atomic_seen;
    g.second = kNoSecond;
    g.two = 0;
    g.instrs = kNoSecond;
    g.in_place = kNoSecond;
    g.thread.fill(kNoThread);
    if (distinct && in_words && words == 1) {  // a warp's run of consecutive words
      const unsigned w0 = static_cast<unsigned>(a.addr[__builtin_ctz(in_line)] / 4 % kLineWords);
      const unsigned t0 = a.warp * 32 + static_cast<unsigned>(__builtin_ctz(in_line));
      for (unsigned i = 0, n = static_cast<unsigned>(__builtin_popcount(in_line)); i < n; ++i)
        g.thread[w0 + i] = static_cast<uint16_t>(t0 + i);
      g.now = in_words;
      if (write) g.event = s_.event;
      return true;
    }
    if (distinct) {  // (most streams: every word a first access)
      for (uint32_t k = in_line; k; k &= k - 1) {
        auto l = static_cast<unsigned>(__builtin_ctz(k));
        auto thread = static_cast<uint16_t>(a.warp * 32 + l);
        for (unsigned i = 0, w0 = static_cast<unsigned>(a.addr[l] / 4); i < words; ++i) {
          g.thread[(w0 + i) % kLineWords] = thread;
          g.now |= 1u << ((w0 + i) % kLineWords);
        }
      }
      if (write) g.event = s_.event;
      return true;
    }
  }
  if (write && g.compact && (!g.write || g.in_place != kNoSecond))
    return distinct && stream_in_place(a, g, in_line);
  if (distinct && words == 1 && (in_line & (in_line - 1)) == 0)
    return stream_word(a, g, static_cast<unsigned>(__builtin_ctz(in_line)));
  return distinct ? stream_line_distinct(a, g, in_line, in_words)
                  : stream_line_general(a, g, in_line);
}

// A store whose lanes each write back words their own thread read in
// this compact line (`d[t] = f(d[t])`; the first such store to a read
// line, or one continuing it from the same instruction in the same
// epochs). The per-word path finds no hazard there (the word's one
// reader is the writer) and leaves each word as a write by its thread:
// its read forgotten (note_write), the store its instruction of record.
// That is a compact write line's word, so the line becomes one; the
// words the store leaves read keep their reads in r_.global_in_place until
// written. False: nothing done (the per-word path takes it).
bool GlobalStreams::stream_in_place(const emu::MemAccess& a, GlobalLine& g, uint32_t in_line) {
  const uint32_t wepoch = s_.wepoch[a.warp], words = a.width / 4u;
  const bool first = !g.write;
  if (g.after_atomic != s_.atomic_seen) return false;
  if (first ? g.has2() || g.instrs != kNoSecond
            : g.instr != a.instr || g.epoch != s_.epoch || g.wepoch != wepoch)
    return false;
  uint32_t written = 0;
  for (uint32_t k = in_line; k; k &= k - 1) {
    auto l = static_cast<unsigned>(__builtin_ctz(k));
    auto thread = static_cast<uint16_t>(a.warp * 32 + l);
    for (unsigned i = 0, w0 = static_cast<unsigned>(a.addr[l] / 4); i < words; ++i) {
      const unsigned w = (w0 + i) % kLineWords;
      if (g.thread[w] != thread) return false;
      written |= 1u << w;
    }
  }
  if (first) {
    if (uint32_t left = present(g.thread) & ~written) {
      g.in_place = static_cast<uint32_t>(r_.global_in_place.size());
      r_.global_in_place.emplace_back() = {g.instr, g.epoch, g.now, g.wepoch, left};
    }
    g.write = true;
    g.instr = a.instr;
    g.epoch = s_.epoch;
    g.wepoch = wepoch;
    g.now = 0;
  } else if (uint32_t& left = r_.global_in_place[g.in_place].unwritten; (left &= ~written) == 0) {
    g.in_place = kNoSecond;  // a write line like any other from now on
  }
  g.now |= written;
  g.event = s_.event;
  return true;
}

// What both line steps test first: whether line `g` can take lanes
// `in_line` of `a` at all (kNo: the per-word path), or they only read
// words with two readers already (kDone: nothing to do); `in_words`, when
// not 0, the words they access. A compact line moves to a later epoch
// only without second readers (they hold the epoch).
GlobalStreams::Step GlobalStreams::line_step(const emu::MemAccess& a, const GlobalLine& g,
                                             uint32_t in_line, uint32_t in_words) const {
  const bool write = a.op == emu::MemOp::Store;
  if (!g.compact || g.write != write || g.after_atomic != s_.atomic_seen || g.in_place != kNoSecond)
    return Step::kNo;
  if (g.epoch != s_.epoch && g.has2()) return Step::kNo;
  if (!write && g.two) {
    uint32_t touched = in_words;
    for (uint32_t k = in_words ? 0 : in_line; k; k &= k - 1) {
      auto w0 = static_cast<unsigned>(a.addr[__builtin_ctz(k)] / 4 % kLineWords);
      touched |= static_cast<uint32_t>(((uint64_t{1} << (a.width / 4u)) - 1) << w0);
    }
    if ((touched & ~g.two) == 0) return Step::kDone;
  }
  return Step::kGo;
}

// The index of `instr` among line `g`'s instructions, added if new (the
// list made when the line had one); -1: the list is full (nothing done).
int GlobalStreams::line_instr(GlobalLine& g, const emu::InstrInfo* instr) {
  if (g.instr == instr) return 0;
  const bool multi = g.instrs != kNoSecond;
  const unsigned n = multi ? r_.global_instrs[g.instrs].n : 1;
  for (unsigned i = 1; i < n; ++i)
    if (r_.global_instrs[g.instrs].instr[i] == instr) return static_cast<int>(i);
  if (n == kLineInstrs) return -1;
  if (!multi) {
    g.instrs = static_cast<uint32_t>(r_.global_instrs.size());
    LineInstrs& made = r_.global_instrs.emplace_back();
    made.instr[0] = g.instr;
    made.n = 1;
    made.of.fill(0);
    made.of2.fill(0);
  }
  LineInstrs& grown = r_.global_instrs[g.instrs];
  grown.instr[grown.n++] = instr;
  return static_cast<int>(n);
}

// stream_line_distinct for one lane's one word (a strided access, as a
// column of a row-major array: a line per lane): the same steps without
// the loops over lanes and words. A second reader takes the general step.
bool GlobalStreams::stream_word(const emu::MemAccess& a, GlobalLine& g, unsigned lane) {
  const bool write = a.op == emu::MemOp::Store;
  const auto w = static_cast<unsigned>(a.addr[lane] / 4 % kLineWords);
  if (Step st = line_step(a, g, 1u << lane, 1u << w); st != Step::kGo) return st == Step::kDone;
  const auto thread = static_cast<uint16_t>(a.warp * 32 + lane);
  const uint32_t wepoch = s_.wepoch[a.warp];
  const bool moved = g.epoch != s_.epoch;
  const uint32_t now = moved ? 0 : g.now;
  const uint16_t t = g.thread[w];
  const bool cur = now >> w & 1u;
  if (t == kNoThread || (t == thread && (!cur || write))) {  // a first access (again)
    if (t != kNoThread && r_.instr_of(g, w) != a.instr) return false;
    if (!moved && g.wepoch != wepoch) return false;
    const int index = line_instr(g, a.instr);
    if (index < 0) return false;
    if (moved) {  // (epochs only grow)
      g.epoch = s_.epoch;
      g.wepoch = wepoch;
    }
    g.now = now | 1u << w;
    g.thread[w] = thread;
    if (t == kNoThread && g.instrs != kNoSecond)
      r_.global_instrs[g.instrs].of[w] = static_cast<uint8_t>(index);
    if (write) g.event = s_.event;
    return true;
  }
  if (t == thread || (!write && cur && g.has2() && r_.global_second[g.second][w] != kNoThread))
    return true;  // nothing changes
  return stream_line_distinct(a, g, 1u << lane, 0);
}

// stream_line_general for lanes that each access their own words (a
// strided store's one lane per line, a stream's next warp): no word's
// step depends on another lane's, so the words are tested first and
// changed in place after, without copying the line.
bool GlobalStreams::stream_line_distinct(const emu::MemAccess& a, GlobalLine& g, uint32_t in_line,
                                         uint32_t in_words) {
  const bool write = a.op == emu::MemOp::Store;
  const uint32_t wepoch = s_.wepoch[a.warp], words = a.width / 4u;
  if (Step st = line_step(a, g, in_line, in_words); st != Step::kGo) return st == Step::kDone;
  const bool same = g.instr == a.instr, moved = g.epoch != s_.epoch;
  const uint32_t now = moved ? 0 : g.now;
  const uint16_t* second = g.has2() ? r_.global_second[g.second].data() : nullptr;
  // The words this access makes a first access (`firsts`; `fresh` of them
  // untouched before) or a second reader (`seconds`).
  uint32_t firsts = 0, fresh = 0, seconds = 0;
  for (uint32_t k = in_line; k; k &= k - 1) {
    auto l = static_cast<unsigned>(__builtin_ctz(k));
    auto thread = static_cast<uint16_t>(a.warp * 32 + l);
    for (unsigned i = 0, w0 = static_cast<unsigned>(a.addr[l] / 4); i < words; ++i) {
      const unsigned w = (w0 + i) % kLineWords;
      const uint16_t t = g.thread[w];
      const bool cur = now >> w & 1u;
      if (t == kNoThread) {
        fresh |= 1u << w;
        firsts |= 1u << w;
      } else if ((t == thread && !cur) || (write && t == thread)) {
        if (r_.instr_of(g, w) != a.instr) return false;
        firsts |= 1u << w;
      } else if (t == thread || (!write && cur && second && second[w] != kNoThread)) {
        // nothing
      } else if (write || !cur) {
        return false;
      } else {
        seconds |= 1u << w;
      }
    }
  }
  if (firsts && !moved && g.wepoch != wepoch) return false;
  if (seconds && g.has2() && g.wepoch2 != wepoch) return false;
  int index = 0;
  if ((firsts | seconds) && !same && (index = line_instr(g, a.instr)) < 0) return false;
  if (moved) {  // (epochs only grow)
    g.epoch = s_.epoch;
    g.wepoch = wepoch;
  }
  g.now = now | firsts;
  LineInstrs* li = g.instrs != kNoSecond ? &r_.global_instrs[g.instrs] : nullptr;
  if (seconds && !g.has2()) {
    g.second = static_cast<uint32_t>(r_.global_second.size());
    r_.global_second.emplace_back().fill(kNoThread);
    g.wepoch2 = wepoch;
  }
  for (uint32_t k = in_line; k; k &= k - 1) {
    auto l = static_cast<unsigned>(__builtin_ctz(k));
    auto thread = static_cast<uint16_t>(a.warp * 32 + l);
    for (unsigned i = 0, w0 = static_cast<unsigned>(a.addr[l] / 4); i < words; ++i) {
      const unsigned w = (w0 + i) % kLineWords;
      if (firsts >> w & 1u) {
        g.thread[w] = thread;
        if (li && (fresh >> w & 1u)) li->of[w] = static_cast<uint8_t>(index);
      } else if (seconds >> w & 1u) {
        r_.global_second[g.second][w] = thread;
        if (li) li->of2[w] = static_cast<uint8_t>(index);
      }
    }
  }
  g.two |= seconds;
  if (write) g.event = s_.event;
  return true;
}

// stream_line for a line that is not fresh, or lanes that may share words.
bool GlobalStreams::stream_line_general(const emu::MemAccess& a, GlobalLine& g, uint32_t in_line) {
  const bool write = a.op == emu::MemOp::Store;
  const uint32_t wepoch = s_.wepoch[a.warp], words = a.width / 4u;
  if (Step st = line_step(a, g, in_line, 0); st != Step::kGo) return st == Step::kDone;
  // What the per-word path would do to each word, lane by lane in lane
  // order (lanes may share words), on copies of the line: a first access
  // (or its own thread's again in a later epoch) from the line's
  // instruction, which must keep the line's warp-sync epoch within one
  // barrier epoch; a second reader; nothing (its own thread again in
  // this epoch, or a word with two readers already). Anything else: the
  // per-word path. The line moves to a later epoch only without second
  // readers (they hold the epoch).
  const bool same = g.instr == a.instr, moved = g.epoch != s_.epoch, multi = g.instrs != kNoSecond;
  LineInstrs li;
  if (multi) {
    li = r_.global_instrs[g.instrs];
  } else {  // (of and of2 are filled when a second instruction comes)
    li.instr[0] = g.instr;
    li.n = 1;
  }
  // The index of a.instr among the line's first readers' instructions,
  // added if new and there is room; -1: none.
  int index = same ? 0 : -1;
  for (unsigned i = 1; index < 0 && i < li.n; ++i)
    if (li.instr[i] == a.instr) index = static_cast<int>(i);
  if (index < 0 && li.n < kLineInstrs) {
    if (li.n == 1) {
      li.of.fill(0);
      li.of2.fill(0);
    }
    li.instr[li.n] = a.instr;
    index = static_cast<int>(li.n++);
  }
  std::array<uint16_t, kLineWords> first = g.thread, second;
  if (g.has2())
    second = r_.global_second[g.second];
  else
    second.fill(kNoThread);
  uint32_t now = moved ? 0 : g.now, wepoch2 = g.wepoch2;
  bool has2 = g.has2();
  uint32_t two = g.two;
  // A read lane at the address of the lane before it whose words had two
  // readers after it: nothing (a broadcast's third to last lanes).
  uint64_t prev = UINT64_MAX;
  bool prev_two = false;
  for (uint32_t k = in_line; k; k &= k - 1) {
    auto l = static_cast<unsigned>(__builtin_ctz(k));
    auto thread = static_cast<uint16_t>(a.warp * 32 + l);
    if (a.addr[l] == prev && prev_two) continue;
    prev = a.addr[l];
    prev_two = !write;
    for (unsigned i = 0, w0 = static_cast<unsigned>(a.addr[l] / 4); i < words; ++i) {
      const unsigned w = (w0 + i) % kLineWords;
      const uint16_t t = first[w];
      const bool cur = now >> w & 1u;
      if (t == kNoThread || (t == thread && !cur) || (write && t == thread)) {
        if (index < 0 || (!moved && g.wepoch != wepoch)) return false;
        // (a word's own thread again in a later epoch: from its own
        // instruction only, which stays its first access)
        if (t == kNoThread)
          li.of[w] = static_cast<uint8_t>(index);
        else if (li.instr[li.n == 1 ? 0 : li.of[w]] != a.instr)  // (of: filled once n > 1)
          return false;
        first[w] = thread;
        now |= 1u << w;
      } else if (t == thread || (!write && cur && second[w] != kNoThread)) {
        // nothing
      } else if (write || !cur) {
        return false;
      } else {
        if (index < 0 || (has2 && wepoch2 != wepoch)) return false;
        li.of2[w] = static_cast<uint8_t>(index);
        if (!has2) {
          has2 = true;
          wepoch2 = wepoch;
        }
        second[w] = thread;
        two |= 1u << w;
      }
    }
    for (unsigned i = 0, w0 = static_cast<unsigned>(a.addr[l] / 4); prev_two && i < words; ++i)
      prev_two = second[(w0 + i) % kLineWords] != kNoThread;
  }
  if (moved) {  // (epochs only grow)
    g.epoch = s_.epoch;
    g.wepoch = wepoch;
  }
  g.thread = first;
  g.now = now;
  if (li.n > 1) {
    if (!multi) {
      g.instrs = static_cast<uint32_t>(r_.global_instrs.size());
      r_.global_instrs.emplace_back();
    }
    r_.global_instrs[g.instrs] = li;
  }
  if (has2) {
    if (!g.has2()) {
      g.second = static_cast<uint32_t>(r_.global_second.size());
      r_.global_second.emplace_back();
    }
    g.wepoch2 = wepoch2;
    r_.global_second[g.second] = second;
    g.two = two;
  }
  if (write) g.event = s_.event;
  return true;
}

}  // namespace smemlab::check::detail
