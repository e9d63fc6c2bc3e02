#include "timing/footprint.h"

#include <algorithm>
#include <bit>
#include <map>

namespace smemlab::timing {

namespace {

using Bits = std::array<uint64_t, 32>;
constexpr unsigned kPageShift = 16, kSectorShift = 5;
constexpr uint64_t kSectorsPerPage = 1u << (kPageShift - kSectorShift);

class FootprintBlock final : public emu::BlockObserver {
 public:
  void on_memory(const emu::MemAccess& a) override {
    if (a.space != emu::Space::Global) return;
    for (uint32_t m = a.mask; m; m &= m - 1) {
      uint64_t addr = a.addr[__builtin_ctz(m)];
      for (uint64_t s = addr >> kSectorShift, last = (addr + a.width - 1) >> kSectorShift;
           s <= last; ++s)
        set(s);
    }
  }
  std::unordered_map<uint64_t, Bits> pages;

 private:
  void set(uint64_t sector) {
    uint64_t page = sector / kSectorsPerPage;
    if (!last_ || page != last_page_) {
      last_ = &pages[page];
      last_page_ = page;
    }
    uint64_t bit = sector % kSectorsPerPage;
    (*last_)[bit / 64] |= uint64_t{1} << (bit % 64);
  }
  Bits* last_ = nullptr;  // consecutive lanes mostly share a page
  uint64_t last_page_ = 0;
};

}  // namespace

std::unique_ptr<emu::BlockObserver> Footprint::make_block_observer(emu::Dim3) {
  return std::make_unique<FootprintBlock>();
}

void Footprint::finish_block(emu::Dim3, std::unique_ptr<emu::BlockObserver> observer) {
  auto* b = static_cast<FootprintBlock*>(observer.get());
  std::lock_guard lock(mu_);
  for (const auto& [page, bits] : b->pages) {
    Bits& into = pages_[page];
    for (size_t w = 0; w < bits.size(); ++w) into[w] |= bits[w];
  }
}

uint64_t Footprint::sectors() const {
  uint64_t n = 0;
  for (const auto& [page, bits] : pages_)
    for (uint64_t w : bits) n += static_cast<uint64_t>(std::popcount(w));
  return n;
}

double Footprint::bytes(const emu::GlobalMemory& memory, double scale) const {
  std::map<const emu::GlobalMemory::Allocation*, uint64_t> per_buffer;
  for (const auto& [page, bits] : pages_) {
    // A page inside one buffer counts at once; one that straddles buffers
    // (or a gap) is looked up sector by sector.
    uint64_t base = page << kPageShift;
    const auto* first = memory.find(base);
    if (first && first == memory.find(base + (uint64_t{1} << kPageShift) - 1)) {
      for (uint64_t w : bits) per_buffer[first] += static_cast<uint64_t>(std::popcount(w));
      continue;
    }
    for (uint64_t i = 0; i < kSectorsPerPage; ++i)
      if (bits[i / 64] >> (i % 64) & 1) ++per_buffer[memory.find(base + (i << kSectorShift))];
  }
  double total = 0;
  for (const auto& [buffer, n] : per_buffer) {
    double b = double(n) * 32.0 * scale;
    if (buffer) b = std::min(b, double(buffer->size));
    total += b;
  }
  return total;
}

}  // namespace smemlab::timing
