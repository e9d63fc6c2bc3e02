// The ordered hand-over of a launch's finished blocks: workers finish blocks
// in any order; their observers (KernelObserver::finish_block) and their
// printf output leave here one at a time, in increasing block order, so
// that merged results and printed output are the same whatever the
// threads did. Internal to launch.cc.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "emu/launch.h"
#include "emu/observer.h"

namespace smemlab::emu {

class BlockHandover {
 public:
  // `nblocks` blocks in hand-over order; `nthreads` workers (the backlog
  // they may run ahead of the hand-over grows with them); `ending` tells
  // that the launch stops early (a fault, a stop request), when workers no
  // longer wait for the hand-over.
  BlockHandover(const LaunchConfig& cfg, KernelObserver* observer, uint64_t nblocks,
                unsigned nthreads, std::function<bool()> ending);

  // A worker, before it starts another block: waits while more finished
  // blocks than the backlog wait to be handed over, so that the blocks held
  // stay bounded when the hand-over is the slower side.
  void throttle();
  // Block `idx` (in hand-over order, with grid position `id`) is done: its
  // observer (may be null) and its printf output go out when every block
  // below it has gone.
  void finish(uint64_t idx, Dim3 id, std::unique_ptr<BlockObserver> obs, std::string printf_out);
  // After the workers have ended: the blocks still waiting behind quiet ones.
  void finish_all();
  // Wakes workers waiting in throttle (the launch is ending).
  void wake();
  // Blocks handed over so far (the progress line's count).
  uint64_t handed_over() const { return next_finish_; }

 private:
  struct Finished {
    Dim3 id;
    std::unique_ptr<BlockObserver> obs;
    std::string printf_out;
  };
  void take_ready(std::vector<Finished>& out);
  void drain(std::unique_lock<std::mutex>& lock);
  void print(const std::string& s);

  const LaunchConfig& cfg_;
  KernelObserver* const observer_;
  const uint64_t nblocks_, backlog_;
  const std::function<bool()> ending_;
  std::mutex mu_;
  std::condition_variable handed_over_;
  std::map<uint64_t, Finished> pending_;
  // Blocks with nothing to hand over (no observer, no output), marked done
  // without the lock; empty when the grid is too large for a byte a block.
  std::vector<std::atomic<uint8_t>> quiet_;
  std::atomic<uint64_t> waiting_{0};  // pending_.size(), read without the lock
  uint64_t next_finish_ = 0;
  bool finishing_ = false;  // a thread is handing blocks over (under mu_)
  // printf output is capped per launch like cudaLimitPrintfFifoSize (1 MiB).
  size_t printed_ = 0;
  bool truncated_ = false;
};

}  // namespace smemlab::emu
