// The order in which a block's warps take turns: what decides the result of
// a program whose warps race (a latent race the GPU's schedulers make
// benign, or one they do not).
//
//   gpu          every warp runs up to and including its next global,
//                shared or async memory op, then the next warp takes its
//                turn (round robin): warps progress together, as a GPU's
//                schedulers interleave them. The default. (Where no
//                warp can tell, many such turns run at once with the
//                same results: quiet_epochs.h.)
//   serial       each warp runs until it blocks or 4,096 instructions pass:
//                smemlab's schedule before `gpu` (warps far apart).
//   random[:S]   a fresh random warp order every round; a turn is 1 to 16
//                memory ops, or (one turn in eight) as long as serial's;
//                from seed S (default 1): the same seed gives the same run,
//                block by block, whatever the host threads do.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace smemlab::emu {

struct Schedule {
  enum class Kind : uint8_t { Gpu, Serial, Random };
  Kind kind = Kind::Gpu;
  uint64_t seed = 1;  // Random only
  bool operator==(const Schedule&) const = default;
};

// "gpu", "serial", "random" or "random:SEED" (SEED a decimal integer);
// nullopt for anything else.
std::optional<Schedule> parse_schedule(const std::string& text);
// The inverse of parse_schedule: "gpu", "serial", "random:7".
std::string to_string(const Schedule& s);

// A block's warp turns under one schedule: which warp goes next and how
// many memory-ordering ops it may execute in its turn.
class WarpTurns {
 public:
  // `warps`: the block's warp count (a cluster's: all its blocks' warps,
  // block by block); `block_key`: the block's (cluster's) linear index
  // (seeds Random per block).
  WarpTurns(const Schedule& s, uint32_t warps, uint64_t block_key);
  uint32_t size() const { return warps_; }
  // The i-th warp of the current round (0 <= i < size()).
  uint32_t warp(uint32_t i) const { return shuffled_ ? order_[i] : i; }
  // Memory-ordering ops the warp about to run may execute before it yields.
  uint32_t quota() {
    if (kind_ == Schedule::Kind::Gpu) return 1;
    return kind_ == Schedule::Kind::Serial ? UINT32_MAX : random_quota();
  }
  // Whether every turn ends at its first memory-ordering op and the warps go
  // in index order every round (the `gpu` schedule: quota() is always 1).
  bool one_op_turns() const { return kind_ == Schedule::Kind::Gpu; }
  // A new round: Random draws a new warp order.
  void next_round();

 private:
  uint64_t draw();
  uint32_t random_quota();
  Schedule::Kind kind_;
  uint32_t warps_;
  uint64_t state_;
  bool shuffled_ = false;
  std::vector<uint16_t> order_;
};

}  // namespace smemlab::emu
