#include "check/defects.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <tuple>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "bank/bank_map.h"
#include "check/spare_pool.h"
#include "check/word_map.h"

namespace smemlab::check {
namespace {

// Shadow state of one shared-memory byte.
struct Shadow {
  bool written = false, ever_written = false, read = false;
  bool w_atomic = false, r_atomic = false;
  uint32_t w_thread = 0, w_epoch = 0, w_wepoch = 0;
  uint32_t w_lanes = 0;  // lanes of the writing warp-instruction that wrote this byte
  uint64_t w_event = 0;
  const emu::InstrInfo* w_instr = nullptr;
  // Up to two distinct readers in the current epoch.
  uint32_t r_thread = 0, r_epoch = 0, r_wepoch = 0, r2_thread = 0, r2_wepoch = 0;
  bool r2 = false, r2_atomic = false;
  const emu::InstrInfo *r_instr = nullptr, *r2_instr = nullptr;
};

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

std::string dim_text(emu::Dim3 d) { return fmt::format("({},{},{})", d.x, d.y, d.z); }

// A whole-warp shared load held back (BlockDefects::log_load): lane
// h * 16 + l read `width` bytes at a_h + stride * l.
struct LoggedLoad {
  const emu::InstrInfo* instr;
  uint64_t a0, a1, stride;
  uint32_t warp;
  uint8_t width;
};

}  // namespace

class BlockDefects final : public emu::BlockObserver {
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

 public:
  // `records`: emptied records to fill (DefectCheck::spare_ or new).
  BlockDefects(DefectCheck& owner, emu::Dim3 block, std::unique_ptr<BlockRecords> records);

  void on_block_begin(emu::Dim3, emu::Dim3 dim, uint32_t shared_bytes) override {
    threads_ = static_cast<uint32_t>(dim.count());
    shared_.reset(shared_bytes / 4 + 1);
    quiet_until_.assign(shared_bytes / 4 + 1, 0);
    wepoch_.assign((threads_ + 31) / 32, 0);
    // The variables' whole words, the first variable holding a word naming it.
    const MemoryLayout& L = owner_.layout_;
    var_of_word_.assign(shared_bytes / 4 + 1, kNoVar);
    written_whole_.assign(shared_bytes / 4 + 1, 0);
    unwritten_.assign(L.shared.size() + 1, 0);
    shared_bytes_ = shared_bytes;
    overlap_ = false;
    auto claim = [&](size_t var, uint64_t offset, uint64_t size) {
      if (var >= kNoVar) return;
      uint64_t first = (offset + 3) / 4,
               end = std::min<uint64_t>((offset + size) / 4, shared_bytes / 4);
      for (uint64_t w = first; w < end; ++w) {
        overlap_ |= var_of_word_[w] != kNoVar;
        if (var_of_word_[w] == kNoVar) {
          var_of_word_[w] = static_cast<uint16_t>(var);
          ++unwritten_[var];
        }
      }
    };
    for (size_t v = 0; v < L.shared.size(); ++v) claim(v, L.shared[v].offset, L.shared[v].size);
    claim(L.shared.size(), L.dynamic_offset, owner_.kernel_.dynamic_shared);
  }

  void on_memory(const emu::MemAccess& a) override {
    ++event_;
    if (a.mask == 0) return;
    if (a.space == emu::Space::Shared) {
      if (compact_ && log_load(a)) return;
      replay_loads();  // (in event order before anything else touches the shadow)
      if (a.op != emu::MemOp::Load && a.op != emu::MemOp::CpAsyncLoad) epoch_writes_ = true;
    }
    // Warp-wide tests first, so that the per-lane loop below only checks
    // alignment and shared bounds lane by lane when some lane fails them.
    uint64_t bits = 0, lo = UINT64_MAX, hi = 0;
    if (a.mask == UINT32_MAX) {  // (no bit-by-bit walk: it vectorizes)
      for (unsigned l = 0; l < 32; ++l) bits |= a.addr[l];
    } else {
      for (uint32_t m = a.mask; m; m &= m - 1) bits |= a.addr[__builtin_ctz(m)];
    }
    bool pow2 = (a.width & (a.width - 1)) == 0;
    bool aligned = pow2 && (bits & (a.width - 1)) == 0;
    // Kernel parameters and constants: only their alignment is checked.
    if (aligned && a.space != emu::Space::Shared && a.space != emu::Space::Global &&
        a.space != emu::Space::Local)
      return;
    if (a.space == emu::Space::Shared) lanes_range(a, bits, &lo, &hi);
    bool in_bounds = a.space == emu::Space::Shared && hi - lo <= UINT32_MAX &&
                     in_shared_bounds(lo, hi - lo + a.width);
    if (a.space == emu::Space::Shared && a.op == emu::MemOp::Load && aligned && in_bounds &&
        a.width % 4 == 0) {
      shared_load(a, lo, hi);
      return;
    }
    if (a.space == emu::Space::Shared && a.op == emu::MemOp::Store && compact_ && aligned &&
        in_bounds && a.width % 4 == 0 && pending_uninit_.empty()) {
      warp_store(a);
      return;
    }
    uint32_t lanes = a.mask;
    if (a.space == emu::Space::Global && compact_ && aligned && a.width % 4 == 0 &&
        (a.op == emu::MemOp::Load || a.op == emu::MemOp::CpAsyncLoad || a.op == emu::MemOp::Store))
      lanes = global_stream(a);
    if (a.space == emu::Space::Global && compact_ && aligned && a.width % 4 == 0 &&
        (a.op == emu::MemOp::Load || a.op == emu::MemOp::CpAsyncLoad)) {
      // Lane by lane as below, less the lanes whose words are quiet (see
      // quiet_global): they would change nothing and report nothing.
      for (uint32_t m = lanes; m; m &= m - 1) {
        auto lane = static_cast<unsigned>(__builtin_ctz(m));
        if (!quiet_global(a.addr[lane], a.width / 4)) global(a, a.warp * 32 + lane, a.addr[lane]);
      }
      return;
    }
    for (uint32_t m = lanes; m; m &= m - 1) {
      unsigned lane = static_cast<unsigned>(__builtin_ctz(m));
      uint32_t thread = a.warp * 32 + lane;
      uint64_t addr = a.addr[lane];
      if (!aligned && addr % a.width != 0) {
        report(FindingKind::Misaligned, Severity::Error,
               fmt::format("{} {} of {} bytes at address {:#x} is not {}-byte aligned",
                           emu::space_name(a.space), role(a.op), a.width, addr, a.width),
               a.instr, thread, nullptr, 0, role(a.op));
        continue;
      }
      if (a.space == emu::Space::Shared)
        shared(a, thread, addr, in_bounds);
      else if (a.space == emu::Space::Local)
        local(a, thread, addr);
      else if (a.space == emu::Space::Global)
        global(a, thread, addr);
    }
  }

  // The lowest and highest address of a's lanes; `bits`: their OR.
  static void lanes_range(const emu::MemAccess& a, uint64_t bits, uint64_t* lo, uint64_t* hi) {
    if (a.mask == UINT32_MAX && bits >> 32 == 0) {  // (32-bit min/max vectorize)
      uint32_t l32 = UINT32_MAX, h32 = 0;
      for (unsigned l = 0; l < 32; ++l) {
        l32 = std::min(l32, static_cast<uint32_t>(a.addr[l]));
        h32 = std::max(h32, static_cast<uint32_t>(a.addr[l]));
      }
      *lo = l32;
      *hi = h32;
      return;
    }
    for (uint32_t m = a.mask; m; m &= m - 1) {
      uint64_t addr = a.addr[__builtin_ctz(m)];
      *lo = std::min(*lo, addr);
      *hi = std::max(*hi, addr);
    }
  }

  // A whole warp's load of whole words, each half-warp at evenly spaced
  // addresses (a row, a column, a broadcast), inside one variable, in a
  // barrier epoch with no shared write so far, of words all written
  // before: no finding can come of it, and what it records (its readers)
  // matters only if a write comes later in this epoch. Such loads are kept
  // as their pattern and replayed, in order, before any other shared
  // access; a barrier drops them unseen. False: not such a load.
  bool log_load(const emu::MemAccess& a) {
    if (a.op != emu::MemOp::Load || a.mask != UINT32_MAX || epoch_writes_ || a.width % 4 != 0 ||
        (a.width & (a.width - 1)) != 0)
      return false;
    const uint64_t* A = a.addr;
    HalfAffine h;
    if (!half_affine(a, &h)) return false;
    const uint64_t b0 = h.a0, b1 = h.a1, stride = h.stride;
    if (((b0 | b1 | stride) & (a.width - 1)) != 0) return false;
    const uint64_t lo = std::min(b0, b1), end = std::max(b0, b1) + stride * 15 + a.width;
    if (end > shared_bytes_) return false;
    const uint16_t var = var_of_word_[lo / 4];
    if (var == kNoVar || var_of_word_[(end - 1) / 4] != var) return false;
    if (unwritten_[var] != 0 || overlap_) {  // then word by word
      for (uint32_t l = 0; l < 32; ++l)
        for (uint64_t w = A[l] / 4; w < (A[l] + a.width) / 4; ++w)
          if (!written_whole_[w]) return false;
    }
    if (log_.size() == kMaxLog) replay_loads();  // (bounded memory)
    log_.push_back({a.instr, b0, b1, stride, a.warp, a.width});
    return true;
  }

  // A whole warp's shared addresses as two evenly spaced half-warps: lane
  // h * 16 + l at a_h + stride * l (what the emulator's affine path moves).
  struct HalfAffine {
    uint64_t a0, a1, stride;
  };
  static bool half_affine(const emu::MemAccess& a, HalfAffine* h) {
    if (a.mask != UINT32_MAX) return false;
    const uint64_t* A = a.addr;
    const uint64_t b0 = A[0], b1 = A[16], stride = A[1] - A[0];
    if (stride > kMaxStride || ((b0 | b1) >> 32) != 0) return false;
    // Nonzero when some lane is off the pattern: differences, not products
    // (it vectorizes without 64-bit multiplies).
    uint64_t off = 0;
    for (uint32_t l = 0; l < 15; ++l)
      off |= ((A[l + 1] - A[l]) ^ stride) | ((A[17 + l] - A[16 + l]) ^ stride);
    *h = {b0, b1, stride};
    return off == 0;
  }

  // A warp's plain store of whole, aligned words inside the shared
  // variables, lane by lane: a lane whose words all pass
  // store_needs_no_test is plain_store without the per-lane path's set-up
  // (shared()'s bounds, alignment and kind tests, known to pass here);
  // another lane takes shared() itself. Lane order is kept, so each lane
  // sees the words as the lanes before it left them.
  // (kWords: the words of a lane, 0 for a.width / 4; one word, the common
  // case, compiles without the loops over a lane's words.)
  void warp_store(const emu::MemAccess& a) {
    if (a.width == 4)
      warp_store<1>(a);
    else
      warp_store<0>(a);
  }
  template <uint32_t kWords>
  void warp_store(const emu::MemAccess& a) {
    const uint32_t words = kWords ? kWords : a.width / 4, base = a.warp * 32;
    const WarpNow n = warp_now(a.warp);
    const emu::InstrInfo* instr = a.instr;
    uint8_t* written_whole = written_whole_.data();
    const uint16_t* var_of_word = var_of_word_.data();
    uint32_t* unwritten = unwritten_.data();
    for (uint32_t m = a.mask; m; m &= m - 1) {
      const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
      const uint32_t thread = base + l, first = static_cast<uint32_t>(a.addr[l] / 4);
      bool plain = true;
      for (uint32_t w = first; plain && w < first + words; ++w)
        plain = n.shared.whole(w) && store_needs_no_test(n.shared.word(w), thread, n);
      if (!plain) {
        shared(a, thread, a.addr[l], true);
        continue;
      }
      for (uint32_t w = first; w < first + words; ++w) {
        n.quiet_until[w] = 0;
        note_write(n.shared.word(w), thread, false, instr, n);
        if (!written_whole[w]) {  // note_word_written_whole of a whole word written now
          written_whole[w] = 1;
          if (var_of_word[w] != kNoVar) --unwritten[var_of_word[w]];
        }
      }
    }
  }

  void replay_loads() {
    if (log_.empty()) return;
    emu::MemAccess r;
    r.space = emu::Space::Shared;
    r.op = emu::MemOp::Load;
    r.matrices = 0;
    r.mask = UINT32_MAX;
    r.block = block_;
    for (const LoggedLoad& g : log_) {
      r.width = g.width;
      r.instr = g.instr;
      r.warp = g.warp;
      if (shared_.all_whole()) {
        const WarpNow n = warp_now(g.warp);
        const uint32_t words = g.width / 4;
        // What shared_load would do: its words were ever written and none
        // in this epoch when log_load took it, and nothing has touched them
        // since (that would have replayed it), so every lane passes
        // plain_load_ok; only the readers' update is left, lane by lane.
        for (uint32_t l = 0; l < 32; ++l) {
          const uint64_t addr = (l < 16 ? g.a0 : g.a1) + g.stride * (l % 16);
          plain_load_apply(g.warp * 32 + l, static_cast<uint32_t>(addr / 4), words, g.instr, n);
        }
        continue;
      }
      for (uint64_t l = 0; l < 16; ++l) {  // (a split word: shared_load's per-byte path)
        r.addr[l] = g.a0 + g.stride * l;
        r.addr[16 + l] = g.a1 + g.stride * l;
      }
      shared_load(r, std::min(g.a0, g.a1), std::max(g.a0, g.a1) + g.stride * 15);
    }
    log_.clear();
  }

  // Every word of [addr, addr + width) quiet for every thread (quiet_shared).
  bool quiet_for_all(uint64_t addr, unsigned width) const {
    const auto first = static_cast<uint32_t>(addr / 4);
    return quiet_for_all(first, static_cast<uint32_t>((addr + width) / 4 - first),
                         quiet_until_.data(), epoch_);
  }
  // (Of words [first, first + words), as the lanes' loops know them.)
  static bool quiet_for_all(uint32_t first, uint32_t words, const uint32_t* quiet_until,
                            uint32_t epoch) {
    for (uint32_t w = first; w < first + words; ++w)
      if (quiet_until[w] != epoch + 1) return false;
    return true;
  }

  // A shared load of whole words, aligned and inside one variable, by
  // warp `a.warp`; lo and hi: its lowest and highest lane address.
  void shared_load(const emu::MemAccess& a, uint64_t lo, uint64_t hi) {
    // Most shared loads read whole words that need no update (see
    // quiet_read): tested here per lane without the general path's setup.
    // A broadcast (every lane at one address) is one test when its words
    // are quiet for every thread.
    if (lo == hi && compact_ && quiet_for_all(lo, a.width)) return;
    // A whole warp: when the words of the lanes not repeating the lane
    // before or the lane 16 below are all quiet for every thread, the
    // load changes nothing (tests only, so the per-lane loop below stays
    // in lane order when it is needed).
    // (Lane 0 never repeats: its words not quiet, the test fails.)
    if (a.mask == UINT32_MAX && compact_ && quiet_until_[a.addr[0] / 4] == epoch_ + 1) {
      uint32_t repeat = 0;
      for (unsigned l = 1; l < 32; ++l) repeat |= uint32_t{a.addr[l] == a.addr[l - 1]} << l;
      for (unsigned l = 16; l < 32; ++l) repeat |= uint32_t{a.addr[l] == a.addr[l - 16]} << l;
      bool quiet = true;
      for (uint32_t m = ~repeat; quiet && m; m &= m - 1)
        quiet = quiet_for_all(a.addr[__builtin_ctz(m)], a.width);
      if (quiet) return;
    }
    // Lane by lane, in lane order: a lane whose words were written before
    // this epoch or by the lane itself (no hazard, no uninitialized read)
    // takes plain_load, its readers' update without the per-lane path's
    // set-up; any other lane takes shared() itself.
    // A lane whose words are quiet for every thread (quiet_until_, one
    // 4-byte test a word) is skipped: a load leaves them as they are. Only
    // a lane not above every lane before it is tested: lanes that share a
    // word (a row broadcast to groups of lanes) mostly are quiet, once the
    // word's first two readers are recorded, and lanes at increasing
    // addresses pay one compare.
    if (compact_) {
      if (a.width == 4)
        shared_load_lanes<1>(a);
      else
        shared_load_lanes<0>(a);
      return;
    }
    // A lane at the address of the lane before it, or of the lane 16
    // below (a half-warp repeat), whose words were quiet for every thread
    // needs no test: nothing a load does changes that.
    uint32_t all_quiet = 0;      // lanes whose words are quiet for every thread
    uint64_t prev = UINT64_MAX;  // address of the last lane tested
    bool prev_quiet = false;     // its words quiet for every thread
    for (uint32_t m = a.mask; m; m &= m - 1) {
      unsigned lane = static_cast<unsigned>(__builtin_ctz(m));
      uint64_t addr = a.addr[lane];
      if ((addr == prev && prev_quiet) ||
          (lane >= 16 && (all_quiet >> (lane - 16) & 1u) && addr == a.addr[lane - 16])) {
        all_quiet |= 1u << lane;
        prev = addr;
        prev_quiet = true;
        continue;
      }
      prev = addr;
      uint32_t thread = a.warp * 32 + lane;
      Quiet q = Quiet::kAll;
      for (uint64_t w = addr / 4; q != Quiet::kNo && w < (addr + a.width) / 4; ++w)
        q = std::min(q, quiet_shared(static_cast<uint32_t>(w), thread));
      if (q == Quiet::kNo) shared(a, thread, addr, true);
      prev_quiet = q == Quiet::kAll;
      if (prev_quiet) all_quiet |= 1u << lane;
    }
  }

  // shared_load's lane loop (kWords as for warp_store).
  template <uint32_t kWords>
  void shared_load_lanes(const emu::MemAccess& a) {
    const uint32_t words = kWords ? kWords : a.width / 4, base = a.warp * 32;
    const WarpNow n = warp_now(a.warp);
    const emu::InstrInfo* instr = a.instr;
    uint64_t top = 0;  // the highest lane address so far, plus one
    for (uint32_t m = a.mask; m; m &= m - 1) {
      auto lane = static_cast<unsigned>(__builtin_ctz(m));
      const uint64_t addr = a.addr[lane];
      const uint32_t first = static_cast<uint32_t>(addr / 4);
      const bool above = addr >= top;
      top = std::max(top, addr + 1);
      if (!above && quiet_for_all(first, words, n.quiet_until, n.epoch)) continue;
      if (plain_load_ok(base + lane, first, words, n))
        plain_load_apply(base + lane, first, words, instr, n);
      else
        shared(a, base + lane, addr, true);
    }
  }

  void on_barrier(const emu::BarrierArrive& b) override {
    uint32_t missing = b.live_mask & ~b.mask;
    if (b.aligned && missing) {
      report(FindingKind::DivergentBarrier, Severity::Error,
             fmt::format("barrier {} reached by lanes {} of warp {} but not by lanes {} "
                         "(bar.sync must be reached by all non-exited lanes of a warp)",
                         b.barrier, bank::lane_list(b.mask), b.warp, bank::lane_list(missing)),
             b.instr, b.warp * 32 + static_cast<uint32_t>(__builtin_ctz(b.mask | 1u << 31)),
             nullptr, 0, "barrier");
    }
    if (b.aligned && b.kind != emu::BarrierKind::Arrive && exited_ > 0 &&
        b.expected == threads_ - exited_) {
      report(FindingKind::DivergentBarrier, Severity::Error,
             fmt::format("barrier {} waits for the {} threads still running: {} of the block's {} "
                         "threads exited before it (undefined for bar.sync)",
                         b.barrier, b.expected, exited_, threads_),
             b.instr, b.warp * 32, nullptr, 0, "barrier");
    }
    // Different warps at different barrier instructions (within one warp the
    // partial-warp finding above already says it).
    auto& waiting = waiting_[b.barrier];
    if (waiting.empty()) waiting.push_back({b.instr, b.warp});
    const auto& [first, first_warp] = waiting.front();
    if (b.aligned && first != b.instr && first_warp != b.warp)
      report(FindingKind::DivergentBarrier, Severity::Error,
             fmt::format("warps {} and {} wait at barrier {} from different barrier instructions "
                         "(PTX lines {} and {})",
                         first_warp, b.warp, b.barrier, first->ptx_line, b.instr->ptx_line),
             b.instr, b.warp * 32, first, first_warp * 32, "barrier", "other barrier");
  }

  void on_barrier_release(const emu::BarrierRelease& r) override {
    log_.clear();  // (a load's readers only matter until the epoch ends)
    epoch_writes_ = false;
    flush_uninitialized();
    raw_reads_.clear();
    ++epoch_;
    waiting_[r.barrier].clear();
  }

  void on_warp_sync(const emu::WarpSync& w) override {
    ++event_;
    // w.mask holds the lanes at other instructions of the same kind too (the
    // two sides of an if/else execute one collective together since sm_70).
    uint32_t missing = w.member_mask & ~w.mask;
    if (missing)
      report(FindingKind::DivergentBarrier, Severity::Error,
             fmt::format("warp collective '{}' names lanes {} in its member mask, but only lanes "
                         "{} of warp {} execute it (lanes {} exited or never arrive)",
                         w.instr->text, bank::lane_list(w.member_mask), bank::lane_list(w.mask),
                         w.warp, bank::lane_list(missing)),
             w.instr, w.warp * 32 + static_cast<uint32_t>(__builtin_ctz(w.mask | 1u << 31)),
             nullptr, 0, "collective");
    // __syncwarp orders memory between its lanes; other collectives do not.
    if (w.instr->text.rfind("bar.warp.sync", 0) == 0 && w.warp < wepoch_.size()) {
      replay_loads();  // (they read in the warp-sync epoch before this one)
      ++wepoch_[w.warp];
    }
  }

  // (Held-back loads are dropped with the records: BlockRecords::clear.)
  void on_block_end(emu::Dim3) override { flush_uninitialized(); }

  void on_exit(const emu::Exit& e) override {
    exited_ += static_cast<uint32_t>(__builtin_popcount(e.mask));
  }

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
    // in global_shadow_; kFresh: no access to the word's shadow yet.
    uint32_t epoch = 0, aux = 0;
    uint8_t touched = 0, written = 0;  // bytes of the word
    bool after_atomic = false;         // the block had used a global atomic before
    uint8_t state = kFresh;
  };
  static constexpr uint32_t kLineWords = 32;
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
  static constexpr uint16_t kNoThread = 0xffff;
  static constexpr uint32_t kNoWords = UINT32_MAX;
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
  static constexpr uint32_t kNoSecond = UINT32_MAX;
  using Threads = std::array<uint16_t, kLineWords>;
  // The reads of a line's words not yet written in place: what the read
  // line's fields said of them (instruction, epoch and `now`, warp-sync
  // epoch).
  struct InPlace {
    const emu::InstrInfo* instr;
    uint32_t epoch, now, wepoch;
    uint32_t unwritten;  // read words not written yet
  };
  static constexpr unsigned kLineInstrs = 8;
  struct LineInstrs {
    std::array<const emu::InstrInfo*, kLineInstrs> instr;
    unsigned n = 0;
    std::array<uint8_t, kLineWords> of, of2;  // word -> index in `instr`
  };
  // The instruction of word `w`'s first access (or second reader) in
  // compact line `g`.
  const emu::InstrInfo* instr_of(const GlobalLine& g, unsigned w, bool second = false) const {
    if (g.instrs == kNoSecond) return g.instr;
    const LineInstrs& li = global_instrs[g.instrs];
    return li.instr[second ? li.of2[w] : li.of[w]];
  }
  // These and global_shadow_ are members of `records`, handed back to
  // the DefectCheck for the next block when this one is finished.
  std::unique_ptr<BlockRecords> records;
  LineMap& global_lines;                     // 128-byte line -> line slot
  ChunkedVector<GlobalLine>& global_line;    // by line slot
  ChunkedVector<GlobalTouch>& global_touch;  // word records (GlobalLine::words)
  ChunkedVector<Threads>& global_second;     // second readers (GlobalLine::second)
  ChunkedVector<LineInstrs>& global_instrs;  // first readers' instructions (GlobalLine::instrs)
  ChunkedVector<InPlace>& global_in_place;   // reads not yet written back (GlobalLine::in_place)

  // Word `w` of compact line `g` read and not yet written in place: its read.
  const InPlace* read_in_place(const GlobalLine& g, unsigned w) const {
    if (g.in_place == kNoSecond) return nullptr;
    const InPlace& ip = global_in_place[g.in_place];
    return ip.unwritten >> w & 1u ? &ip : nullptr;
  }

  // The barrier epoch of word `w`'s access in compact line `g`: the line's
  // last, or one before it (which the current epoch never equals again).
  static uint32_t epoch_of(const GlobalLine& g, unsigned w) { return epoch_of(g.now, g.epoch, w); }
  // The same from a line's (or an InPlace record's) `now` and epoch.
  static uint32_t epoch_of(uint32_t now, uint32_t epoch, unsigned w) {
    return now >> w & 1u ? epoch : epoch - 1;
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

 private:
  WarpNow warp_now(uint32_t warp) {
    return {epoch_, wepoch_[warp], event_, shared_.view(), quiet_until_.data()};
  }

  // `thread` wrote the word now: the fast store path and the general path
  // record a write the same way.
  void note_write(Shadow& s, uint32_t thread, bool atomic, const emu::InstrInfo* instr) {
    note_write(s, thread, atomic, instr, warp_now(thread / 32));
  }
  void note_write(Shadow& s, uint32_t thread, bool atomic, const emu::InstrInfo* instr,
                  const WarpNow& n) {
    uint32_t warp = thread / 32;
    s.w_lanes = s.w_event == n.event && s.w_thread / 32 == warp ? s.w_lanes : 0;
    s.w_lanes |= 1u << (thread % 32);
    s.written = s.ever_written = true;
    s.w_atomic = atomic;
    s.w_thread = thread;
    s.w_epoch = n.epoch;
    s.w_wepoch = n.wepoch;
    s.w_event = n.event;
    s.w_instr = instr;
    s.read = s.r2 = false;
  }

  struct PendingRead {
    uint32_t thread;
    const emu::InstrInfo* instr;
    emu::MemOp op;
  };

  void flush_uninitialized() {
    for (const auto& [byte, r] : pending_uninit_)
      report(FindingKind::Uninitialized, Severity::Error,
             fmt::format("shared read of byte {} that no thread of block {} has written", byte,
                         dim_text(block_)),
             r.instr, r.thread, nullptr, 0, role(r.op));
    pending_uninit_.clear();
  }

  static const char* role(emu::MemOp op) {
    switch (op) {
      case emu::MemOp::Load:
      case emu::MemOp::CpAsyncLoad:
        return "read";
      case emu::MemOp::Store:
      case emu::MemOp::CpAsyncStore:
        return "write";
      default:
        return "atomic";
    }
  }

  // Findings repeat (every lane, every loop iteration): the block keeps
  // one per (kind, instructions, roles) with a count, so memory stays
  // bounded however long the kernel runs. DefectCheck::add merges the same
  // way across blocks, so the result is the same as keeping every one.
  void report(FindingKind kind, Severity sev, const std::string& msg, const emu::InstrInfo* instr,
              uint32_t thread, const emu::InstrInfo* other = nullptr, uint32_t other_thread = 0,
              const char* role_a = "at", const char* role_b = "earlier",
              const emu::InstrInfo* plain_read = nullptr) {
    auto key = std::make_tuple(kind, instr, other, std::string(role_a),
                               other ? std::string(role_b) : std::string());
    if (plain_read) {
      auto [it, fresh] = deferred_seen_.try_emplace(key, deferred.size());
      if (!fresh) {
        ++deferred[it->second].second.count;
        return;
      }
    } else if (instr) {  // without an instruction the message tells findings apart
      auto [it, fresh] = seen_.try_emplace(std::move(key), findings.size());
      if (!fresh) {
        ++findings[it->second].count;
        return;
      }
    }
    Finding f;
    f.kind = kind;
    f.severity = sev;
    f.message = msg;
    if (other) f.involved.push_back(involved(role_b, owner_.kernel_, other, block_, other_thread));
    f.involved.push_back(involved(role_a, owner_.kernel_, instr, block_, thread));
    f.where = f.involved.back().where;
    if (plain_read)
      deferred.emplace_back(plain_read, std::move(f));
    else
      findings.push_back(std::move(f));
  }

  // Asked per lane of every atomic: the answer for the last instruction is kept.
  bool is_cas(const emu::InstrInfo* i) {
    if (i != cas_instr_) {
      cas_instr_ = i;
      cas_ = i->text.find(".cas") != std::string::npos;
    }
    return cas_;
  }

  // `thread` executes a CAS on `byte`: a plain read it made of the byte
  // earlier in this barrier epoch (recorded in the shadow, or held back as
  // the read side of a RAW with an atomic) is a CAS loop's read.
  // The CAS subsumes the read: the slot becomes the CAS's atomic read, free
  // for a later plain read of the byte that may race.
  void validate_cas_reads(Shadow& s, const emu::InstrInfo* cas, emu::Space space, uint32_t thread,
                          uint64_t byte) {
    if (s.read && s.r_epoch == epoch_) {
      if (s.r_thread == thread && !s.r_atomic) {
        validated.insert(s.r_instr);
        s.r_atomic = true;
        s.r_instr = cas;
      }
      if (s.r2 && s.r2_thread == thread && !s.r2_atomic) {
        validated.insert(s.r2_instr);
        s.r2_atomic = true;
        s.r2_instr = cas;
      }
    }
    if (raw_reads_.empty()) return;
    auto it = raw_reads_.find(std::make_tuple(space, thread, byte));
    if (it == raw_reads_.end()) return;
    validated.insert(it->second);
    raw_reads_.erase(it);
  }

  // A plain read of `s` by `thread` that needs nothing done: the byte was
  // written (so not uninitialized), not in this barrier epoch (so no RAW),
  // and this epoch's readers are recorded already (this thread, or two
  // others). The general path in hazards() would report and record nothing.
  bool quiet_global_read(const Shadow& s, uint32_t thread) const {
    return quiet_global_read(s, thread, epoch_);
  }
  static bool quiet_global_read(const Shadow& s, uint32_t thread, uint32_t epoch) {
    return s.read && s.r_epoch == epoch && (s.r2 || s.r_thread == thread) &&
           !(s.written && s.w_epoch == epoch);
  }
  bool quiet_read(const Shadow& s, uint32_t thread) const { return quiet_read(s, thread, epoch_); }
  static bool quiet_read(const Shadow& s, uint32_t thread, uint32_t epoch) {
    return s.ever_written && quiet_global_read(s, thread, epoch);
  }
  // quiet_read of a whole shared word. A word quiet for two readers of this
  // epoch (r2) is quiet for every thread until the epoch ends or the word
  // is written or split: quiet_until_ notes that, one 4-byte test per lane
  // instead of the word's 96-byte record.
  enum class Quiet { kNo, kThread, kAll };  // ordered: min() of words
  Quiet quiet_shared(uint32_t w, uint32_t thread) {
    if (quiet_until_[w] == epoch_ + 1) return Quiet::kAll;
    if (!shared_.whole(w)) return Quiet::kNo;
    const Shadow& s = shared_.word(w);
    if (!quiet_read(s, thread)) return Quiet::kNo;
    if (!s.r2 || !compact_) return Quiet::kThread;
    quiet_until_[w] = epoch_ + 1;
    return Quiet::kAll;
  }

  // `in_bounds`: the whole warp's access is known to be inside one variable.
  void shared(const emu::MemAccess& a, uint32_t thread, uint64_t addr, bool in_bounds) {
    if (!in_bounds && !in_shared_bounds(addr, a.width)) {
      report(FindingKind::OutOfBounds, Severity::Error,
             fmt::format("shared {} of {} bytes at offset {} is outside every shared variable{}",
                         role(a.op), a.width, addr, nearest(addr)),
             a.instr, thread, nullptr, 0, role(a.op));
      return;
    }
    // A cp.async's shared side only writes (its read is of global memory).
    // cp.async's shared half only writes (its global half only reads): it is
    // neither a read of the bytes it fills nor an atomic.
    bool reads = a.op != emu::MemOp::Store && a.op != emu::MemOp::CpAsyncStore;
    bool writes = a.op != emu::MemOp::Load && a.op != emu::MemOp::CpAsyncLoad;
    if (writes || addr % 4 != 0 || a.width % 4 != 0)  // may write or split its words
      for (uint64_t w = addr / 4; w <= (addr + a.width - 1) / 4; ++w) quiet_until_[w] = 0;
    if (compact_ && a.op == emu::MemOp::Store && addr % 4 == 0 && a.width % 4 == 0 &&
        pending_uninit_.empty() && plain_store(a, thread, addr)) {
      note_written_whole(addr, a.width);
      return;
    }
    if (compact_ && a.op == emu::MemOp::Load && addr % 4 == 0 && a.width % 4 == 0 &&
        plain_load(a, thread, addr))
      return;
    hazards(a, thread, addr, reads, writes, shared_,
            [](uint64_t word, uint64_t, uint64_t) { return static_cast<uint32_t>(word); });
    if (writes) note_written_whole(addr, a.width);
  }

  // Words of [addr, addr + width) whose four bytes have now all been
  // written: counted off their variable's unwritten words (log_load).
  void note_written_whole(uint64_t addr, uint32_t width) {
    for (uint64_t w = addr / 4; w <= (addr + width - 1) / 4; ++w)
      if (!written_whole_[w]) note_word_written_whole(static_cast<uint32_t>(w));
  }
  [[gnu::noinline]] void note_word_written_whole(uint32_t w) {
    if (shared_.ever_written(w)) {
      written_whole_[w] = 1;
      if (var_of_word_[w] != kNoVar) --unwritten_[var_of_word_[w]];
    }
  }

  // An access of `thread` to a word `other` accessed earlier in this
  // barrier epoch (in `other`'s warp-sync epoch `other_wepoch`) is no
  // hazard when it is the same thread, or a lane of the same warp with a
  // __syncwarp() between (hazards()'s conflict() reports nothing then).
  bool ordered(uint32_t thread, uint32_t other, uint32_t other_wepoch) const {
    return ordered(thread, other, other_wepoch, wepoch_[thread / 32]);
  }
  // (`wepoch`: the warp-sync epoch of `thread`'s warp.)
  static bool ordered(uint32_t thread, uint32_t other, uint32_t other_wepoch, uint32_t wepoch) {
    return other == thread || (other / 32 == thread / 32 && other_wepoch != wepoch);
  }

  // A plain store to a whole shared word that needs only note_write: no
  // access of this barrier epoch by another thread unordered with it (a
  // thread filling its own slot; a warp-synchronous step after __syncwarp()).
  bool store_needs_no_test(const Shadow& s, uint32_t thread) {
    return store_needs_no_test(s, thread, warp_now(thread / 32));
  }
  static bool store_needs_no_test(const Shadow& s, uint32_t thread, const WarpNow& n) {
    if (s.written && s.w_epoch == n.epoch && !ordered(thread, s.w_thread, s.w_wepoch, n.wepoch))
      return false;
    return !(s.read && s.r_epoch == n.epoch) ||
           (ordered(thread, s.r_thread, s.r_wepoch, n.wepoch) &&
            (!s.r2 || ordered(thread, s.r2_thread, s.r2_wepoch, n.wepoch)));
  }

  // A plain store of whole shared words that store_needs_no_test allows:
  // what hazards() does to them without its per-byte setup; false (nothing
  // done) else.
  bool plain_store(const emu::MemAccess& a, uint32_t thread, uint64_t addr) {
    uint32_t first = static_cast<uint32_t>(addr / 4), end = first + a.width / 4;
    for (uint32_t w = first; w < end; ++w)
      if (!shared_.whole(w) || !store_needs_no_test(shared_.word(w), thread)) return false;
    for (uint32_t w = first; w < end; ++w) note_write(shared_.word(w), thread, false, a.instr);
    return true;
  }

  // A plain load of whole shared words written before this barrier epoch,
  // or by this thread, or by a plain store of a lane of its warp before a
  // __syncwarp() (no RAW, not uninitialized; an atomic writer would hold
  // the read back, see hazards()): hazards()'s reader update without its
  // per-byte setup; false (nothing done) else.
  bool plain_load(const emu::MemAccess& a, uint32_t thread, uint64_t addr) {
    return plain_load(a, thread, addr, warp_now(thread / 32));
  }
  bool plain_load(const emu::MemAccess& a, uint32_t thread, uint64_t addr, const WarpNow& n) {
    const uint32_t first = static_cast<uint32_t>(addr / 4), words = a.width / 4;
    if (!plain_load_ok(thread, first, words, n)) return false;
    plain_load_apply(thread, first, words, a.instr, n);
    return true;
  }
  // (Of the words [first, first + words), as the lanes' loops know them.)
  static bool plain_load_ok(uint32_t thread, uint32_t first, uint32_t words, const WarpNow& n) {
    for (uint32_t w = first; w < first + words; ++w) {
      if (!n.shared.whole(w)) return false;
      const Shadow& s = n.shared.word(w);
      if (!s.ever_written || (s.written && s.w_epoch == n.epoch &&
                              (s.w_atomic ? s.w_thread != thread
                                          : !ordered(thread, s.w_thread, s.w_wepoch, n.wepoch))))
        return false;
    }
    return true;
  }
  // (Inlined: it runs per lane, and the call cost more than its common case.)
  [[gnu::always_inline]] static void plain_load_apply(uint32_t thread, uint32_t first,
                                                      uint32_t words, const emu::InstrInfo* instr,
                                                      const WarpNow& n) {
    const uint32_t epoch = n.epoch, wepoch = n.wepoch;
    for (uint32_t w = first; w < first + words; ++w) {
      Shadow& s = n.shared.word(w);
      if (quiet_read(s, thread, epoch)) continue;  // hazards() leaves these as they are
      // (A word this read gives its second reader is quiet for every thread
      // from now on: noted as quiet_shared notes it, for the warp-wide test.)
      if (s.read && s.r_epoch == epoch && s.r_thread != thread && !s.r2 &&
          !(s.written && s.w_epoch == epoch))
        n.quiet_until[w] = epoch + 1;
      if (!s.read || s.r_epoch != epoch) {
        s.read = true;
        s.r2 = false;
        s.r_atomic = false;
        s.r_thread = thread;
        s.r_epoch = epoch;
        s.r_wepoch = wepoch;
        s.r_instr = instr;
      } else if (s.r_thread != thread && !s.r2) {
        s.r2 = true;
        s.r2_atomic = false;
        s.r2_thread = thread;
        s.r2_wepoch = wepoch;
        s.r2_instr = instr;
      } else {  // as hazards(): a plain read takes a slot an atomic read holds
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
  }

  // RAW/WAR/WAW hazards between threads of the block over the bytes of one
  // lane's access, on shared memory (and its `uninitialized` reads) or on
  // global memory; `slot_of(word, lo, hi)` numbers the access's words in
  // `mem` (bytes [lo, hi) of `word` accessed), or says kSettled: it has
  // applied the access to the word itself (a compact record) and found no
  // hazard.
  template <class SlotOf>
  void hazards(const emu::MemAccess& a, uint32_t thread, uint64_t addr, bool reads, bool writes,
               ShadowWords& mem, SlotOf slot_of) {
    bool atomic = reads && writes;
    bool is_shared = a.space == emu::Space::Shared;
    uint32_t warp = thread / 32;
    // At most one finding per lane access: the first hazard over its bytes.
    bool reported = false;
    // `plain_read`: the plain load of a plain-read-vs-atomic-write pair (a
    // CAS loop's first read, perhaps): held back until the kernel ends.
    auto conflict = [&](const char* what, const char* earlier, uint32_t other,
                        uint32_t other_wepoch, const emu::InstrInfo* other_instr, uint64_t byte,
                        const emu::InstrInfo* plain_read = nullptr) {
      if (reported) return;
      bool same_warp = other / 32 == warp;
      if (same_warp && other_wepoch != wepoch_[warp]) return;  // a __syncwarp() between
      reported = true;
      report(same_warp ? FindingKind::WarpRace : FindingKind::Race,
             same_warp ? Severity::Warning : Severity::Error,
             fmt::format("{} hazard on {} between thread {} and thread {} of block {}: no {} "
                         "between the two accesses",
                         what,
                         is_shared ? fmt::format("shared byte {}", byte)
                                   : fmt::format("global byte {:#x}", byte),
                         other, thread, dim_text(block_), same_warp ? "__syncwarp()" : "barrier"),
             a.instr, thread, other_instr, other, role(a.op), earlier, plain_read);
    };
    bool plain_load = a.op == emu::MemOp::Load;
    bool cas = atomic && a.op == emu::MemOp::Atomic && is_cas(a.instr);
    auto visit = [&](Shadow& s, uint64_t byte) {
      if (!writes && (is_shared ? quiet_read(s, thread) : quiet_global_read(s, thread))) return;
      if (cas) validate_cas_reads(s, a.instr, a.space, thread, byte);
      // A lane that wrote the byte itself in the writing instruction (all
      // lanes storing one value) reads its own write, whichever lane won.
      bool self_wrote = s.w_thread / 32 == warp && (s.w_lanes >> (thread % 32) & 1u);
      bool other_wrote = s.written && s.w_epoch == epoch_ && s.w_thread != thread &&
                         s.w_event != event_ && !self_wrote && !(atomic && s.w_atomic);
      if (is_shared && reads && !s.ever_written && !reported && !pending_uninit_.count(byte)) {
        // Held until the barrier epoch ends: if another thread writes the
        // byte in this epoch, the read merely ran ahead of it (a race,
        // reported as such) rather than reading memory nobody writes.
        pending_uninit_[byte] = {thread, a.instr, a.op};
        reported = true;
      }
      if (other_wrote) {
        bool deferred = plain_load && s.w_atomic;
        if (deferred) raw_reads_.try_emplace(std::make_tuple(a.space, thread, byte), a.instr);
        conflict(writes && !atomic ? "WAW" : "RAW", "write", s.w_thread, s.w_wepoch, s.w_instr,
                 byte, deferred ? a.instr : nullptr);
      }
      // Both readers: the first may be ordered before this write by a
      // __syncwarp() of its warp while the second (another warp) is not.
      if (writes && s.read && s.r_epoch == epoch_) {
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
        note_write(s, thread, atomic, a.instr);
      }
      if (reads) {
        if (!s.read || s.r_epoch != epoch_) {
          s.read = true;
          s.r2 = false;
          s.r_atomic = atomic;
          s.r_thread = thread;
          s.r_epoch = epoch_;
          s.r_wepoch = wepoch_[warp];
          s.r_instr = a.instr;
        } else if (s.r_thread != thread && !s.r2) {
          s.r2 = true;
          s.r2_atomic = atomic;
          s.r2_thread = thread;
          s.r2_wepoch = wepoch_[warp];
          s.r2_instr = a.instr;
        } else if (!atomic) {
          // Only plain reads race with atomic writes: one takes a slot held
          // by an atomic read (this thread's own first, as a slot per thread).
          bool own_r = s.r_thread == thread, own_r2 = s.r2 && s.r2_thread == thread;
          if (s.r_atomic && (own_r || !own_r2)) {
            s.r_atomic = false;
            s.r_thread = thread;
            s.r_wepoch = wepoch_[warp];
            s.r_instr = a.instr;
          } else if (s.r2 && s.r2_atomic && !own_r) {
            s.r2_atomic = false;
            s.r2_thread = thread;
            s.r2_wepoch = wepoch_[warp];
            s.r2_instr = a.instr;
          }
        }
      }
    };
    for (uint64_t word = addr / 4; word <= (addr + a.width - 1) / 4; ++word) {
      uint64_t lo = std::max(addr, word * 4), hi = std::min(addr + a.width, word * 4 + 4);
      uint32_t slot = slot_of(word, lo, hi);
      if (slot == kSettled) continue;
      if (mem.whole(slot) && hi - lo == 4) {
        visit(mem.word(slot), lo);
        continue;
      }
      for (uint64_t byte = lo; byte < hi; ++byte) visit(mem.byte(slot, byte % 4), byte);
    }
  }

  // Written so that no sum wraps: addresses near 2^64 are out of bounds.
  bool in_shared_bounds(uint64_t addr, uint64_t width) const {
    auto inside = [&](uint64_t start, uint64_t size) {
      return addr >= start && width <= size && addr - start <= size - width;
    };
    const MemoryLayout& L = owner_.layout_;
    for (const SharedVar& v : L.shared)
      if (inside(v.offset, v.size)) return true;
    return owner_.kernel_.dynamic_shared > 0 &&
           inside(L.dynamic_offset, owner_.kernel_.dynamic_shared);
  }

  std::string nearest(uint64_t addr) const {
    const MemoryLayout& L = owner_.layout_;
    for (const SharedVar& v : L.shared)
      if (addr >= v.offset && addr < uint64_t{v.offset} + v.size + 64)
        return fmt::format(" (byte {} past the start of '{}', which has {} bytes)", addr - v.offset,
                           v.name, v.size);
    if (addr >= L.dynamic_offset)
      return fmt::format(" (byte {} of the dynamic window, which has {} bytes at launch)",
                         addr - L.dynamic_offset, owner_.kernel_.dynamic_shared);
    return "";
  }

  void local(const emu::MemAccess& a, uint32_t thread, uint64_t addr) {
    if (addr + a.width > owner_.layout_.frame_bytes)
      report(FindingKind::OutOfBounds, Severity::Error,
             fmt::format("local {} of {} bytes at frame offset {} is outside the thread's {}-byte "
                         "frame",
                         role(a.op), a.width, addr, owner_.layout_.frame_bytes),
             a.instr, thread, nullptr, 0, role(a.op));
  }

  void global(const emu::MemAccess& a, uint32_t thread, uint64_t addr) {
    bool reads = a.op != emu::MemOp::Store,
         writes = a.op != emu::MemOp::Load && a.op != emu::MemOp::CpAsyncLoad;
    // cp.async reads global memory like a load (its shared half is the write).
    bool plain =
        a.op == emu::MemOp::Load || a.op == emu::MemOp::Store || a.op == emu::MemOp::CpAsyncLoad;
    // Atomics don't race between blocks; once a block has used one, its
    // later accesses are taken to follow the kernel's own inter-block
    // protocol (last-block-done, tickets) and are not reported.
    if (!plain) atomic_seen_ = true;
    bool plain_read = a.op == emu::MemOp::Load || a.op == emu::MemOp::CpAsyncLoad;
    uint32_t warp = thread / 32;
    hazards(a, thread, addr, reads, writes, global_shadow_,
            [&](uint64_t word, uint64_t lo, uint64_t hi) {
              uint64_t line = word / kLineWords;
              if (line != last_line_ || !has_line_) {
                last_g_ = &line_of(line);
                last_base_ = words_of(*last_g_);
                last_line_ = line;
                has_line_ = true;
              }
              GlobalTouch& t = global_touch[last_base_ + static_cast<uint32_t>(word % kLineWords)];
              // What hazards() would do to a fresh word, or to one this
              // thread alone read (once, or again in this epoch or from the
              // same instruction): record the read, report nothing.
              uint32_t shadow = kSettled;
              if (compact_ && plain_read && hi - lo == 4 && t.state == kFresh) {
                t.state = kReadOnce;
                t.epoch = epoch_;
                t.aux = wepoch_[warp];
              } else if (compact_ && plain_read && hi - lo == 4 && t.state == kReadOnce &&
                         t.thread == thread && (t.epoch == epoch_ || t.instr == a.instr)) {
                if (t.epoch != epoch_) {
                  t.epoch = epoch_;
                  t.aux = wepoch_[warp];
                }
              } else {
                shadow = full_record(t);
                if (!(plain_read && hi - lo == 4))  // may end its quiet (quiet_global)
                  last_g_->quiet &= ~(1u << (word % kLineWords));
              }
              if (plain) {
                auto bytes = static_cast<uint8_t>(((1u << (hi - lo)) - 1u) << (lo - word * 4));
                bool write = a.op == emu::MemOp::Store;
                if (!t.touched || (write && !t.written)) {  // first access, then first write
                  t.after_atomic = atomic_seen_;
                  t.instr = a.instr;
                  t.thread = thread;
                }
                t.touched |= bytes;
                if (write) t.written |= bytes;
              }
              return shadow;
            });
    if (compact_ && plain_read && addr % 4 == 0 && a.width % 4 == 0)
      note_quiet_global(addr, a.width / 4);
  }

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
    if (!has_line_ || last_g_->quiet_epoch != epoch_ + 1) return false;
    for (uint64_t w = addr / 4; w < addr / 4 + words; ++w)
      if (w / kLineWords != last_line_ || !(last_g_->quiet >> (w % kLineWords) & 1u)) return false;
    return true;
  }
  // After a plain load of whole words at `addr` (in the last line looked up).
  void note_quiet_global(uint64_t addr, uint32_t words) {
    for (uint64_t w = addr / 4; w < addr / 4 + words; ++w) {
      if (w / kLineWords != last_line_) return;
      const GlobalTouch& t = global_touch[last_base_ + static_cast<uint32_t>(w % kLineWords)];
      if (t.state != kFull || !global_shadow_.whole(t.aux)) continue;
      const Shadow& s = global_shadow_.word(t.aux);
      if (!s.r2 || !quiet_global_read(s, s.r_thread)) continue;
      if (last_g_->quiet_epoch != epoch_ + 1) {
        last_g_->quiet = 0;
        last_g_->quiet_epoch = epoch_ + 1;
      }
      last_g_->quiet |= 1u << (w % kLineWords);
    }
  }

  GlobalLine& line_of(uint64_t line) {
    uint32_t l = global_lines.slot(line);
    if (l == global_line.size()) global_line.emplace_back();
    return global_line[l];
  }

  // The first of line `g`'s word records, made (from its compact form) if new.
  uint32_t words_of(GlobalLine& g) {
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
        Shadow& s = global_shadow_.word(i);
        if (!g.write) {  // a second reader (the loop only gets here with one)
          s.r2 = true;
          s.r2_atomic = false;
          s.r2_thread = global_second[g.second][w];
          s.r2_wepoch = g.wepoch2;
          s.r2_instr = instr_of(g, w, true);
          continue;
        }
        s.written = s.ever_written = true;
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

  // A plain load or store of whole aligned words: the lines where it
  // continues a coalesced stream (see GlobalLine) take it here, as the
  // per-word path would (a fresh word becomes read once by its thread, or
  // written once; a re-read by the same thread in the same epoch changes
  // nothing); returns the lanes left for the per-lane path. No finding can
  // come from the lines taken here, so taking them first leaves the
  // findings and their order unchanged.
  uint32_t global_stream(const emu::MemAccess& a) {
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
          if (!stream_line(a, a.addr[l] / (4 * kLineWords), in_line, true, in_words))
            rest |= in_line;
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
  static bool broadcast(const emu::MemAccess& a) {
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
  bool stream_line(const emu::MemAccess& a, uint64_t line, uint32_t in_line, bool distinct,
                   uint32_t in_words = 0) {
    const bool write = a.op == emu::MemOp::Store;
    const uint32_t wepoch = wepoch_[a.warp], words = a.width / 4u;
    GlobalLine& g = line_of(line);
    bool fresh = g.words == kNoWords && !g.compact;
    if (fresh) {
      g.compact = true;
      g.write = write;
      g.instr = a.instr;
      g.epoch = epoch_;
      g.wepoch = wepoch;
      g.now = 0;
      g.after_atomic = atomic_seen_;
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
        if (write) g.event = event_;
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
        if (write) g.event = event_;
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
  // words the store leaves read keep their reads in global_in_place until
  // written. False: nothing done (the per-word path takes it).
  bool stream_in_place(const emu::MemAccess& a, GlobalLine& g, uint32_t in_line) {
    const uint32_t wepoch = wepoch_[a.warp], words = a.width / 4u;
    const bool first = !g.write;
    if (g.after_atomic != atomic_seen_) return false;
    if (first ? g.has2() || g.instrs != kNoSecond
              : g.instr != a.instr || g.epoch != epoch_ || g.wepoch != wepoch)
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
      if (uint32_t left = DefectCheck::present(g.thread) & ~written) {
        g.in_place = static_cast<uint32_t>(global_in_place.size());
        global_in_place.emplace_back() = {g.instr, g.epoch, g.now, g.wepoch, left};
      }
      g.write = true;
      g.instr = a.instr;
      g.epoch = epoch_;
      g.wepoch = wepoch;
      g.now = 0;
    } else if (uint32_t& left = global_in_place[g.in_place].unwritten; (left &= ~written) == 0) {
      g.in_place = kNoSecond;  // a write line like any other from now on
    }
    g.now |= written;
    g.event = event_;
    return true;
  }

  // What both line steps test first: whether line `g` can take lanes
  // `in_line` of `a` at all (kNo: the per-word path), or they only read
  // words with two readers already (kDone: nothing to do); `in_words`, when
  // not 0, the words they access. A compact line moves to a later epoch
  // only without second readers (they hold the epoch).
  enum class Step { kNo, kDone, kGo };
  Step line_step(const emu::MemAccess& a, const GlobalLine& g, uint32_t in_line,
                 uint32_t in_words) const {
    const bool write = a.op == emu::MemOp::Store;
    if (!g.compact || g.write != write || g.after_atomic != atomic_seen_ || g.in_place != kNoSecond)
      return Step::kNo;
    if (g.epoch != epoch_ && g.has2()) return Step::kNo;
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
  int line_instr(GlobalLine& g, const emu::InstrInfo* instr) {
    if (g.instr == instr) return 0;
    const bool multi = g.instrs != kNoSecond;
    const unsigned n = multi ? global_instrs[g.instrs].n : 1;
    for (unsigned i = 1; i < n; ++i)
      if (global_instrs[g.instrs].instr[i] == instr) return static_cast<int>(i);
    if (n == kLineInstrs) return -1;
    if (!multi) {
      g.instrs = static_cast<uint32_t>(global_instrs.size());
      LineInstrs& made = global_instrs.emplace_back();
      made.instr[0] = g.instr;
      made.n = 1;
      made.of.fill(0);
      made.of2.fill(0);
    }
    LineInstrs& grown = global_instrs[g.instrs];
    grown.instr[grown.n++] = instr;
    return static_cast<int>(n);
  }

  // stream_line_distinct for one lane's one word (a strided access, as a
  // column of a row-major array: a line per lane): the same steps without
  // the loops over lanes and words. A second reader takes the general step.
  bool stream_word(const emu::MemAccess& a, GlobalLine& g, unsigned lane) {
    const bool write = a.op == emu::MemOp::Store;
    const auto w = static_cast<unsigned>(a.addr[lane] / 4 % kLineWords);
    if (Step st = line_step(a, g, 1u << lane, 1u << w); st != Step::kGo) return st == Step::kDone;
    const auto thread = static_cast<uint16_t>(a.warp * 32 + lane);
    const uint32_t wepoch = wepoch_[a.warp];
    const bool moved = g.epoch != epoch_;
    const uint32_t now = moved ? 0 : g.now;
    const uint16_t t = g.thread[w];
    const bool cur = now >> w & 1u;
    if (t == kNoThread || (t == thread && (!cur || write))) {  // a first access (again)
      if (t != kNoThread && instr_of(g, w) != a.instr) return false;
      if (!moved && g.wepoch != wepoch) return false;
      const int index = line_instr(g, a.instr);
      if (index < 0) return false;
      if (moved) {  // (epochs only grow)
        g.epoch = epoch_;
        g.wepoch = wepoch;
      }
      g.now = now | 1u << w;
      g.thread[w] = thread;
      if (t == kNoThread && g.instrs != kNoSecond)
        global_instrs[g.instrs].of[w] = static_cast<uint8_t>(index);
      if (write) g.event = event_;
      return true;
    }
    if (t == thread || (!write && cur && g.has2() && global_second[g.second][w] != kNoThread))
      return true;  // nothing changes
    return stream_line_distinct(a, g, 1u << lane, 0);
  }

  // stream_line_general for lanes that each access their own words (a
  // strided store's one lane per line, a stream's next warp): no word's
  // step depends on another lane's, so the words are tested first and
  // changed in place after, without copying the line.
  bool stream_line_distinct(const emu::MemAccess& a, GlobalLine& g, uint32_t in_line,
                            uint32_t in_words) {
    const bool write = a.op == emu::MemOp::Store;
    const uint32_t wepoch = wepoch_[a.warp], words = a.width / 4u;
    if (Step st = line_step(a, g, in_line, in_words); st != Step::kGo) return st == Step::kDone;
    const bool same = g.instr == a.instr, moved = g.epoch != epoch_;
    const uint32_t now = moved ? 0 : g.now;
    const uint16_t* second = g.has2() ? global_second[g.second].data() : nullptr;
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
          if (instr_of(g, w) != a.instr) return false;
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
      g.epoch = epoch_;
      g.wepoch = wepoch;
    }
    g.now = now | firsts;
    LineInstrs* li = g.instrs != kNoSecond ? &global_instrs[g.instrs] : nullptr;
    if (seconds && !g.has2()) {
      g.second = static_cast<uint32_t>(global_second.size());
      global_second.emplace_back().fill(kNoThread);
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
          global_second[g.second][w] = thread;
          if (li) li->of2[w] = static_cast<uint8_t>(index);
        }
      }
    }
    g.two |= seconds;
    if (write) g.event = event_;
    return true;
  }

  // stream_line for a line that is not fresh, or lanes that may share words.
  [[gnu::noinline]] bool stream_line_general(const emu::MemAccess& a, GlobalLine& g,
                                             uint32_t in_line) {
    const bool write = a.op == emu::MemOp::Store;
    const uint32_t wepoch = wepoch_[a.warp], words = a.width / 4u;
    if (Step st = line_step(a, g, in_line, 0); st != Step::kGo) return st == Step::kDone;
    // What the per-word path would do to each word, lane by lane in lane
    // order (lanes may share words), on copies of the line: a first access
    // (or its own thread's again in a later epoch) from the line's
    // instruction, which must keep the line's warp-sync epoch within one
    // barrier epoch; a second reader; nothing (its own thread again in
    // this epoch, or a word with two readers already). Anything else: the
    // per-word path. The line moves to a later epoch only without second
    // readers (they hold the epoch).
    const bool same = g.instr == a.instr, moved = g.epoch != epoch_, multi = g.instrs != kNoSecond;
    LineInstrs li;
    if (multi) {
      li = global_instrs[g.instrs];
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
      second = global_second[g.second];
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
      g.epoch = epoch_;
      g.wepoch = wepoch;
    }
    g.thread = first;
    g.now = now;
    if (li.n > 1) {
      if (!multi) {
        g.instrs = static_cast<uint32_t>(global_instrs.size());
        global_instrs.emplace_back();
      }
      global_instrs[g.instrs] = li;
    }
    if (has2) {
      if (!g.has2()) {
        g.second = static_cast<uint32_t>(global_second.size());
        global_second.emplace_back();
      }
      g.wepoch2 = wepoch2;
      global_second[g.second] = second;
      g.two = two;
    }
    if (write) g.event = event_;
    return true;
  }

  // The full shadow record of a global word, made from its compact state.
  // Called before the access updates `t.instr`/`t.thread` (a first write
  // takes them over).
  uint32_t full_record(GlobalTouch& t) {
    if (t.state == kFull) return t.aux;
    auto i = static_cast<uint32_t>(global_shadow_.size());
    global_shadow_.add(1);
    if (t.state == kReadOnce) {
      Shadow& s = global_shadow_.word(i);
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

 public:
  std::vector<Finding> findings;
  // Races whose read side is a plain load racing only with atomic writes,
  // by that load; and the loads seen to be CAS-loop reads. Settled when the
  // kernel ends (DefectCheck::on_kernel_end), as one block may show a
  // load's race and another that the load feeds a CAS.
  std::vector<std::pair<const emu::InstrInfo*, Finding>> deferred;
  std::set<const emu::InstrInfo*> validated;

 private:
  DefectCheck& owner_;
  emu::Dim3 block_;
  bool compact_;  // DefectCheck::fast_paths_: compact global records, quiet-word notes
  // The shared-memory shadow (members of `records`, as the global ones).
  ShadowWords& shared_;
  // By shared word: epoch + 1 while the word is quiet for every reader
  // (quiet_shared), else anything else.
  std::vector<uint32_t>& quiet_until_;
  // Loads held back by log_load, in event order.
  std::vector<LoggedLoad>& log_;
  // By shared word: the variable holding it whole (layout order, the
  // dynamic window last; kNoVar: none, or a partial word), and whether all
  // its bytes were written; by variable: its words not yet written whole.
  std::vector<uint16_t>& var_of_word_;
  std::vector<uint8_t>& written_whole_;
  std::vector<uint32_t>& unwritten_;
  uint32_t threads_ = 0, exited_ = 0, epoch_ = 0;
  bool atomic_seen_ = false;
  const emu::InstrInfo* cas_instr_ = nullptr;
  bool cas_ = false;
  uint64_t event_ = 0;
  static constexpr size_t kMaxLog = 4096;
  static constexpr uint64_t kMaxStride = 1u << 20;
  bool epoch_writes_ = false;  // this barrier epoch had a shared access that writes
  static constexpr uint16_t kNoVar = UINT16_MAX;
  bool overlap_ = false;  // variables share words: test word by word
  uint32_t shared_bytes_ = 0;
  ShadowWords& global_shadow_;  // full records of global words (GlobalTouch::aux)
  static constexpr uint32_t kSettled = UINT32_MAX;  // see hazards()
  // The line of the last global lookup, its first record and itself.
  GlobalLine* last_g_ = nullptr;
  uint64_t last_line_ = 0;
  uint32_t last_base_ = 0;
  bool has_line_ = false;
  std::vector<uint32_t> wepoch_;
  // Per barrier id: the first waiter of the current epoch (instruction, warp).
  std::map<uint32_t, std::vector<std::pair<const emu::InstrInfo*, uint32_t>>> waiting_;
  std::map<uint64_t, PendingRead> pending_uninit_;  // byte -> first read of it, unwritten
  // report()'s merge key -> index in findings.
  std::map<std::tuple<FindingKind, const emu::InstrInfo*, const emu::InstrInfo*, std::string,
                      std::string>,
           size_t>
      seen_, deferred_seen_;
  // (space, thread, byte) -> the plain load held back as a RAW with an
  // atomic write in this barrier epoch, until the thread CASes the byte.
  std::map<std::tuple<emu::Space, uint32_t, uint64_t>, const emu::InstrInfo*> raw_reads_;
};

struct BlockRecords {
  LineMap lines;
  ChunkedVector<BlockDefects::GlobalLine> line;
  ChunkedVector<BlockDefects::GlobalTouch> touch;
  ChunkedVector<BlockDefects::Threads> second;
  ChunkedVector<BlockDefects::LineInstrs> instrs;
  ChunkedVector<BlockDefects::InPlace> in_place;
  ShadowWords shadow;
  // The shared-memory side (BlockDefects::on_block_begin sizes and resets it).
  ShadowWords shared;  // slot = shared word (offset / 4)
  std::vector<uint32_t> quiet_until;
  std::vector<LoggedLoad> log;
  std::vector<uint16_t> var_of_word;
  std::vector<uint8_t> written_whole;
  std::vector<uint32_t> unwritten;

  // The memory held, roughly (the larger parts).
  size_t bytes() const {
    return line.capacity_bytes() + touch.capacity_bytes() + second.capacity_bytes() +
           instrs.capacity_bytes() + in_place.capacity_bytes() + shadow.capacity_bytes() +
           shared.capacity_bytes() + quiet_until.capacity() * sizeof(uint32_t) +
           var_of_word.capacity() * sizeof(uint16_t) + written_whole.capacity();
  }

  // Empty, keeping the memory.
  void clear() {
    lines.clear();
    line.clear();
    touch.clear();
    second.clear();
    instrs.clear();
    in_place.clear();
    shadow.reset(0);
    log.clear();
  }
};

BlockDefects::BlockDefects(DefectCheck& owner, emu::Dim3 block,
                           std::unique_ptr<BlockRecords> records)
    : records(std::move(records)),
      global_lines(this->records->lines),
      global_line(this->records->line),
      global_touch(this->records->touch),
      global_second(this->records->second),
      global_instrs(this->records->instrs),
      global_in_place(this->records->in_place),
      owner_(owner),
      block_(block),
      compact_(owner.fast_paths_),
      shared_(this->records->shared),
      quiet_until_(this->records->quiet_until),
      log_(this->records->log),
      var_of_word_(this->records->var_of_word),
      written_whole_(this->records->written_whole),
      unwritten_(this->records->unwritten),
      global_shadow_(this->records->shadow) {}

namespace {

// Emptied records of the DefectChecks that have ended, for the next one
// (never destroyed: a launch on another thread may end while the process
// exits; still reachable, so not a leak to LeakSanitizer).
SparePool<BlockRecords>& spare_records() {
  constexpr size_t kMaxBytes = size_t{64} << 20;
  static auto* pool = new SparePool<BlockRecords>(64, kMaxBytes, kMaxBytes);
  return *pool;
}

}  // namespace

DefectCheck::DefectCheck(MemoryLayout layout, bool fast_paths)
    : layout_(std::move(layout)), fast_paths_(fast_paths) {}
DefectCheck::~DefectCheck() {
  for (auto& r : spare_) spare_records().give(std::move(r));
}

std::unique_ptr<emu::BlockObserver> DefectCheck::make_block_observer(emu::Dim3 block) {
  std::unique_ptr<BlockRecords> records;
  {
    std::lock_guard<std::mutex> lock(spare_mu_);
    if (!spare_.empty()) {
      records = std::move(spare_.back());
      spare_.pop_back();
    }
  }
  if (!records) records = spare_records().take();
  return std::make_unique<BlockDefects>(*this, block, std::move(records));
}

void DefectCheck::add(Finding f) {
  std::string key(name(f.kind));
  for (const Involved& v : f.involved) key += fmt::format("|{}:{}:{}", v.ptx_line, v.role, v.instr);
  if (f.involved.empty()) key += "|" + f.message;
  auto it = index_.find(key);
  if (it != index_.end()) {
    findings_[it->second].count += f.count;
    return;
  }
  index_[key] = findings_.size();
  findings_.push_back(std::move(f));
}

void DefectCheck::finish_block(emu::Dim3 block, std::unique_ptr<emu::BlockObserver> observer) {
  auto* b = static_cast<BlockDefects*>(observer.get());
  for (Finding& f : b->findings) add(std::move(f));
  for (auto& [read, f] : b->deferred) deferred_.emplace_back(read, std::move(f));
  cas_reads_.insert(b->validated.begin(), b->validated.end());
  uint64_t linear =
      block.x + uint64_t{kernel_.grid.x} * (block.y + uint64_t{kernel_.grid.y} * block.z);
  // Word `word`'s owner `o` meets this block's record `t` of the word.
  auto merge = [&](GlobalOwner& o, const BlockDefects::GlobalTouch& t, uint64_t word) {
    bool fresh = o.touched == 0;
    if (fresh) o = GlobalOwner{linear, t.touched, t.written, t.after_atomic, t.instr, t.thread};
    if (fresh || o.block_linear == linear) return;
    uint8_t racing = static_cast<uint8_t>((o.written & t.touched) | (o.touched & t.written));
    if (racing && !o.after_atomic && !t.after_atomic) {
      emu::Dim3 o_block = block_of(o.block_linear);
      bool o_wrote = o.written & racing, t_wrote = t.written & racing;
      Finding f;
      f.kind = FindingKind::GlobalRace;
      f.severity = Severity::Warning;
      f.message = fmt::format(
          "global byte {:#x}: {} by block {} and {} by block {} with no ordering between blocks",
          word * 4 + static_cast<unsigned>(__builtin_ctz(racing)), o_wrote ? "written" : "read",
          dim_text(o_block), t_wrote ? "written" : "read", dim_text(block));
      f.involved.push_back(
          involved(o_wrote ? "write" : "read", kernel_, o.instr, o_block, o.thread));
      f.involved.push_back(involved(t_wrote ? "write" : "read", kernel_, t.instr, block, t.thread));
      f.where = f.involved.back().where;
      f.count = static_cast<uint64_t>(__builtin_popcount(racing));  // racing bytes
      add(std::move(f));
    }
    o.touched |= t.touched;
    if (t.written & ~o.written) {  // the later writer owns the word from now on
      o.block_linear = linear;
      o.after_atomic = t.after_atomic;
      o.instr = t.instr;
      o.thread = t.thread;
    }
    o.written |= t.written;
  };
  // Lines in address order (deterministic findings).
  constexpr uint32_t kLineWords = BlockDefects::kLineWords;
  b->global_lines.for_each_in_order([&](uint32_t slot, uint64_t line) {
    const BlockDefects::GlobalLine& g = b->global_line[slot];
    if (!g.compact) {  // lines accessed by atomics only have no owners
      bool touched = false;
      for (unsigned w = 0; !touched && w < kLineWords; ++w)
        touched = b->global_touch[g.words + w].touched;
      if (!touched) return;
    }
    uint32_t l = owner_lines_.slot(line);
    if (l == owner_line_.size()) {
      OwnerLine& fresh = owner_line_.emplace_back();
      // (made once, not default-made and then overwritten)
      if (g.compact && g.instrs == BlockDefects::kNoSecond &&
          g.in_place == BlockDefects::kNoSecond) {
        fresh = {linear, g.instr, kNoOwners, true, g.write, g.after_atomic, 0, g.thread};
        return;
      }
    }
    OwnerLine& ol = owner_line_[l];
    // A stream of reads of words that some block read whole and none wrote
    // changes nothing (see OwnerLine::read_only): the common case of input
    // data that several blocks read (a matmul's A and B tiles).
    const bool reads = g.compact && !g.write;
    const uint32_t words = reads ? present(g.thread) : 0;
    if (reads && (words & ~read_only(ol)) == 0) return;
    if (g.compact && g.instrs == BlockDefects::kNoSecond && g.in_place == BlockDefects::kNoSecond &&
        ol.words == kNoOwners && !ol.compact) {
      // A compact line of this block (one stream's reads or writes) on a
      // fresh line becomes the line's owner as is. Else the words are
      // merged one by one.
      ol = {linear, g.instr, kNoOwners, true, g.write, g.after_atomic, 0, g.thread};
      return;
    }
    uint32_t base = owner_words(ol);
    // The words the block touched (a compact line's present words; a
    // line of atomics only has none), in word order; a compact line's read
    // of a read-only word changes nothing. (Bit w of read_only changes
    // only at word w, so the mask taken before the loop stays exact.)
    uint32_t visit = g.words != BlockDefects::kNoWords ? ~0u : g.compact ? present(g.thread) : 0;
    if (reads) visit &= words & ~ol.read_only;
    for (uint32_t m = visit; m; m &= m - 1) {
      const auto w = static_cast<unsigned>(__builtin_ctz(m));
      const BlockDefects::GlobalTouch t = b->touch(g, w);
      if (!t.touched) continue;
      GlobalOwner& o = owners_[base + w];
      merge(o, t, line * kLineWords + w);
      // Only merged words change, so read_only stays exact bit by bit.
      ol.read_only = (ol.read_only & ~(1u << w)) | uint32_t{o.touched == 0xf && o.written == 0}
                                                       << w;
    }
  });
  b->records->clear();
  std::lock_guard<std::mutex> lock(spare_mu_);
  spare_.push_back(std::move(b->records));
}

// Bit w: word w has a thread (BlockDefects::kNoThread: not accessed).
// (SSE2: sixteen words a compare, where the loop is 32 shifts and ors.)
uint32_t DefectCheck::present(const std::array<uint16_t, 32>& thread) {
  static_assert(BlockDefects::kNoThread == UINT16_MAX);
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
  for (unsigned w = 0; w < 32; ++w) m |= uint32_t{thread[w] != BlockDefects::kNoThread} << w;
  return m;
#endif
}

uint32_t DefectCheck::read_only(const OwnerLine& ol) {
  if (!ol.compact) return ol.read_only;
  return ol.write ? 0 : present(ol.thread);
}

uint32_t DefectCheck::owner_words(OwnerLine& ol) {
  if (ol.words == kNoOwners) {
    ol.read_only = read_only(ol);
    ol.words = static_cast<uint32_t>(owners_.size());
    owners_.grow(BlockDefects::kLineWords);
    for (unsigned w = 0; ol.compact && w < BlockDefects::kLineWords; ++w)
      if (ol.thread[w] != BlockDefects::kNoThread)
        owners_[ol.words + w] = {
            ol.block_linear, 0xf,      static_cast<uint8_t>(ol.write ? 0xf : 0),
            ol.after_atomic, ol.instr, ol.thread[w]};
    ol.compact = false;
  }
  return ol.words;
}

emu::Dim3 DefectCheck::block_of(uint64_t linear) const {
  uint64_t x = std::max(kernel_.grid.x, 1u), y = std::max(kernel_.grid.y, 1u);
  return {static_cast<uint32_t>(linear % x), static_cast<uint32_t>(linear / x % y),
          static_cast<uint32_t>(linear / x / y)};
}

void DefectCheck::on_kernel_end(bool) {
  for (auto& [read, f] : deferred_)
    if (!cas_reads_.count(read)) add(std::move(f));
  deferred_.clear();
}

}  // namespace smemlab::check
