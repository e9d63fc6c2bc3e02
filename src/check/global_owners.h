// `global-race` (a warning): a global byte written by one block and read or
// written by another, without atomics (accesses a block makes after its
// first global atomic are taken to follow the kernel's own protocol). The
// launch keeps who touched each global 4-byte word first (and which of its
// bytes were touched and written); each finished block's records
// (GlobalRecords) are merged into it in address order.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "check/chunked_vector.h"
#include "check/global_records.h"
#include "check/word_map.h"

namespace smemlab::check::detail {

class GlobalOwners {
 public:
  // Block `block` (`linear`: its linear index) of a launch of `kernel`
  // ends with records `r`: its words are merged, and the races with
  // earlier blocks appended to `found` in address order.
  void merge_block(const GlobalRecords& r, emu::Dim3 block, uint64_t linear,
                   const emu::KernelInfo& kernel, std::vector<Finding>* found);

 private:
  // Who touched a global 4-byte word first, and which of its bytes were
  // touched and written so far (non-atomic accesses only).
  // 24 bytes: the block is kept as its linear index (block_of).
  struct GlobalOwner {
    uint64_t block_linear = 0;
    uint8_t touched = 0, written = 0;
    bool after_atomic = false;
    const emu::InstrInfo* instr = nullptr;
    uint32_t thread = 0;
  };
  // By line slot: a line only one block's compact stream has touched
  // (GlobalLine: reads, or words written once) is kept as that stream, 2
  // bytes per word; owner_words makes its 32 GlobalOwner records when a
  // merge needs them.
  static constexpr uint32_t kNoOwners = UINT32_MAX;
  struct OwnerLine {
    uint64_t block_linear = 0;
    const emu::InstrInfo* instr = nullptr;
    uint32_t words = kNoOwners;  // its first record in owners_, once made
    bool compact = false, write = false, after_atomic = false;
    // Once in owner records (!compact): the words some block read whole
    // and none wrote. A further plain whole-word read of them changes
    // nothing (no race, no new bytes, no new writer), so a block's stream
    // of reads of such words needs no merge (an input tile every block
    // reads). read_only() gives it for either form.
    uint32_t read_only = 0;
    Threads thread{};  // as GlobalLine::thread
  };
  static emu::Dim3 block_of(const emu::KernelInfo& kernel, uint64_t linear);
  uint32_t owner_words(OwnerLine& ol);
  static uint32_t read_only(const OwnerLine& ol);
  // Word `word`'s owner `o` meets record `t` of block `block`.
  void merge(GlobalOwner& o, const GlobalTouch& t, uint64_t word, emu::Dim3 block, uint64_t linear,
             const emu::KernelInfo& kernel, std::vector<Finding>* found) const;

  // Owners of the global words touched so far, 32 words (a 128-byte line)
  // at a time as in GlobalRecords: word w of line slot L is owner L * 32 +
  // w % 32 (touched == 0: no owner yet). A flat table, no node per word;
  // lines are looked up a page at a time, so a block's lines, merged in
  // address order, mostly cost an array index each.
  LineMap owner_lines_;
  ChunkedVector<OwnerLine> owner_line_;
  ChunkedVector<GlobalOwner> owners_;
};

}  // namespace smemlab::check::detail
