// Runs one thread block to completion on the calling thread. A BlockRunner
// keeps its buffers between blocks (one runner per worker thread).
#pragma once

#include "emu/exec.h"

namespace smemlab::emu {

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
  std::vector<uint64_t> reg_template_;
  // Register ranges [first, first + count) a full warp copies from the
  // template; the others are written before any read (see block.cc).
  std::vector<std::pair<uint32_t, uint32_t>> init_runs_;
  // The part of init_runs_ some op writes: all a full warp copies when its
  // slot held this program's registers in an earlier block (warp index
  // below warm_warps_), since the others still hold their template values.
  std::vector<std::pair<uint32_t, uint32_t>> warm_runs_;
  uint32_t warm_warps_ = 0;
};

}  // namespace smemlab::emu
