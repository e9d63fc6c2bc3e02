// What the defect checkers of one block share (defects.cc's BlockDefects
// hands one of each to every checker): the per-byte shadow record of the
// hazard checks (`Shadow`, kept per word while words are accessed whole),
// the block's barrier, warp-sync and event counters (`BlockState`), and the
// findings the block reports, merged as they repeat (`BlockFindings`).
// Internal to src/check (namespace detail): the checkers are
// shared_hazards, global_hazards (with global_streams and
// global_records), barrier_check, bounds_check and, across blocks,
// global_owners.
#pragma once

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "check/defects.h"
#include "check/finding.h"
#include "check/finding_kinds.h"
#include "emu/observer.h"

namespace smemlab::check::detail {

// What a plain store wrote into a record (its word, or its byte), when
// the emulator says (MemAccess::stored): the same-value rule of write-write
// races (docs/check-rules.md). kNoValue: not known, or not one value.
constexpr uint64_t kNoValue = UINT64_MAX;

// Shadow state of one shared-memory byte. (Ordered for size: 80 bytes,
// the bools first, then the 4-byte, then the 8-byte members.)
struct Shadow {
  bool written = false, ever_written = false, read = false;
  bool w_atomic = false, r_atomic = false;
  bool w_known = false;  // w_value is what every lane of the last write stored
  bool r2 = false, r2_atomic = false;
  uint32_t w_thread = 0, w_epoch = 0, w_wepoch = 0;
  uint32_t w_lanes = 0;  // lanes of the writing warp-instruction that wrote this byte
  uint32_t w_value = 0;  // the bytes the last write stored (w_known)
  // Up to two distinct readers in the current epoch (r2: the second).
  uint32_t r_thread = 0, r_epoch = 0, r_wepoch = 0, r2_thread = 0, r2_wepoch = 0;
  uint64_t w_event = 0;
  const emu::InstrInfo* w_instr = nullptr;
  const emu::InstrInfo *r_instr = nullptr, *r2_instr = nullptr;
};
static_assert(sizeof(Shadow) == 80, "the shadow record of every word: keep it small");

// Shadow records of one memory space, one per 4-byte word while the word is
// only ever accessed whole (most code): then one visit serves all four
// bytes. The first sub-word access splits the word into four byte records,
// copies of the word's. Words are numbered by the caller (slots).
class ShadowWords {
 public:
  void reset(size_t words) {
    words_.assign(words, Word{});
    bytes_.clear();
  }
  // (Copies of a fresh record: value-initializing one in place compiles to
  // `rep stos`, whose start-up cost dominates one global word's record.)
  void add(size_t words) {
    static const Word kFresh{};
    words_.insert(words_.end(), words, kFresh);
  }
  size_t size() const { return words_.size(); }
  size_t capacity_bytes() const {
    return words_.capacity() * sizeof(Word) + bytes_.capacity() * sizeof(bytes_[0]);
  }
  bool whole(uint32_t slot) const { return words_[slot].bytes == kWhole; }
  // Every word whole: none split by a sub-word access so far.
  bool all_whole() const { return bytes_.empty(); }
  // All four bytes of the word written at some time (without splitting it).
  bool ever_written(uint32_t slot) const {
    const Word& w = words_[slot];
    if (w.bytes == kWhole) return w.shadow.ever_written;
    for (const Shadow& b : bytes_[w.bytes])
      if (!b.ever_written) return false;
    return true;
  }
  Shadow& word(uint32_t slot) { return words_[slot].shadow; }
  Shadow& byte(uint32_t slot, unsigned k) {
    Word& w = words_[slot];
    if (w.bytes == kWhole) {
      bytes_.push_back({w.shadow, w.shadow, w.shadow, w.shadow});
      w.bytes = static_cast<uint32_t>(bytes_.size() - 1);
      for (unsigned i = 0; i < 4; ++i)  // (a byte record keeps its own byte of the value)
        bytes_.back()[i].w_value = (w.shadow.w_value >> (8 * i)) & 0xffu;
    }
    return bytes_[w.bytes][k];
  }

 private:
  static constexpr uint32_t kWhole = UINT32_MAX;
  struct Word {
    Shadow shadow;
    uint32_t bytes = kWhole;  // index into bytes_ once split
  };
  std::vector<Word> words_;
  std::vector<std::array<Shadow, 4>> bytes_;

 public:
  // The word records as a plain pointer, for loops over a warp's lanes: a
  // store into a record could alias the vector's own pointer, which the
  // compiler would then reload for every record (records never move
  // between reset() and the next reset() or add()).
  class View {
   public:
    explicit View(Word* words) : words_(words) {}
    bool whole(uint32_t slot) const { return words_[slot].bytes == kWhole; }
    Shadow& word(uint32_t slot) const { return words_[slot].shadow; }

   private:
    Word* words_;
  };
  View view() { return View(words_.data()); }
};

inline std::string dim_text(emu::Dim3 d) { return fmt::format("({},{},{})", d.x, d.y, d.z); }

inline const char* role(emu::MemOp op) {
  switch (op) {
    case emu::MemOp::Load:
    case emu::MemOp::CpAsyncLoad:
    case emu::MemOp::BulkLoad:
      return "read";
    case emu::MemOp::Store:
    case emu::MemOp::CpAsyncStore:
    case emu::MemOp::BulkStore:
      return "write";
    default:
      return "atomic";
  }
}

// The block being checked and its clocks, which every checker reads: the
// barrier epoch (one per bar.sync release), each warp's warp-sync epoch (one
// per __syncwarp) and the number of the current memory event.
struct BlockState {
  BlockState(const MemoryLayout& layout, const emu::KernelInfo& kernel, emu::Dim3 block,
             bool compact)
      : layout(layout), kernel(kernel), block(block), compact(compact) {}
  const MemoryLayout& layout;
  const emu::KernelInfo& kernel;
  emu::Dim3 block;
  bool compact;  // DefectCheck's fast paths: compact global records, quiet-word notes
  uint32_t threads = 0, exited = 0, epoch = 0;
  uint64_t event = 0;
  bool atomic_seen = false;      // the block has used a global atomic
  std::vector<uint32_t> wepoch;  // by warp

  // An access of `thread` to a word `other` accessed earlier in this
  // barrier epoch (in `other`'s warp-sync epoch `other_wepoch`) is no
  // hazard when it is the same thread, or a lane of the same warp with a
  // __syncwarp() between (Hazards::hazards reports nothing then).
  bool ordered(uint32_t thread, uint32_t other, uint32_t other_wepoch) const {
    return ordered(thread, other, other_wepoch, wepoch[thread / 32]);
  }
  // (`wepoch`: the warp-sync epoch of `thread`'s warp.)
  static bool ordered(uint32_t thread, uint32_t other, uint32_t other_wepoch, uint32_t wepoch) {
    return other == thread || (other / 32 == thread / 32 && other_wepoch != wepoch);
  }
};

// What a warp's lanes read of the block's state, read once for all of
// them: a lane's stores into shadow records may alias the members, and
// the compiler would reload them lane by lane. Valid while the warp's
// access is handled (no barrier, __syncwarp or event in between).
struct WarpNow {
  uint32_t epoch, wepoch;  // the barrier epoch; the warp's warp-sync epoch
  uint64_t event;
  ShadowWords::View shared;
  uint32_t* quiet_until;
};

// `thread` wrote the word now (barrier epoch `epoch`, its warp's
// warp-sync epoch `wepoch`, memory event `event`; `value`: the bytes it
// stored, or kNoValue): the fast store path and the general path record a
// write the same way. Lanes of one warp-instruction writing the record
// keep a value only while they all store the same one.
inline void note_write(Shadow& s, uint32_t thread, bool atomic, const emu::InstrInfo* instr,
                       uint32_t epoch, uint32_t wepoch, uint64_t event, uint64_t value = kNoValue) {
  uint32_t warp = thread / 32;
  const bool same_instr = s.w_event == event && s.w_thread / 32 == warp;
  const auto v = static_cast<uint32_t>(value);
  // (Branch-free: this runs for every lane of every store.)
  s.w_known = (value != kNoValue) & ((!same_instr) | (s.w_known & (s.w_value == v)));
  s.w_value = v;
  s.w_lanes = same_instr ? s.w_lanes : 0;
  s.w_lanes |= 1u << (thread % 32);
  s.written = s.ever_written = true;
  s.w_atomic = atomic;
  s.w_thread = thread;
  s.w_epoch = epoch;
  s.w_wepoch = wepoch;
  s.w_event = event;
  s.w_instr = instr;
  s.read = s.r2 = false;
}
// A plain store's note_write on the fast store paths, where
// store_needs_no_test passed: no other lane of this warp-instruction wrote
// the record before (that lane would be unordered with `thread`), so the
// record starts afresh with this lane's write and value.
inline void note_plain_write(Shadow& s, uint32_t thread, const emu::InstrInfo* instr,
                             const WarpNow& n, uint64_t value) {
  s.w_known = value != kNoValue;
  s.w_value = static_cast<uint32_t>(value);
  s.w_lanes = 1u << (thread % 32);
  s.written = s.ever_written = true;
  s.w_atomic = false;
  s.w_thread = thread;
  s.w_epoch = n.epoch;
  s.w_wepoch = n.wepoch;
  s.w_event = n.event;
  s.w_instr = instr;
  s.read = s.r2 = false;
}

// Bytes [offset, offset + n) (n <= 4) of what lane `lane` of the plain
// store `a` stored, little-endian; kNoValue when the event does not say.
inline uint64_t stored_bytes(const emu::MemAccess& a, uint32_t lane, uint32_t offset, uint32_t n) {
  if (a.stored[0] == nullptr || a.op != emu::MemOp::Store) return kNoValue;
  const uint32_t ew = a.width / a.stored_vec;
  if (offset % ew + n <= ew && ew <= 8) {  // inside one element (mostly the whole of it)
    const uint64_t v = a.stored[offset / ew][lane] >> (8 * (offset % ew));
    return n == 4 ? v & 0xffffffffu : v & ((uint64_t{1} << (8 * n)) - 1);
  }
  uint64_t v = 0;
  for (uint32_t k = 0; k < n; ++k) {
    const uint32_t o = offset + k;
    v |= ((a.stored[o / ew][lane] >> (8 * (o % ew))) & 0xffu) << (8 * k);
  }
  return v;
}

// A plain read of `s` by `thread` that needs nothing done: the byte was
// written (so not uninitialized), not in this barrier epoch (so no RAW),
// and this epoch's readers are recorded already (this thread, or two
// others). The general path in Hazards::hazards would report and record
// nothing.
inline bool quiet_global_read(const Shadow& s, uint32_t thread, uint32_t epoch) {
  return s.read && s.r_epoch == epoch && (s.r2 || s.r_thread == thread) &&
         !(s.written && s.w_epoch == epoch);
}
inline bool quiet_read(const Shadow& s, uint32_t thread, uint32_t epoch) {
  return s.ever_written && quiet_global_read(s, thread, epoch);
}

// The findings of one block. Findings repeat (every lane, every loop
// iteration): the block keeps one per (kind, instructions, roles) with a
// count, so memory stays bounded however long the kernel runs.
// DefectCheck::add merges the same way across blocks, so the result is the
// same as keeping every one.
class BlockFindings {
 public:
  explicit BlockFindings(const BlockState& s) : s_(s) {}

  // `plain_read`: the plain load of a plain-read-vs-atomic-write race, held
  // back (in `deferred`) until the kernel ends.
  void report(FindingKind kind, Severity sev, const std::string& msg, const emu::InstrInfo* instr,
              uint32_t thread, const emu::InstrInfo* other = nullptr, uint32_t other_thread = 0,
              const char* role_a = "at", const char* role_b = "earlier",
              const emu::InstrInfo* plain_read = nullptr);

  std::vector<Finding> findings;
  // Races whose read side is a plain load racing only with atomic writes,
  // by that load; and the loads seen to be CAS-loop reads. Settled when the
  // kernel ends (DefectCheck::on_kernel_end), as one block may show a
  // load's race and another that the load feeds a CAS.
  std::vector<std::pair<const emu::InstrInfo*, Finding>> deferred;
  std::set<const emu::InstrInfo*> validated;

 private:
  const BlockState& s_;
  // report()'s merge key -> index in findings (or deferred).
  std::map<std::tuple<FindingKind, const emu::InstrInfo*, const emu::InstrInfo*, std::string,
                      std::string>,
           size_t>
      seen_, deferred_seen_;
};

}  // namespace smemlab::check::detail
