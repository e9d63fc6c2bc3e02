#include "timing/footprint.h"

#include <algorithm>
#include <map>

namespace smemlab::timing {

namespace {

class FootprintBlock final : public emu::BlockObserver {
 public:
  void on_memory(const emu::MemAccess& a) override {
    if (a.space != emu::Space::Global) return;
    for (uint32_t m = a.mask; m; m &= m - 1) {
      int lane = __builtin_ctz(m);
      uint64_t first = a.addr[lane] >> 5, last = (a.addr[lane] + a.width - 1) >> 5;
      for (uint64_t s = first; s <= last; ++s)
        if (s != last_) {
          last_ = s;
          sectors.push_back(s);
        }
    }
  }
  std::vector<uint64_t> sectors;

 private:
  uint64_t last_ = UINT64_MAX;  // consecutive lanes mostly share a sector
};

}  // namespace

std::unique_ptr<emu::BlockObserver> Footprint::make_block_observer(emu::Dim3) {
  return std::make_unique<FootprintBlock>();
}

void Footprint::finish_block(emu::Dim3, std::unique_ptr<emu::BlockObserver> observer) {
  auto* b = static_cast<FootprintBlock*>(observer.get());
  std::sort(b->sectors.begin(), b->sectors.end());
  b->sectors.erase(std::unique(b->sectors.begin(), b->sectors.end()), b->sectors.end());
  std::lock_guard lock(mu_);
  sectors_.insert(b->sectors.begin(), b->sectors.end());
}

double Footprint::bytes(const emu::GlobalMemory& memory, double scale) const {
  std::map<const emu::GlobalMemory::Allocation*, uint64_t> per_buffer;
  for (uint64_t s : sectors_) ++per_buffer[memory.find(s << 5)];
  double total = 0;
  for (const auto& [buffer, n] : per_buffer) {
    double b = double(n) * 32.0 * scale;
    if (buffer) b = std::min(b, double(buffer->size));
    total += b;
  }
  return total;
}

}  // namespace smemlab::timing
