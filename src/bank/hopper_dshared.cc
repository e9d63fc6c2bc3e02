// Distributed shared memory: ld/st/atom/red.shared::cluster to another
// block of the cluster, as Nsight Compute counts them on an H100
// (bank/hopper.h, docs/bank-model.md "Hopper").
#include <map>
#include <set>

#include "bank/hopper.h"

namespace smemlab::bank {

DsharedCost dshared_cost(const Request& request) {
  validate(request);
  DsharedCost c;
  if (!request.mask) return c;
  c.requests = 1;
  // Turn k of an atomic holds every address's k-th lane; loads and stores
  // take one turn.
  std::map<uint64_t, unsigned> lanes_on_address;
  std::map<unsigned, std::set<uint64_t>> sectors_of_turn;
  for (unsigned lane = 0; lane < 32; ++lane) {
    if (!(request.mask >> lane & 1)) continue;
    const uint64_t a = request.addr[lane];
    const unsigned turn = request.op == Op::Atomic ? lanes_on_address[a]++ : 0;
    for (uint64_t s = a / 32; s <= (a + request.width - 1) / 32; ++s)
      sectors_of_turn[turn].insert(s);
  }
  for (const auto& [turn, sectors] : sectors_of_turn)
    c.sectors += static_cast<unsigned>(sectors.size());
  return c;
}

}  // namespace smemlab::bank
