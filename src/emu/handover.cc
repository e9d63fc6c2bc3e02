#include "emu/handover.h"

#include <chrono>
#include <cstdio>

namespace smemlab::emu {

// A block with nothing to hand over (no observer, no printf output) only
// marks itself done, without the lock: with many threads and short blocks
// the lock and the map were a large share of a block's cost. The blocks
// with something to hand over still go out in block order; the drain steps
// over the marked ones, and runs once more after the workers end. (Grids
// too large for a byte per block keep the lock for every block.)
//
// One thread at a time hands blocks over (`finishing_`), and it calls
// finish_block outside the lock: an observer's merge (DefectCheck's global
// owners) then runs beside the other workers' blocks instead of stopping
// every worker that finishes a block meanwhile. Workers wait before
// starting a block while more than the backlog of finished ones wait to be
// handed over (not in a cooperative launch: its blocks are all resident at
// once).
constexpr uint64_t kMaxQuietBlocks = uint64_t{1} << 24;
constexpr size_t kPrintfLimit = 1 << 20;

BlockHandover::BlockHandover(const LaunchConfig& cfg, KernelObserver* observer, uint64_t nblocks,
                             unsigned nthreads, std::function<bool()> ending)
    : cfg_(cfg),
      observer_(observer),
      nblocks_(nblocks),
      backlog_(cfg.cooperative ? UINT64_MAX : 4 * uint64_t{nthreads} + 4),
      ending_(std::move(ending)),
      quiet_(cfg.progress || nblocks > kMaxQuietBlocks ? 0 : nblocks) {}

void BlockHandover::print(const std::string& s) {
  if (s.empty() || truncated_) return;
  std::string part = s;
  if (printed_ + part.size() > kPrintfLimit) {
    part.resize(kPrintfLimit - printed_);
    part += "\n[smemlab: printf output truncated at 1 MiB, like cudaLimitPrintfFifoSize]\n";
    truncated_ = true;
  }
  printed_ += part.size();
  if (cfg_.printf_sink) {
    cfg_.printf_sink(part);
  } else {
    std::fwrite(part.data(), 1, part.size(), stdout);
    std::fflush(stdout);
  }
}

// With the lock held: the blocks that can go now, in order.
void BlockHandover::take_ready(std::vector<Finished>& out) {
  for (;;) {
    if (!pending_.empty() && pending_.begin()->first == next_finish_) {
      out.push_back(std::move(pending_.extract(pending_.begin()).mapped()));
    } else if (!(next_finish_ < quiet_.size() && quiet_[next_finish_].load())) {
      waiting_.store(pending_.size());
      return;
    }
    ++next_finish_;
  }
}

void BlockHandover::drain(std::unique_lock<std::mutex>& lock) {
  if (finishing_) return;  // that thread takes these too
  finishing_ = true;
  std::vector<Finished> ready;
  for (;;) {
    ready.clear();
    take_ready(ready);
    if (cfg_.progress && !ready.empty()) cfg_.progress(next_finish_, nblocks_, false);
    if (ready.empty()) break;
    lock.unlock();
    for (Finished& f : ready) {
      print(f.printf_out);
      if (observer_ && f.obs) observer_->finish_block(f.id, std::move(f.obs));
    }
    ready.clear();  // the observers go before more blocks start
    lock.lock();
    handed_over_.notify_all();
  }
  finishing_ = false;
}

// Blocks that got no observer have none to finish: observers only ever see
// the ones they made.
void BlockHandover::finish(uint64_t idx, Dim3 id, std::unique_ptr<BlockObserver> obs,
                           std::string printf_out) {
  if (!obs && printf_out.empty() && !quiet_.empty()) {
    // Both sequentially consistent (against `waiting_` set before the drain
    // reads `quiet_`): either the drain saw this mark or this sees the
    // blocks waiting and drains them, so nothing waits until the end.
    quiet_[idx].store(1);
    if (waiting_.load() == 0) return;
    std::unique_lock<std::mutex> lock(mu_);
    drain(lock);
    return;
  }
  std::unique_lock<std::mutex> lock(mu_);
  pending_[idx] = {id, std::move(obs), std::move(printf_out)};
  waiting_.store(pending_.size());
  drain(lock);
}

void BlockHandover::finish_all() {
  std::unique_lock<std::mutex> lock(mu_);
  drain(lock);
}

// The blocks below the next one have all started, so the one the hand-over
// waits for is running and this wait ends. Not once the launch ends early
// (a fault, a stop): a worker that takes a block then skips it without
// handing it over, and the blocks finished above it never go (the stop
// flag is set by a signal handler, which cannot notify, hence the timed
// wait).
void BlockHandover::throttle() {
  if (waiting_.load() <= backlog_) return;
  std::unique_lock<std::mutex> lock(mu_);
  while (pending_.size() > backlog_ && !ending_())
    handed_over_.wait_for(lock, std::chrono::milliseconds(10));
}

void BlockHandover::wake() {
  std::lock_guard<std::mutex> lock(mu_);
  handed_over_.notify_all();
}

}  // namespace smemlab::emu
