// A block's records of the global memory it touched, for the global
// hazard checks (global_hazards, global_streams) and, when the block ends,
// the merge of its words into the launch's owners (global_owners): word
// records per 128-byte line, lines kept compact while they continue a
// coalesced stream, and full shadow records (per word, then per byte) for
// the words that need them. Kept after the block for a later block to
// reuse (BlockRecords).
#pragma once

#include <array>
#include <cstdint>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "check/chunked_vector.h"
#include "check/defect_state.h"
#include "check/word_map.h"

namespace smemlab::check::detail {

// Global memory this block touched, per 4-byte word with byte masks:
// one record per word, so this grows with the memory touched, not with
// the accesses made. Records come 32 words (a 128-byte line) at a time:
// global_lines numbers the lines, and word w of line slot L has record
// L * 32 + w % 32, so a warp's coalesced access looks up a line once.
//
// The record also holds the word's hazard shadow while that is one plain
// whole-word read (most global words: streamed in once by one thread),
// so such a word costs these 24 bytes instead of a full Shadow record;
// the second thread, a write, an atomic or a sub-word access gives it a
// full record (`full_record`).
enum : uint8_t { kFresh, kReadOnce, kFull };
struct GlobalTouch {
  const emu::InstrInfo* instr = nullptr;  // first write, else first access
  uint32_t thread = 0;
  // kReadOnce: the shadow is a read by `thread` at `instr` in barrier
  // epoch `epoch` and warp-sync epoch `aux`; kFull: `aux` is its record
  // in GlobalRecords::global_shadow; kFresh: no access to the word's shadow yet.
  uint32_t epoch = 0, aux = 0;
  uint8_t touched = 0, written = 0;  // bytes of the word
  bool after_atomic = false;         // the block had used a global atomic before
  uint8_t state = kFresh;
};
inline constexpr uint32_t kLineWords = 32;
// A line whose accesses so far are all plain whole-word reads from one
// instruction, each word read by one thread (a coalesced stream; the
// warps may differ), is kept as just that and the thread of each word:
// about 2 bytes per word instead of a 24-byte record. Likewise a line
// whose words were each written by one thread, by plain whole-word stores
// of one instruction, and not read (a stream's output, as a transpose's
// tile rows). `words_of` turns it into word records when anything else
// comes. The stream may go on in later barrier epochs (a tiled loop's
// next tile in the same line): a word's epoch then matters only as
// "this line's last epoch or an earlier one" (the hazard tests compare it
// with the current epoch, which never goes back), so the line keeps its
// last epoch and which words were accessed in it (`now`).
inline constexpr uint16_t kNoThread = 0xffff;
inline constexpr uint32_t kNoWords = UINT32_MAX;
// No second readers, instructions or in-place reads (GlobalLine).
inline constexpr uint32_t kNoSecond = UINT32_MAX;
struct GlobalLine {
  const emu::InstrInfo* instr = nullptr;
  uint64_t event = 0;              // write: the last store to the line (see words_of)
  uint32_t epoch = 0, wepoch = 0;  // the last barrier epoch and its warp-sync epoch
  uint32_t now = 0;                // words accessed in barrier epoch `epoch`
  uint32_t words = kNoWords;       // its first record in global_touch, once made
  // Once in word records: the words quiet in barrier epoch quiet_epoch - 1
  // (see quiet_global).
  uint32_t quiet = 0, quiet_epoch = 0;
  bool compact = false, write = false, after_atomic = false;
  std::array<uint16_t, kLineWords> thread;  // kNoThread: word not accessed
  // A read line's second readers: words read in barrier epoch `epoch` by
  // a second thread (kNoThread: none), all in warp-sync epoch wepoch2 (a
  // stream read again by other threads: a rotated pass, the next row of a
  // naive matmul, a broadcast's second lane). A word with two readers in
  // the epoch is quiet: further reads change nothing. Kept only while the
  // line's epoch stays. Their threads live in global_second (index
  // `second`; kNoSecond: none), so that lines without them stay small.
  bool has2() const { return second != kNoSecond; }
  uint32_t wepoch2 = 0, second = kNoSecond;
  uint32_t two = 0;  // words with a second reader
  // A line's words accessed by up to kLineInstrs instructions (an
  // unrolled loop's loads or stores, each its words of the line): their
  // list and each word's first access's and second reader's in
  // global_instrs (index `instrs`; kNoSecond: `instr` alone). A word's
  // instruction is its own, so such a line moves to later epochs as a
  // line of one instruction does (a tiled loop's unrolled loads of the
  // next tile in the same lines).
  uint32_t instrs = kNoSecond;
  // A read line whose words their readers write back in place
  // (`d[t] = f(d[t])`) becomes a write line (see stream_in_place); while
  // only some of its words are written, the others' reads are kept in
  // global_in_place (index `in_place`; kNoSecond: none).
  uint32_t in_place = kNoSecond;
};
using Threads = std::array<uint16_t, kLineWords>;
// The reads of a line's words not yet written in place: what the read
// line's fields said of them (instruction, epoch and `now`, warp-sync
// epoch).
struct InPlace {
  const emu::InstrInfo* instr;
  uint32_t epoch, now, wepoch;
  uint32_t unwritten;  // read words not written yet
};
inline constexpr unsigned kLineInstrs = 8;
struct LineInstrs {
  std::array<const emu::InstrInfo*, kLineInstrs> instr;
  unsigned n = 0;
  std::array<uint8_t, kLineWords> of, of2;  // word -> index in `instr`
};

// Bit w: word w has a thread (kNoThread: not accessed).
// (SSE2: sixteen words a compare, where the loop is 32 shifts and ors.)
inline uint32_t present(const Threads& thread) {
  static_assert(kNoThread == UINT16_MAX);
#if defined(__SSE2__)
  const __m128i none = _mm_set1_epi16(-1);
  uint32_t absent = 0;
  for (unsigned i = 0; i < 32; i += 16) {
    const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(&thread[i]));
    const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(&thread[i + 8]));
    const __m128i bytes = _mm_packs_epi16(_mm_cmpeq_epi16(lo, none), _mm_cmpeq_epi16(hi, none));
    absent |= static_cast<uint32_t>(_mm_movemask_epi8(bytes)) << i;
  }
  return ~absent;
#else
  uint32_t m = 0;
  for (unsigned w = 0; w < 32; ++w) m |= uint32_t{thread[w] != kNoThread} << w;
  return m;
#endif
}

// The barrier epoch of word `w`'s access in compact line `g`: the line's
// last, or one before it (which the current epoch never equals again).
// From a line's (or an InPlace record's) `now` and epoch.
inline uint32_t epoch_of(uint32_t now, uint32_t epoch, unsigned w) {
  return now >> w & 1u ? epoch : epoch - 1;
}
inline uint32_t epoch_of(const GlobalLine& g, unsigned w) { return epoch_of(g.now, g.epoch, w); }

struct GlobalRecords {
  LineMap global_lines;                     // 128-byte line -> line slot
  ChunkedVector<GlobalLine> global_line;    // by line slot
  ChunkedVector<GlobalTouch> global_touch;  // word records (GlobalLine::words)
  ChunkedVector<Threads> global_second;     // second readers (GlobalLine::second)
  ChunkedVector<LineInstrs> global_instrs;  // first readers' instructions (GlobalLine::instrs)
  ChunkedVector<InPlace> global_in_place;   // reads not yet written back (GlobalLine::in_place)
  ShadowWords global_shadow;                // full records of global words (GlobalTouch::aux)

  // The instruction of word `w`'s first access (or second reader) in
  // compact line `g`.
  const emu::InstrInfo* instr_of(const GlobalLine& g, unsigned w, bool second = false) const {
    if (g.instrs == kNoSecond) return g.instr;
    const LineInstrs& li = global_instrs[g.instrs];
    return li.instr[second ? li.of2[w] : li.of[w]];
  }

  // Word `w` of compact line `g` read and not yet written in place: its read.
  const InPlace* read_in_place(const GlobalLine& g, unsigned w) const {
    if (g.in_place == kNoSecond) return nullptr;
    const InPlace& ip = global_in_place[g.in_place];
    return ip.unwritten >> w & 1u ? &ip : nullptr;
  }

  // Word `w` of line `g`'s record, as the per-word path would have made it
  // (a compact write's shadow record is made by words_of).
  GlobalTouch touch(const GlobalLine& g, unsigned w) const {
    if (g.words != kNoWords) return global_touch[g.words + w];
    GlobalTouch t;
    if (!g.compact || g.thread[w] == kNoThread) return t;
    t.instr = instr_of(g, w);
    t.thread = g.thread[w];
    t.touched = 0xf;
    t.after_atomic = g.after_atomic;
    if (const InPlace* ip = read_in_place(g, w)) {
      t.instr = ip->instr;
      t.epoch = epoch_of(ip->now, ip->epoch, w);
      t.aux = ip->wepoch;
      t.state = kReadOnce;
    } else if (g.write) {
      t.written = 0xf;
    } else {
      t.epoch = epoch_of(g, w);
      t.aux = g.wepoch;
      t.state = kReadOnce;
    }
    return t;
  }

  GlobalLine& line_of(uint64_t line) {
    uint32_t l = global_lines.slot(line);
    if (l == global_line.size()) global_line.emplace_back();
    return global_line[l];
  }
  // The first of line `g`'s word records, made (from its compact form) if new.
  uint32_t words_of(GlobalLine& g);
  // The full shadow record of a global word, made from its compact state.
  // Called before the access updates `t.instr`/`t.thread` (a first write
  // takes them over).
  uint32_t full_record(GlobalTouch& t);

  // The memory held, roughly (the larger parts).
  size_t bytes() const {
    return global_line.capacity_bytes() + global_touch.capacity_bytes() +
           global_second.capacity_bytes() + global_instrs.capacity_bytes() +
           global_in_place.capacity_bytes() + global_shadow.capacity_bytes();
  }
  // Empty, keeping the memory.
  void clear() {
    global_lines.clear();
    global_line.clear();
    global_touch.clear();
    global_second.clear();
    global_instrs.clear();
    global_in_place.clear();
    global_shadow.reset(0);
  }
};

}  // namespace smemlab::check::detail
