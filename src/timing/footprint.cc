#include "timing/footprint.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "timing/classify.h"
#include "timing/short_circuit.h"

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

// The clock value a sector was last loaded at (0: never), in 64 KiB pages
// like SectorBits.
struct SectorStamps {
  using Page = std::array<uint32_t, kSectorsPerPage>;
  std::unordered_map<uint64_t, std::unique_ptr<Page>> pages;
  uint32_t& slot(uint64_t sector) {
    uint64_t page = sector / kSectorsPerPage;
    if (!last || page != last_page) {
      auto& p = pages[page];
      if (!p) p = std::make_unique<Page>(Page{});
      last = p.get();
      last_page = page;
    }
    return (*last)[sector % kSectorsPerPage];
  }
  // Stores `now` for the sector and returns what it held.
  uint32_t exchange(uint64_t sector, uint32_t now) { return std::exchange(slot(sector), now); }
  Page* last = nullptr;
  uint64_t last_page = 0;
};

// Re-read distances on the warps' clocks, by a quarter octave (0: distance
// 0, then 4 per power of two), so a block's histogram stays small however
// long its warps run; finish_block turns them into fractions of the span.
constexpr int kDistanceSteps = 1 + 4 * 32;
int distance_step(uint32_t d) {
  if (d == 0) return 0;
  int l = 31 - __builtin_clz(d);
  uint32_t quarter = l >= 2 ? (d >> (l - 2)) & 3 : (d << (2 - l)) & 3;
  return 1 + 4 * l + int(quarter);
}
double distance_of_step(int step) {
  if (step == 0) return 0;
  int l = (step - 1) / 4, quarter = (step - 1) % 4;
  return std::ldexp((4.0 + quarter + 0.5) / 4.0, l);
}

// Sectors a store request writes only part of: the L2 merges such a write
// into the sector (a byte mask per sector), which the H100 does far more
// slowly than whole-sector writes (h100.def l2_partial_writes).
uint64_t partial_sectors(const emu::MemAccess& a) {
  std::pair<uint64_t, uint32_t> pieces[64];  // sector, bytes written (a bit each)
  size_t n = 0;
  for (uint32_t m = a.mask; m; m &= m - 1) {
    const uint64_t addr = a.addr[__builtin_ctz(m)], end = addr + a.width;
    for (uint64_t s = addr >> kSectorShift; s <= (end - 1) >> kSectorShift && n < 64; ++s) {
      const uint64_t lo = std::max(addr, s << kSectorShift) & 31,
                     hi = std::min(end, (s + 1) << kSectorShift) - (s << kSectorShift);
      const uint32_t bits = hi - lo >= 32 ? ~0u : ((1u << (hi - lo)) - 1) << lo;
      pieces[n++] = {s, bits};
    }
  }
  std::sort(pieces, pieces + n);
  uint64_t partial = 0;
  for (size_t i = 0; i < n;) {
    uint32_t bytes = 0;
    size_t j = i;
    for (; j < n && pieces[j].first == pieces[i].first; ++j) bytes |= pieces[j].second;
    partial += bytes != ~0u;
    i = j;
  }
  return partial;
}

class FootprintBlock final : public emu::BlockObserver {
 public:
  void on_memory(const emu::MemAccess& a) override {
    // A warp's clock: its memory instructions so far (every space), the
    // progress the GPU's interleaving keeps roughly even across warps.
    if (a.warp >= clock.size()) clock.resize(a.warp + 1);
    const uint32_t now = ++clock[a.warp];
    if (a.space != emu::Space::Global) return;
    if (!classified_ || a.instr != last_instr_) {  // once per run of one instruction
      classified_ = true;
      last_instr_ = a.instr;
      last_cached_ =
          a.op == emu::MemOp::Load && !a.mbarrier && (!a.instr || l1_cached_load(a.instr->text));
    }
    const bool l1 = last_cached_;
    // This request's sectors (a lane spans at most 2), in lane order (a full
    // warp whose lanes each stay in one sector: a branch-free loop); each
    // distinct one then sets its bit once, and lanes in address order (most
    // requests) need no sort.
    uint64_t request[64];
    size_t n = 0;
    if (a.mask == UINT32_MAX) {  // (whole warp: it vectorizes)
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
        if (n == 64) return sectors_lane_by_lane(a, l1, now);  // (wider than any PTX access)
        request[n++] = s;
      }
    }
    if (!std::is_sorted(request, request + n)) std::sort(request, request + n);
    n = size_t(std::unique(request, request + n) - request);
    for (size_t i = 0; i < n; ++i) all.set(request[i]);
    if (a.op == emu::MemOp::Store && !a.mbarrier) partial_stores += partial_sectors(a);
    if (l1) count_loads(request, n, now);
  }
  uint32_t span() const {
    uint32_t s = 1;
    for (uint32_t c : clock) s = std::max(s, c);
    return s;
  }
  SectorBits all;
  SectorStamps loads;  // the clock each sector was last loaded at
  SectorStamps first;  // and first loaded at
  // Cached load requests by how long ago their newest sector was first
  // loaded (L1Reuse::since_first).
  std::array<uint64_t, kReuseOctaves> since_first{};
  uint64_t load_requests = 0;
  std::vector<uint32_t> clock;  // per warp of the block
  std::array<uint64_t, kDistanceSteps> by_distance{};
  uint64_t requested = 0, distinct_loads = 0, partial_stores = 0;

 private:
  // Each lane's sectors in turn (a request of over 64 sectors, if any).
  void sectors_lane_by_lane(const emu::MemAccess& a, bool l1, uint32_t now) {
    uint64_t request[64];
    size_t n = 0;
    for (uint32_t m = a.mask; m; m &= m - 1) {
      uint64_t addr = a.addr[__builtin_ctz(m)];
      for (uint64_t s = addr >> kSectorShift, last = (addr + a.width - 1) >> kSectorShift;
           s <= last; ++s) {
        all.set(s);
        if (l1 && n < 64) request[n++] = s;
      }
    }
    if (a.op == emu::MemOp::Store && !a.mbarrier) partial_stores += partial_sectors(a);
    if (!l1) return;
    std::sort(request, request + n);
    count_loads(request, size_t(std::unique(request, request + n) - request), now);
  }
  // A cached load's distinct sectors `request[0, n)`: first loads and
  // re-read distances, and how long ago its newest sector was first loaded
  // (a request waits for L2 while that sector is in flight).
  void count_loads(const uint64_t* request, size_t n, uint32_t now) {
    requested += n;
    uint32_t since = UINT32_MAX;
    for (size_t i = 0; i < n; ++i) {
      const uint32_t before = loads.exchange(request[i], now);
      if (before == 0) {
        ++distinct_loads;
        first.slot(request[i]) = now;
        since = 0;
        continue;
      }
      ++by_distance[distance_step(now > before ? now - before : before - now)];
      const uint32_t f = first.slot(request[i]);
      since = std::min(since, now > f ? now - f : f - now);
    }
    if (n == 0) return;
    ++load_requests;
    ++since_first[since == 0 ? 0 : std::min(kReuseOctaves - 1, 32 - __builtin_clz(since))];
  }
  const emu::InstrInfo* last_instr_ = nullptr;
  bool classified_ = false, last_cached_ = false;
};

}  // namespace

std::unique_ptr<emu::BlockObserver> Footprint::make_block_observer(emu::Dim3) {
  if (kShortCircuit) return nullptr;  // the cost harness (short_circuit.h)
  return std::make_unique<FootprintBlock>();
}

void Footprint::finish_block(emu::Dim3, std::unique_ptr<emu::BlockObserver> observer) {
  auto* b = static_cast<FootprintBlock*>(observer.get());
  std::lock_guard lock(mu_);
  ++l1_.blocks;
  l1_.requested += b->requested;
  l1_.block_distinct += b->distinct_loads;
  partial_stores_ += b->partial_stores;
  l1_.load_requests += b->load_requests;
  for (int i = 0; i < kReuseOctaves; ++i) l1_.since_first[i] += b->since_first[i];
  // Each distance as a fraction x of the block's span: octave floor(-log2 x).
  const double span = double(b->span());
  for (int step = 0; step < kDistanceSteps; ++step) {
    if (!b->by_distance[step]) continue;
    const double x = distance_of_step(step) / span;
    int octave = x <= 0 ? kReuseOctaves - 1 : int(std::floor(-std::log2(x)));
    l1_.rereads[std::clamp(octave, 0, kReuseOctaves - 1)] += b->by_distance[step];
  }
  for (const auto& [page, bits] : b->all.pages) {
    Bits& into = pages_[page];
    for (size_t w = 0; w < bits.size(); ++w) into[w] |= bits[w];
  }
}

ReuseProfile L1Reuse::profile() const {
  ReuseProfile p;
  uint64_t waiting = 0;
  for (int i = 0; i < kReuseOctaves && load_requests; ++i) {
    waiting += since_first[i];
    p.waiting[i] = double(waiting) / double(load_requests);
  }
  if (!requested) return p;
  uint64_t within = 0;
  for (int i = kReuseOctaves - 1; i >= 0; --i) {
    within += rereads[i];
    p.within[i] = double(within) / double(requested);
  }
  return p;
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
