#include "check/shared_hazards.h"

#include <algorithm>

namespace smemlab::check::detail {

SharedHazards::SharedHazards(BlockState& s, Hazards& hazards, SharedRecords& r)
    : s_(s),
      hazards_(hazards),
      shared_(r.shadow),
      quiet_until_(r.quiet_until),
      log_(r.log),
      var_of_word_(r.var_of_word),
      written_whole_(r.written_whole),
      unwritten_(r.unwritten) {}

bool SharedHazards::store_needs_no_test(const Shadow& s, uint32_t thread, const WarpNow& n) {
  if (s.written && s.w_epoch == n.epoch &&
      !BlockState::ordered(thread, s.w_thread, s.w_wepoch, n.wepoch))
    return false;
  return !(s.read && s.r_epoch == n.epoch) ||
         (BlockState::ordered(thread, s.r_thread, s.r_wepoch, n.wepoch) &&
          (!s.r2 || BlockState::ordered(thread, s.r2_thread, s.r2_wepoch, n.wepoch)));
}

// (Of the words [first, first + words), as the lanes' loops know them.)
bool SharedHazards::plain_load_ok(uint32_t thread, uint32_t first, uint32_t words,
                                  const WarpNow& n) {
  for (uint32_t w = first; w < first + words; ++w) {
    if (!n.shared.whole(w)) return false;
    const Shadow& s = n.shared.word(w);
    if (!s.ever_written ||
        (s.written && s.w_epoch == n.epoch &&
         (s.w_atomic ? s.w_thread != thread
                     : !BlockState::ordered(thread, s.w_thread, s.w_wepoch, n.wepoch))))
      return false;
  }
  return true;
}

// (Of words [first, first + words), as the lanes' loops know them.)
bool SharedHazards::quiet_for_all(uint32_t first, uint32_t words, const uint32_t* quiet_until,
                                  uint32_t epoch) {
  for (uint32_t w = first; w < first + words; ++w)
    if (quiet_until[w] != epoch + 1) return false;
  return true;
}

// (Inlined: it runs per lane, and the call cost more than its common case.)
void SharedHazards::plain_load_apply(uint32_t thread, uint32_t first, uint32_t words,
                                     const emu::InstrInfo* instr, const WarpNow& n) {
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

void SharedHazards::on_block_begin(uint32_t shared_bytes) {
  shared_.reset(shared_bytes / 4 + 1);
  quiet_until_.assign(shared_bytes / 4 + 1, 0);
  // The variables' whole words, the first variable holding a word naming it.
  const MemoryLayout& L = s_.layout;
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
  claim(L.shared.size(), L.dynamic_offset, s_.kernel.dynamic_shared);
}

// A whole warp's load of whole words, each half-warp at evenly spaced
// addresses (a row, a column, a broadcast), inside one variable, in a
// barrier epoch with no shared write so far, of words all written
// before: no finding can come of it, and what it records (its readers)
// matters only if a write comes later in this epoch. Such loads are kept
// as their pattern and replayed, in order, before any other shared
// access; a barrier drops them unseen. False: not such a load.
bool SharedHazards::log_load(const emu::MemAccess& a) {
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
bool SharedHazards::half_affine(const emu::MemAccess& a, HalfAffine* h) {
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
// (kWordValues: a plain st.b32 whose lanes' stored words are one register
// a lane, MemAccess::stored[0]: the common case, without stored_bytes.)
void SharedHazards::warp_store(const emu::MemAccess& a) {
  if (a.width == 4 && a.stored[0] && a.stored_vec == 1)
    warp_store<1, true>(a);
  else if (a.width == 4)
    warp_store<1, false>(a);
  else
    warp_store<0, false>(a);
}

template <uint32_t kWords, bool kWordValues>
void SharedHazards::warp_store(const emu::MemAccess& a) {
  const uint32_t words = kWords ? kWords : a.width / 4, base = a.warp * 32;
  const WarpNow n = warp_now(a.warp);
  const emu::InstrInfo* instr = a.instr;
  uint8_t* written_whole = written_whole_.data();
  const uint16_t* var_of_word = var_of_word_.data();
  uint32_t* unwritten = unwritten_.data();
  const uint64_t* const word_values = a.stored[0];
  const bool values = a.stored[0] != nullptr;
  for (uint32_t m = a.mask; m; m &= m - 1) {
    const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
    const uint32_t thread = base + l, first = static_cast<uint32_t>(a.addr[l] / 4);
    bool plain = true;
    for (uint32_t w = first; plain && w < first + words; ++w)
      plain = n.shared.whole(w) && store_needs_no_test(n.shared.word(w), thread, n);
    if (!plain) {
      shared(a, thread, a.addr[l]);
      continue;
    }
    for (uint32_t w = first; w < first + words; ++w) {
      n.quiet_until[w] = 0;
      const uint64_t value = kWordValues ? word_values[l] & 0xffffffffu
                             : values    ? stored_bytes(a, l, (w - first) * 4, 4)
                                         : kNoValue;
      note_plain_write(n.shared.word(w), thread, instr, n, value);
      if (!written_whole[w]) {  // note_word_written_whole of a whole word written now
        written_whole[w] = 1;
        if (var_of_word[w] != kNoVar) --unwritten[var_of_word[w]];
      }
    }
  }
}

void SharedHazards::replay_loads() {
  if (log_.empty()) return;
  emu::MemAccess r;
  r.space = emu::Space::Shared;
  r.op = emu::MemOp::Load;
  r.matrices = 0;
  r.mask = UINT32_MAX;
  r.block = s_.block;
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
bool SharedHazards::quiet_for_all(uint64_t addr, unsigned width) const {
  const auto first = static_cast<uint32_t>(addr / 4);
  return quiet_for_all(first, static_cast<uint32_t>((addr + width) / 4 - first),
                       quiet_until_.data(), s_.epoch);
}

// A shared load of whole words, aligned and inside one variable, by
// warp `a.warp`; lo and hi: its lowest and highest lane address.
void SharedHazards::shared_load(const emu::MemAccess& a, uint64_t lo, uint64_t hi) {
  // Most shared loads read whole words that need no update (see
  // quiet_read): tested here per lane without the general path's setup.
  // A broadcast (every lane at one address) is one test when its words
  // are quiet for every thread.
  if (lo == hi && s_.compact && quiet_for_all(lo, a.width)) return;
  // A whole warp: when the words of the lanes not repeating the lane
  // before or the lane 16 below are all quiet for every thread, the
  // load changes nothing (tests only, so the per-lane loop below stays
  // in lane order when it is needed).
  // (Lane 0 never repeats: its words not quiet, the test fails.)
  if (a.mask == UINT32_MAX && s_.compact && quiet_until_[a.addr[0] / 4] == s_.epoch + 1) {
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
  if (s_.compact) {
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
    if (q == Quiet::kNo) shared(a, thread, addr);
    prev_quiet = q == Quiet::kAll;
    if (prev_quiet) all_quiet |= 1u << lane;
  }
}

// shared_load's lane loop (kWords as for warp_store).
template <uint32_t kWords>
void SharedHazards::shared_load_lanes(const emu::MemAccess& a) {
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
      shared(a, base + lane, addr);
  }
}

// quiet_read of a whole shared word. A word quiet for two readers of this
// epoch (r2) is quiet for every thread until the epoch ends or the word
// is written or split: quiet_until_ notes that, one 4-byte test per lane
// instead of the word's 96-byte record.
SharedHazards::Quiet SharedHazards::quiet_shared(uint32_t w, uint32_t thread) {
  if (quiet_until_[w] == s_.epoch + 1) return Quiet::kAll;
  if (!shared_.whole(w)) return Quiet::kNo;
  const Shadow& s = shared_.word(w);
  if (!quiet_read(s, thread, s_.epoch)) return Quiet::kNo;
  if (!s.r2 || !s_.compact) return Quiet::kThread;
  quiet_until_[w] = s_.epoch + 1;
  return Quiet::kAll;
}

void SharedHazards::shared(const emu::MemAccess& a, uint32_t thread, uint64_t addr) {
  // A cp.async's shared side only writes (its read is of global memory).
  // cp.async's shared half only writes (its global half only reads): it is
  // neither a read of the bytes it fills nor an atomic.
  // The async proxy's shared writes (a TMA load's) and reads (a TMA
  // store's) likewise.
  bool reads = a.op != emu::MemOp::Store && a.op != emu::MemOp::CpAsyncStore &&
               a.op != emu::MemOp::BulkStore;
  bool writes =
      a.op != emu::MemOp::Load && a.op != emu::MemOp::CpAsyncLoad && a.op != emu::MemOp::BulkLoad;
  if (writes || addr % 4 != 0 || a.width % 4 != 0)  // may write or split its words
    for (uint64_t w = addr / 4; w <= (addr + a.width - 1) / 4; ++w) quiet_until_[w] = 0;
  if (s_.compact && a.op == emu::MemOp::Store && addr % 4 == 0 && a.width % 4 == 0 &&
      hazards_.no_pending_uninit() && plain_store(a, thread, addr)) {
    note_written_whole(addr, a.width);
    return;
  }
  if (s_.compact && a.op == emu::MemOp::Load && addr % 4 == 0 && a.width % 4 == 0 &&
      plain_load(a, thread, addr))
    return;
  hazards_.hazards(a, thread, addr, reads, writes, shared_,
                   [](uint64_t word, uint64_t, uint64_t) { return static_cast<uint32_t>(word); });
  if (writes) note_written_whole(addr, a.width);
}

// Words of [addr, addr + width) whose four bytes have now all been
// written: counted off their variable's unwritten words (log_load).
void SharedHazards::note_written_whole(uint64_t addr, uint32_t width) {
  for (uint64_t w = addr / 4; w <= (addr + width - 1) / 4; ++w)
    if (!written_whole_[w]) note_word_written_whole(static_cast<uint32_t>(w));
}
void SharedHazards::note_word_written_whole(uint32_t w) {
  if (shared_.ever_written(w)) {
    written_whole_[w] = 1;
    if (var_of_word_[w] != kNoVar) --unwritten_[var_of_word_[w]];
  }
}

// A plain store of whole shared words that store_needs_no_test allows:
// what hazards() does to them without its per-byte setup; false (nothing
// done) else.
bool SharedHazards::plain_store(const emu::MemAccess& a, uint32_t thread, uint64_t addr) {
  const WarpNow n = warp_now(thread / 32);
  uint32_t first = static_cast<uint32_t>(addr / 4), end = first + a.width / 4;
  for (uint32_t w = first; w < end; ++w)
    if (!shared_.whole(w) || !store_needs_no_test(shared_.word(w), thread, n)) return false;
  for (uint32_t w = first; w < end; ++w)
    note_plain_write(shared_.word(w), thread, a.instr, n,
                     stored_bytes(a, thread % 32, (w - first) * 4, 4));
  return true;
}

// A plain load of whole shared words written before this barrier epoch,
// or by this thread, or by a plain store of a lane of its warp before a
// __syncwarp() (no RAW, not uninitialized; an atomic writer would hold
// the read back, see hazards()): hazards()'s reader update without its
// per-byte setup; false (nothing done) else.
bool SharedHazards::plain_load(const emu::MemAccess& a, uint32_t thread, uint64_t addr) {
  const WarpNow n = warp_now(thread / 32);
  const uint32_t first = static_cast<uint32_t>(addr / 4), words = a.width / 4;
  if (!plain_load_ok(thread, first, words, n)) return false;
  plain_load_apply(thread, first, words, a.instr, n);
  return true;
}

void SharedHazards::remote_write(uint64_t addr, uint32_t bytes) {
  replay_loads();
  for (uint64_t b = addr; b < addr + bytes && b / 4 < shared_.size(); ++b) {
    const auto w = static_cast<uint32_t>(b / 4);
    quiet_until_[w] = 0;
    if (shared_.whole(w) && b % 4 == 0 && b + 4 <= addr + bytes) {
      shared_.word(w).ever_written = true;
      b += 3;
    } else {
      shared_.byte(w, b % 4).ever_written = true;
    }
    if (!written_whole_[w]) note_word_written_whole(w);
  }
  hazards_.forget_uninitialized(addr, bytes);
}

}  // namespace smemlab::check::detail
