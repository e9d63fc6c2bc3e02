// Races (`race`, `warp-race`) and `uninitialized` reads on a block's shared
// memory: a shadow record per 4-byte word (per byte once a word is
// accessed in parts), the general per-lane path (Hazards) and the fast
// paths of the common patterns, with the same findings (docs/check-cost.md):
// whole-warp loads of words written before held back as their pattern
// (log_load) and replayed only if a write comes in the same barrier epoch;
// words quiet for every reader noted per word (quiet_until); warp stores
// and loads of whole words lane by lane without the general path's set-up.
// Its bounds are bounds_check's: the lanes it gets are inside the shared
// variables.
#pragma once

#include <cstdint>
#include <vector>

#include "check/defect_state.h"
#include "check/hazards.h"

namespace smemlab::check::detail {

// A whole-warp shared load held back (SharedHazards::log_load): lane
// h * 16 + l read `width` bytes at a_h + stride * l.
struct LoggedLoad {
  const emu::InstrInfo* instr;
  uint64_t a0, a1, stride;
  uint32_t warp;
  uint8_t width;
};

// The shared-memory records of a block, kept for the next block
// (BlockRecords): SharedHazards::on_block_begin sizes and resets them.
struct SharedRecords {
  ShadowWords shadow;  // slot = shared word (offset / 4)
  // By shared word: epoch + 1 while the word is quiet for every reader
  // (quiet_shared), else anything else.
  std::vector<uint32_t> quiet_until;
  // Loads held back by log_load, in event order.
  std::vector<LoggedLoad> log;
  // By shared word: the variable holding it whole (layout order, the
  // dynamic window last; kNoVar: none, or a partial word), and whether all
  // its bytes were written; by variable: its words not yet written whole.
  std::vector<uint16_t> var_of_word;
  std::vector<uint8_t> written_whole;
  std::vector<uint32_t> unwritten;

  size_t bytes() const {
    return shadow.capacity_bytes() + quiet_until.capacity() * sizeof(uint32_t) +
           var_of_word.capacity() * sizeof(uint16_t) + written_whole.capacity();
  }
  void clear() { log.clear(); }
};

class SharedHazards {
 public:
  SharedHazards(BlockState& s, Hazards& hazards, SharedRecords& r);

  void on_block_begin(uint32_t shared_bytes);
  // Before any other use of the shadow by a shared access: a whole-warp
  // load log_load holds back (true: nothing else to do), else the held-back
  // loads replayed in event order.
  bool hold_back(const emu::MemAccess& a) {
    if (s_.compact && log_load(a)) return true;
    replay_loads();
    if (a.op != emu::MemOp::Load && a.op != emu::MemOp::CpAsyncLoad && a.op != emu::MemOp::BulkLoad)
      epoch_writes_ = true;
    return false;
  }
  // A warp's load of whole, aligned words inside the shared variables; lo
  // and hi: its lowest and highest lane address.
  void shared_load(const emu::MemAccess& a, uint64_t lo, uint64_t hi);
  // A warp's plain store of whole, aligned words inside the shared variables.
  void warp_store(const emu::MemAccess& a);
  // One lane's access (inside the shared variables, aligned).
  void shared(const emu::MemAccess& a, uint32_t thread, uint64_t addr);
  // Bytes a cluster peer wrote (st.shared::cluster, a multicast copy's
  // chunks): written for `uninitialized`, no hazard with this block's
  // threads (dsmem-race orders those).
  void remote_write(uint64_t addr, uint32_t bytes);
  // Held-back loads, before a __syncwarp() orders them.
  void replay_loads();
  void on_barrier_release() {
    log_.clear();  // (a load's readers only matter until the epoch ends)
    epoch_writes_ = false;
  }

 private:
  WarpNow warp_now(uint32_t warp) {
    return {s_.epoch, s_.wepoch[warp], s_.event, shared_.view(), quiet_until_.data()};
  }
  bool log_load(const emu::MemAccess& a);
  struct HalfAffine {
    uint64_t a0, a1, stride;
  };
  static bool half_affine(const emu::MemAccess& a, HalfAffine* h);
  template <uint32_t kWords, bool kWordValues>
  void warp_store(const emu::MemAccess& a);
  template <uint32_t kWords>
  void shared_load_lanes(const emu::MemAccess& a);
  bool quiet_for_all(uint64_t addr, unsigned width) const;
  static inline bool quiet_for_all(uint32_t first, uint32_t words, const uint32_t* quiet_until,
                                   uint32_t epoch);
  enum class Quiet { kNo, kThread, kAll };  // ordered: min() of words
  Quiet quiet_shared(uint32_t w, uint32_t thread);
  void note_written_whole(uint64_t addr, uint32_t width);
  [[gnu::noinline]] void note_word_written_whole(uint32_t w);
  static inline bool store_needs_no_test(const Shadow& s, uint32_t thread, const WarpNow& n);
  bool plain_store(const emu::MemAccess& a, uint32_t thread, uint64_t addr);
  bool plain_load(const emu::MemAccess& a, uint32_t thread, uint64_t addr);
  static inline bool plain_load_ok(uint32_t thread, uint32_t first, uint32_t words,
                                   const WarpNow& n);
  [[gnu::always_inline]] static inline void plain_load_apply(uint32_t thread, uint32_t first,
                                                             uint32_t words,
                                                             const emu::InstrInfo* instr,
                                                             const WarpNow& n);

  BlockState& s_;
  Hazards& hazards_;
  // The records (members of SharedRecords).
  ShadowWords& shared_;
  std::vector<uint32_t>& quiet_until_;
  std::vector<LoggedLoad>& log_;
  std::vector<uint16_t>& var_of_word_;
  std::vector<uint8_t>& written_whole_;
  std::vector<uint32_t>& unwritten_;
  static constexpr size_t kMaxLog = 4096;
  static constexpr uint64_t kMaxStride = 1u << 20;
  static constexpr uint16_t kNoVar = UINT16_MAX;
  bool epoch_writes_ = false;  // this barrier epoch had a shared access that writes
  bool overlap_ = false;       // variables share words: test word by word
  uint32_t shared_bytes_ = 0;
};

}  // namespace smemlab::check::detail
