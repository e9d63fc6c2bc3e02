#include "timing/footprint.h"

#include <algorithm>
#include <bit>
#include <map>
#include <vector>

#include "timing/classify.h"

namespace smemlab::timing {

namespace {

using Bits = std::array<uint64_t, 32>;
constexpr unsigned kPageShift = 16, kSectorShift = 5;
constexpr uint64_t kSectorsPerPage = 1u << (kPageShift - kSectorShift);

// A bit per sector in 64 KiB pages, remembering the last page (consecutive
// lanes mostly share one).
struct SectorBits {
  std::unordered_map<uint64_t, Bits> pages;
  // Sets the sector's bit; true when it was clear.
  bool set(uint64_t sector) {
    uint64_t page = sector / kSectorsPerPage;
    if (!last || page != last_page) {
      last = &pages[page];
      last_page = page;
    }
    uint64_t bit = sector % kSectorsPerPage, mask = uint64_t{1} << (bit % 64);
    bool fresh = !((*last)[bit / 64] & mask);
    (*last)[bit / 64] |= mask;
    return fresh;
  }
  Bits* last = nullptr;
  uint64_t last_page = 0;
};

class FootprintBlock final : public emu::BlockObserver {
 public:
  void on_memory(const emu::MemAccess& a) override {
    if (a.space != emu::Space::Global) return;
    if (!classified_ || a.instr != last_instr_) {  // once per run of one instruction
      classified_ = true;
      last_instr_ = a.instr;
      last_cached_ =
          a.op == emu::MemOp::Load && !a.mbarrier && (!a.instr || l1_cached_load(a.instr->text));
    }
    const bool l1 = last_cached_;
    // This request's sectors (a lane spans at most 2), in lane order; each
    // distinct one then sets its bits once (a coalesced request: 32 lanes,
    // 4 sectors). Lanes in address order (most requests) need no sort.
    uint64_t request[64];
    size_t n = 0;
    if (a.mask == UINT32_MAX) {  // (whole warp: a loop without branches, it vectorizes)
      uint64_t spans = 0;
      for (unsigned l = 0; l < 32; ++l) {
        request[l] = a.addr[l] >> kSectorShift;
        spans |= ((a.addr[l] + a.width - 1) >> kSectorShift) ^ request[l];
      }
      n = spans ? 0 : 32;  // no lane spans two sectors, else lane by lane below
    }
    for (uint32_t m = n ? 0 : a.mask; m; m &= m - 1) {
      uint64_t addr = a.addr[__builtin_ctz(m)];
      for (uint64_t s = addr >> kSectorShift, last = (addr + a.width - 1) >> kSectorShift;
           s <= last; ++s) {
        if (n == 64) return sectors_lane_by_lane(a, l1);  // (wider than any PTX access)
        request[n++] = s;
      }
    }
    if (!std::is_sorted(request, request + n)) std::sort(request, request + n);
    const size_t distinct = size_t(std::unique(request, request + n) - request);
    for (size_t i = 0; i < distinct; ++i) {
      all.set(request[i]);
      if (l1 && loads.set(request[i])) ++distinct_loads;
    }
    if (l1) requested += distinct;
  }
  SectorBits all, loads;
  uint64_t requested = 0, distinct_loads = 0;

 private:
  // Each lane's sectors in turn (requests of over 64 sectors, if any).
  void sectors_lane_by_lane(const emu::MemAccess& a, bool l1) {
    std::vector<uint64_t> request;
    for (uint32_t m = a.mask; m; m &= m - 1) {
      uint64_t addr = a.addr[__builtin_ctz(m)];
      for (uint64_t s = addr >> kSectorShift, last = (addr + a.width - 1) >> kSectorShift;
           s <= last; ++s) {
        all.set(s);
        if (!l1) continue;
        if (loads.set(s)) ++distinct_loads;
        if (request.size() < 64) request.push_back(s);  // (as the fast path's array)
      }
    }
    std::sort(request.begin(), request.end());
    requested += uint64_t(std::unique(request.begin(), request.end()) - request.begin());
  }
  const emu::InstrInfo* last_instr_ = nullptr;
  bool classified_ = false, last_cached_ = false;
};

}  // namespace

std::unique_ptr<emu::BlockObserver> Footprint::make_block_observer(emu::Dim3) {
  return std::make_unique<FootprintBlock>();
}

void Footprint::finish_block(emu::Dim3, std::unique_ptr<emu::BlockObserver> observer) {
  auto* b = static_cast<FootprintBlock*>(observer.get());
  std::lock_guard lock(mu_);
  ++l1_.blocks;
  l1_.requested += b->requested;
  l1_.block_distinct += b->distinct_loads;
  for (const auto& [page, bits] : b->all.pages) {
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

namespace {

// Granules of `sectors` consecutive sectors (1, 2 or 4) with a bit set in w.
uint64_t granules_set(uint64_t w, unsigned sectors) {
  if (sectors >= 4) {
    w |= w >> 1;
    w |= w >> 2;
    return static_cast<uint64_t>(std::popcount(w & 0x1111111111111111ull));
  }
  if (sectors == 2)
    return static_cast<uint64_t>(std::popcount((w | w >> 1) & 0x5555555555555555ull));
  return static_cast<uint64_t>(std::popcount(w));
}

}  // namespace

double Footprint::bytes(const emu::GlobalMemory& memory, double scale, double granule) const {
  const unsigned per = granule >= 128 ? 4 : granule >= 64 ? 2 : 1;
  std::map<const emu::GlobalMemory::Allocation*, uint64_t> per_buffer;
  for (const auto& [page, bits] : pages_) {
    // A page inside one buffer counts at once; one that straddles buffers
    // (or a gap) is looked up granule by granule.
    uint64_t base = page << kPageShift;
    const auto* first = memory.find(base);
    if (first && first == memory.find(base + (uint64_t{1} << kPageShift) - 1)) {
      for (uint64_t w : bits) per_buffer[first] += granules_set(w, per);
      continue;
    }
    for (uint64_t i = 0; i < kSectorsPerPage; i += per) {
      bool any = false;
      for (unsigned j = 0; j < per; ++j) any |= (bits[(i + j) / 64] >> ((i + j) % 64)) & 1;
      if (any) ++per_buffer[memory.find(base + (i << kSectorShift))];
    }
  }
  double total = 0;
  for (const auto& [buffer, n] : per_buffer) {
    double b = double(n) * 32.0 * per * scale;
    if (buffer) b = std::min(b, double(buffer->size));
    total += b;
  }
  return total;
}

}  // namespace smemlab::timing
