#include "emu/schedule.h"

#include <charconv>
#include <utility>

namespace smemlab::emu {

std::optional<Schedule> parse_schedule(const std::string& text) {
  if (text == "gpu") return Schedule{Schedule::Kind::Gpu, 1};
  if (text == "serial") return Schedule{Schedule::Kind::Serial, 1};
  if (text == "random") return Schedule{Schedule::Kind::Random, 1};
  const std::string prefix = "random:";
  if (text.rfind(prefix, 0) != 0 || text.size() == prefix.size()) return std::nullopt;
  uint64_t seed = 0;
  const char* first = text.data() + prefix.size();
  const char* last = text.data() + text.size();
  auto [end, ec] = std::from_chars(first, last, seed);
  if (ec != std::errc{} || end != last) return std::nullopt;
  return Schedule{Schedule::Kind::Random, seed};
}

std::string to_string(const Schedule& s) {
  switch (s.kind) {
    case Schedule::Kind::Gpu:
      return "gpu";
    case Schedule::Kind::Serial:
      return "serial";
    case Schedule::Kind::Random:
      return "random:" + std::to_string(s.seed);
  }
  return "gpu";
}

WarpTurns::WarpTurns(const Schedule& s, uint32_t warps, uint64_t block_key)
    : kind_(s.kind), warps_(warps), state_(s.seed ^ (block_key * 0x9e3779b97f4a7c15ull)) {
  // One warp alone has nobody to interleave with: it runs as under serial
  // (the same result, without a return to the block loop per memory op).
  if (warps_ <= 1) kind_ = Schedule::Kind::Serial;
  if (kind_ == Schedule::Kind::Random) {
    order_.resize(warps_);
    for (uint32_t i = 0; i < warps_; ++i) order_[i] = static_cast<uint16_t>(i);
    shuffled_ = true;
    next_round();
  }
}

// splitmix64: small, fast, and the same sequence on every platform.
uint64_t WarpTurns::draw() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Mostly short turns, one in eight as long as serial's: races that only a
// warp far ahead of the others shows are reached too.
uint32_t WarpTurns::random_quota() {
  uint64_t r = draw();
  return r % 8 == 0 ? UINT32_MAX : 1 + static_cast<uint32_t>((r >> 3) % 16);
}

void WarpTurns::next_round() {
  if (!shuffled_) return;
  for (uint32_t i = warps_; i > 1; --i) std::swap(order_[i - 1], order_[draw() % i]);
}

}  // namespace smemlab::emu
