// Distributed shared memory: ld/st/atom/red.shared::cluster to other
// blocks of the cluster, as Nsight Compute counts them on an H100
// (bank/hopper.h; rule and evidence: docs/bank-model.md, "Distributed
// shared memory", run 13).
#include <array>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "bank/hopper.h"

namespace smemlab::bank {

namespace {

// The 2-bit slice of one lane: an XOR of the address's 128-byte line bits
// and the target rank's bits, each bit contributing a fixed value
// (measured one bit at a time with two-lane probes, run 13: lanes on equal
// slices but different (rank, line) never share an output wavefront).
// Address bits 14 and up were not measured (the probes' buffer is 16 KiB):
// they contribute nothing here.
constexpr std::array<unsigned, 7> kSliceOfAddressBit = {1, 2, 1, 2, 3, 1, 2};  // bits 7 .. 13
constexpr std::array<unsigned, 4> kSliceOfRankBit = {1, 3, 1, 3};              // rank bits 0 .. 3

unsigned slice_of(uint32_t rank, uint64_t addr) {
  unsigned s = 0;
  for (unsigned b = 0; b < kSliceOfAddressBit.size(); ++b)
    if (addr >> (7 + b) & 1) s ^= kSliceOfAddressBit[b];
  for (unsigned b = 0; b < kSliceOfRankBit.size(); ++b)
    if (rank >> b & 1) s ^= kSliceOfRankBit[b];
  return s;
}

struct Lane {
  uint32_t rank;
  uint64_t addr;
};

void add_sectors(std::set<std::pair<uint32_t, uint64_t>>& into, const Lane& l, unsigned width) {
  for (uint64_t s = l.addr / 32; s <= (l.addr + width - 1) / 32; ++s) into.insert({l.rank, s});
}

// Atomics: the issuer sends the lanes in output wavefronts, each formed by
// one pass over the lanes left, in lane order. A wavefront holds one
// (rank, 128-byte line) per slice; a lane whose slice holds another line
// waits for a later wavefront and blocks its bank within that slice for
// the rest of the pass, so a later lane of the held line on that bank
// waits too (which is how one sector gets sent twice); a second lane on an
// address already sent waits as well (atomics on one word take turns).
// Each wavefront costs the distinct (rank, sector)s it sends.
unsigned atomic_sectors(std::vector<Lane> left, unsigned width) {
  unsigned sectors = 0;
  while (!left.empty()) {
    std::array<std::optional<std::pair<uint32_t, uint64_t>>, 4> held;  // (rank, line) per slice
    std::set<std::pair<unsigned, unsigned>> blocked;                   // (slice, bank)
    std::set<std::pair<uint32_t, uint64_t>> sent, sent_sectors;
    std::vector<Lane> later;
    for (const Lane& l : left) {
      const unsigned slice = slice_of(l.rank, l.addr);
      const unsigned bank = static_cast<unsigned>(l.addr / 4 % 32);
      const std::pair<uint32_t, uint64_t> line{l.rank, l.addr / 128};
      if (sent.count({l.rank, l.addr})) {
        later.push_back(l);
      } else if (held[slice] && *held[slice] != line) {
        later.push_back(l);
        blocked.insert({slice, bank});
      } else if (blocked.count({slice, bank})) {
        later.push_back(l);
      } else {
        held[slice] = line;
        sent.insert({l.rank, l.addr});
        add_sectors(sent_sectors, l, width);
      }
    }
    sectors += static_cast<unsigned>(sent_sectors.size());
    left = std::move(later);
  }
  return sectors;
}

}  // namespace

DsharedCost dshared_cost(const DsharedRequest& request) {
  Request plain;
  plain.op = request.op;
  plain.width = request.width;
  plain.mask = request.mask;
  plain.addr = request.addr;
  validate(plain);
  DsharedCost c;
  if (!request.mask) return c;
  c.requests = 1;
  std::vector<Lane> lanes;
  for (unsigned lane = 0; lane < 32; ++lane)
    if (request.mask >> lane & 1) lanes.push_back({request.rank[lane], request.addr[lane]});
  if (request.op == Op::Atomic) {
    c.sectors = atomic_sectors(std::move(lanes), request.width);
    return c;
  }
  // Loads and stores: the distinct sectors the lanes touch, per block.
  std::set<std::pair<uint32_t, uint64_t>> sectors;
  for (const Lane& l : lanes) add_sectors(sectors, l, request.width);
  c.sectors = static_cast<unsigned>(sectors.size());
  return c;
}

DsharedCost dshared_cost(const Request& request) {
  DsharedRequest r;
  r.op = request.op;
  r.width = request.width;
  r.mask = request.mask;
  r.addr = request.addr;
  return dshared_cost(r);
}

}  // namespace smemlab::bank
