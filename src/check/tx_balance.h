// The bytes a block's mbarriers were told to expect against the bytes their
// copies completed (issue 28, `tx-mismatch`). The PTX ISA ("Tracking
// asynchronous operations by the mbarrier object") requires expect-tx to
// announce every byte a phase tracks. The tx-count is announced minus
// completed bytes and is kept across phase transitions (emu/ops_async.h),
// so a block that ends with a tx-count other than zero has a defect:
//  - negative: copies completed bytes nobody announced (an expect_tx too
//    small): a phase completed before all of its bytes had landed;
//  - positive: announced bytes never came (a waiter would hang; the hang
//    itself the emulator's spin detector reports).
// The emulator runs on as the GPU does (docs/emulator.md, "mbarrier");
// this reports the defect at the block's end, naming the last expect_tx and
// the last copy (or complete_tx) of the barrier and both byte counts.
// Operations of a cluster peer on the block's barriers (remote expect_tx, a
// multicast copy's complete_tx) count: events are taken by the block that
// holds the barrier.
#pragma once

#include <cstdint>
#include <map>

#include "check/defect_state.h"

namespace smemlab::check::detail {

class TxBalance {
 public:
  TxBalance(const BlockState& s, BlockFindings& out) : s_(s), out_(out) {}

  void on_block_begin() { bars_.clear(); }
  void on_mbarrier(const emu::Mbarrier& m);
  void on_block_end();

 private:
  struct Site {  // one thread's instruction, in block `block`
    const emu::InstrInfo* instr = nullptr;
    uint32_t thread = 0;
    emu::Dim3 block{};
  };
  struct Bar {
    bool valid = false;
    int32_t tx = 0;  // the tx-count after the barrier's last operation
    uint64_t announced = 0, completed = 0;
    Site expect, complete;  // the last expect_tx; the last copy or complete_tx
    bool by_copy = false;   // `complete` is a copy's completion
  };
  std::string name(uint32_t off) const;

  const BlockState& s_;
  BlockFindings& out_;
  std::map<uint32_t, Bar> bars_;  // by shared offset (ordered: findings in address order)
};

}  // namespace smemlab::check::detail
