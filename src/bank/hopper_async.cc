// cp.async (LDGSTS) as Nsight Compute counts it on an H100: the shared-side
// wavefronts and the global requests and sectors (bank/hopper.h,
// docs/bank-model.md "Hopper", cp.async).
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "bank/hopper.h"

namespace smemlab::bank {

namespace {

constexpr uint64_t kAsyncSector = 32;

void check_async_lane(const AsyncCopyRequest& r, unsigned lane) {
  if (r.shared[lane] % r.width || r.global[lane] % r.width)
    throw Error("cp.async: lane " + std::to_string(lane) + "'s address is not aligned to its " +
                std::to_string(r.width) + " bytes");
}

// .ca: the most lanes on one bank of one side (lanes on one address are not
// merged); lanes that read nothing have no global side.
unsigned async_side_cost(const AsyncCopyRequest& r, uint32_t group_mask, bool global_side) {
  const auto& addr = global_side ? r.global : r.shared;
  std::map<unsigned, unsigned> lanes_on_bank;
  unsigned worst = 1;
  for (unsigned lane = 0; lane < 32; ++lane) {
    if (!(group_mask >> lane & 1) || (global_side && (r.no_read >> lane & 1))) continue;
    std::set<unsigned> banks;
    for (uint64_t w = addr[lane] / 4; w <= (addr[lane] + r.width - 1) / 4; ++w)
      banks.insert(w % 32);
    for (unsigned b : banks) worst = std::max(worst, ++lanes_on_bank[b]);
  }
  return worst;
}

void cache_access_cost(const AsyncCopyRequest& r, AsyncCopyCost& c) {
  std::set<uint64_t> sectors;
  for (unsigned lane = 0; lane < 32; ++lane)
    if ((r.mask >> lane & 1) && !(r.no_read >> lane & 1))
      for (uint64_t s = r.global[lane] / kAsyncSector;
           s <= (r.global[lane] + r.width - 1) / kAsyncSector; ++s)
        sectors.insert(s);
  c.global_sectors = static_cast<unsigned>(sectors.size());
  const unsigned per_group = r.width == 4 ? 32 : 128 / r.width;  // warp, half-warps, quarter-warps
  for (unsigned first = 0; first < 32; first += per_group) {
    const uint32_t group =
        r.mask & static_cast<uint32_t>(((uint64_t{1} << per_group) - 1) << first);
    if (!group) continue;
    const unsigned shared = async_side_cost(r, group, false),
                   global = async_side_cost(r, group, true);
    // Measured with conflicts on one side of a group at a time; with both,
    // the H100 takes more than either and no rule here says how many.
    if (shared > 1 && global > 1) c.shared_modelled = false;
    c.wavefronts += std::max(shared, global);
    c.ideal += 1;
  }
  c.bank_conflicts = c.wavefronts - c.ideal;
  if (!c.shared_modelled) c.wavefronts = c.ideal = c.bank_conflicts = 0;
}

// A .cg sector request: the first bytes of its lanes and whether two lanes
// fill it.
struct BypassRequest {
  uint64_t shared = 0, global = 0;
  bool whole = false;
};

// One lane per shared destination (the lowest), then lanes whose global and
// shared bytes share a 32-byte sector at the same offsets pair up, within
// `span` consecutive lanes.
std::vector<BypassRequest> bypass_requests(const AsyncCopyRequest& r, unsigned span) {
  std::set<uint64_t> destinations;
  std::map<std::tuple<unsigned, uint64_t, uint64_t, uint64_t>, std::vector<unsigned>> pairs;
  for (unsigned lane = 0; lane < 32; ++lane) {
    if (!(r.mask >> lane & 1) || !destinations.insert(r.shared[lane]).second) continue;
    pairs[{lane / span, r.shared[lane] / kAsyncSector, r.global[lane] / kAsyncSector,
           (r.shared[lane] - r.global[lane]) % kAsyncSector}]
        .push_back(lane);
  }
  std::vector<BypassRequest> out;
  for (const auto& [key, lanes] : pairs) {
    BypassRequest q{r.shared[lanes[0]], r.global[lanes[0]], lanes.size() == 2};
    for (unsigned lane : lanes) {
      q.shared = std::min(q.shared, r.shared[lane]);
      q.global = std::min(q.global, r.global[lane]);
    }
    out.push_back(q);
  }
  return out;
}

void bypass_cost(const AsyncCopyRequest& r, AsyncCopyCost& c) {
  // The src-size form (LDGSTS with a zero-fill size): measured (run 4 of
  // scripts/hopper-rules), no rule found for either side; a lane that
  // zero-fills only occurs in that form.
  if (r.src_size || (r.mask & r.no_read)) {
    c.shared_modelled = c.global_modelled = false;
    return;
  }
  c.global_sectors = static_cast<unsigned>(bypass_requests(r, 32).size());
  // Groups: global line, shared line, which half of a sector (2: whole),
  // (shared - global) mod 64; each counts its requests per global chunk.
  std::map<std::tuple<uint64_t, uint64_t, unsigned, uint64_t>, std::map<uint64_t, unsigned>> groups;
  for (const BypassRequest& q : bypass_requests(r, 16)) {
    const unsigned half = q.whole ? 2 : static_cast<unsigned>((q.global >> 4) & 1);
    ++groups[{q.global >> 7, q.shared >> 7, half, (q.shared - q.global) % 64}][q.global / 16];
  }
  for (const auto& [key, chunks] : groups) {
    unsigned worst = 0;
    for (const auto& [chunk, n] : chunks) worst = std::max(worst, n);
    c.wavefronts += worst;
  }
  c.ideal = c.wavefronts;  // Nsight Compute reports no bank conflicts for .cg
}

}  // namespace

AsyncCopyCost async_copy_cost(const AsyncCopyRequest& r) {
  if (r.width != 4 && r.width != 8 && r.width != 16)
    throw Error("cp.async: width " + std::to_string(r.width) + " is not 4, 8 or 16 bytes");
  if (r.bypass && r.width != 16)
    throw Error("cp.async.cg: width " + std::to_string(r.width) + " is not 16 bytes");
  AsyncCopyCost c;
  for (unsigned lane = 0; lane < 32; ++lane)
    if (r.mask >> lane & 1) check_async_lane(r, lane);
  if (!r.mask) return c;
  c.global_requests = (r.mask & ~r.no_read) ? 1 : 0;  // lanes that only zero-fill read nothing
  if (r.bypass)
    bypass_cost(r, c);
  else
    cache_access_cost(r, c);
  return c;
}

}  // namespace smemlab::bank
