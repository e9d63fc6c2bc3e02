// cp.async (LDGSTS) as Nsight Compute counts it on an H100: the shared-side
// wavefronts and the global requests and sectors (bank/hopper.h,
// docs/bank-model.md "Hopper", cp.async).
#include <algorithm>
#include <array>
#include <bit>
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

// The banks a lane's bytes cover, as a mask of the 32.
uint32_t async_banks(uint64_t addr, unsigned width) {
  uint32_t banks = 0;
  for (uint64_t w = addr / 4; w <= (addr + width - 1) / 4; ++w) banks |= 1u << (w % 32);
  return banks;
}

// .ca's bank pass over one group of lanes: the most lanes any lane shares a
// bank with, itself included, on the shared side or, where both lanes read
// (src-size not 0), on the global side (lanes on one address are not
// merged). With conflicts on one side only this is that side's most lanes
// on one bank; where a lane's shared and global conflicts involve other
// lanes, their union (docs/bank-model.md, runs 3, 7 and 8).
unsigned async_group_cost(const AsyncCopyRequest& r, uint32_t group) {
  std::array<uint32_t, 32> shared{}, global{};
  for (unsigned lane = 0; lane < 32; ++lane)
    if (group >> lane & 1) {
      shared[lane] = async_banks(r.shared[lane], r.width);
      global[lane] = r.no_read >> lane & 1 ? 0 : async_banks(r.global[lane], r.width);
    }
  unsigned worst = 1;
  for (unsigned lane = 0; lane < 32; ++lane) {
    if (!(group >> lane & 1)) continue;
    uint32_t with = 0;
    for (unsigned other = 0; other < 32; ++other)
      if ((group >> other & 1) &&
          ((shared[other] & shared[lane]) || (global[other] & global[lane])))
        with |= 1u << other;
    worst = std::max(worst, static_cast<unsigned>(std::popcount(with)));
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
    c.wavefronts += async_group_cost(r, group);
    c.ideal += 1;
  }
  c.bank_conflicts = c.wavefronts - c.ideal;
}

// A .cg sector request: the first bytes of its lanes and whether two lanes
// fill it.
struct BypassRequest {
  uint64_t shared = 0, global = 0;
  bool whole = false;
};

// Which lanes form a copy's sector requests: all of them (one per shared
// destination, the lowest lane); of those, the ones that read; or the
// reading lanes alone, one per shared destination among them.
enum class BypassLanes { All, ReadingOfAll, Reading };

// One lane per shared destination, then lanes whose global and shared bytes
// share a 32-byte sector at the same offsets pair up, within `span`
// consecutive lanes.
std::vector<BypassRequest> bypass_requests(const AsyncCopyRequest& r, unsigned span,
                                           BypassLanes which = BypassLanes::All) {
  std::set<uint64_t> destinations;
  std::map<std::tuple<unsigned, uint64_t, uint64_t, uint64_t>, std::vector<unsigned>> pairs;
  for (unsigned lane = 0; lane < 32; ++lane) {
    const bool reads = !(r.no_read >> lane & 1);
    if (!(r.mask >> lane & 1) || (which == BypassLanes::Reading && !reads) ||
        !destinations.insert(r.shared[lane]).second)
      continue;
    if (which == BypassLanes::ReadingOfAll && !reads) continue;
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

// The .cg wavefronts of a set of sector requests: groups by global line,
// shared line, which half of a sector (2: whole) and (shared - global) mod
// 64; each group costs the most requests that read one global 16-byte chunk.
unsigned bypass_wavefronts(const std::vector<BypassRequest>& requests) {
  std::map<std::tuple<uint64_t, uint64_t, unsigned, uint64_t>, std::map<uint64_t, unsigned>> groups;
  for (const BypassRequest& q : requests) {
    const unsigned half = q.whole ? 2 : static_cast<unsigned>((q.global >> 4) & 1);
    ++groups[{q.global >> 7, q.shared >> 7, half, (q.shared - q.global) % 64}][q.global / 16];
  }
  unsigned total = 0;
  for (const auto& [key, chunks] : groups) {
    unsigned worst = 0;
    for (const auto& [chunk, n] : chunks) worst = std::max(worst, n);
    total += worst;
  }
  return total;
}

// The src-size form (LDGSTS.ZFILL), derived from run 4 and checked on run 7
// (84 launches, docs/bank-model.md): it passes over the copy twice, once
// for every lane's shared bytes (the fill) and once for the reading lanes,
// each pass paired as the plain form, warp-wide: sectors = the requests of
// both passes (the read pass takes one reading lane per shared
// destination); wavefronts = both passes grouped as the plain form (the
// read pass: the reading lanes among the fill's lanes), plus .ca's bank
// pass over each quarter-warp (async_group_cost), whose excess over 1 is
// the bank conflicts.
void bypass_src_size_cost(const AsyncCopyRequest& r, AsyncCopyCost& c) {
  c.global_sectors = static_cast<unsigned>(bypass_requests(r, 32).size() +
                                           bypass_requests(r, 32, BypassLanes::Reading).size());
  const unsigned passes = bypass_wavefronts(bypass_requests(r, 32)) +
                          bypass_wavefronts(bypass_requests(r, 32, BypassLanes::ReadingOfAll));
  unsigned banks = 0, quarters = 0;
  for (unsigned first = 0; first < 32; first += 8) {
    const uint32_t quarter = r.mask & (0xffu << first);
    if (!quarter) continue;
    ++quarters;
    banks += async_group_cost(r, quarter);
  }
  c.wavefronts = passes + banks;
  c.ideal = passes + quarters;
  c.bank_conflicts = banks - quarters;
}

// The predicated form's wavefronts with a predicate operand other than P0
// (run 10: 124 instruction rows of 16 sgemm_async_*_vec launches and 10
// back-to-back probes): the plain form's groups over the reading lanes and
// the zero-filling lanes that no other lane shares a global address with (a
// zero-filling lane's address is the instruction's, read or not: at their
// own addresses zero-filling lanes cost as reading ones; sgemm_async points
// them all at `B`). `*shared_pass` stays counted only where some
// zero-filling lane was left out.
unsigned predicated_read_pass(const AsyncCopyRequest& r, unsigned* shared_pass) {
  std::map<uint64_t, unsigned> zero_at;
  for (unsigned lane = 0; lane < 32; ++lane)
    if ((r.mask & r.no_read) >> lane & 1) ++zero_at[r.global[lane]];
  AsyncCopyRequest kept = r;
  kept.no_read = 0;
  for (unsigned lane = 0; lane < 32; ++lane)
    if (((r.mask & r.no_read) >> lane & 1) && zero_at[r.global[lane]] > 1)
      kept.mask &= ~(1u << lane);
  if (kept.mask == r.mask) *shared_pass = 0;
  return kept.mask ? bypass_wavefronts(bypass_requests(kept, 16)) : 0;
}

// The predicated form (LDGSTS without .ZFILL, its last operand the lanes
// that read; 126 launches of run 9, docs/bank-model.md): the wavefronts are
// the shared side's bank pass per quarter-warp over every lane, read or not
// (a 16-byte global offset that the plain form pays for costs nothing
// here); the sectors are the reading lanes' requests, paired as the plain
// form. Where some lane reads nothing, .ca's bank pass over each quarter
// (global banks of the reading lanes included) adds its excess to the bank
// conflicts only: they can exceed wavefronts - ideal.
void bypass_predicated_cost(const AsyncCopyRequest& r, AsyncCopyCost& c) {
  c.global_sectors = static_cast<unsigned>(bypass_requests(r, 32, BypassLanes::Reading).size());
  AsyncCopyRequest shared_side = r;
  shared_side.no_read = r.mask;
  unsigned shared_pass = 0;
  for (unsigned first = 0; first < 32; first += 8) {
    const uint32_t quarter = r.mask & (0xffu << first);
    if (!quarter) continue;
    shared_pass += async_group_cost(shared_side, quarter);
    c.ideal += 1;
    if (r.mask & r.no_read) c.bank_conflicts += async_group_cost(r, quarter) - 1;
  }
  if (r.predicate_p0) {
    c.wavefronts = shared_pass;
    return;
  }
  c.wavefronts = predicated_read_pass(r, &shared_pass) + shared_pass;
}

void bypass_cost(const AsyncCopyRequest& r, AsyncCopyCost& c) {
  if (r.predicated) return bypass_predicated_cost(r, c);
  // A lane that zero-fills only occurs in the src-size form.
  if (r.src_size || (r.mask & r.no_read)) return bypass_src_size_cost(r, c);
  c.global_sectors = static_cast<unsigned>(bypass_requests(r, 32).size());
  c.wavefronts = bypass_wavefronts(bypass_requests(r, 16));
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
