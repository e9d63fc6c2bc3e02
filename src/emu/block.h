// Runs one thread block to completion on the calling thread. A BlockRunner
// keeps its buffers between blocks (one runner per worker thread).
#pragma once

#include "emu/exec.h"

namespace smemlab::emu {

RegInit make_reg_init(const Program& p);

class BlockRunner {
 public:
  // Throws Fault when the kernel fails in this block.
  void run(const LaunchEnv& env, Dim3 block, BlockObserver* obs);
  const BlockCtx& context() const { return ctx_; }
  BlockCtx& context_mut() { return ctx_; }

 private:
  [[noreturn]] void deadlock();
  void prepare_template(const Program& p);
  BlockCtx ctx_;
  const Program* template_prog_ = nullptr;
  const RegInit* init_ = nullptr;  // the program's, or own_init_
  RegInit own_init_;
  // Warp slots below this one hold this program's registers from an
  // earlier block: they copy only RegInit::warm_runs.
  uint32_t warm_warps_ = 0;
};

}  // namespace smemlab::emu
