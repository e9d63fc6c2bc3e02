// Helpers for the bank model's tests: requests built from a per-lane formula.
#pragma once

#include <functional>

#include "bank/bank.h"

namespace smemlab::bank::testing {

// A request whose lane i accesses addr(i); all 32 lanes active unless mask given.
inline Request make_request(Op op, unsigned width, const std::function<uint64_t(unsigned)>& addr,
                            uint32_t mask = 0xffffffffu) {
  Request r;
  r.op = op;
  r.width = width;
  r.mask = mask;
  for (unsigned i = 0; i < 32; ++i) r.addr[i] = addr(i);
  return r;
}

// Sums one warp-level request per warp of a 2D block (x fastest), as a
// kernel would issue them: addr(tx, ty) gives each thread's byte address.
struct BlockCost {
  unsigned requests = 0, wavefronts = 0, ideal = 0;
};
inline BlockCost block_cost(const Model& m, Op op, unsigned width, unsigned bx, unsigned by,
                            const std::function<uint64_t(unsigned, unsigned)>& addr) {
  BlockCost c;
  unsigned threads = bx * by;
  for (unsigned w = 0; w * 32 < threads; ++w) {
    Request r;
    r.op = op;
    r.width = width;
    r.mask = 0;
    for (unsigned lane = 0; lane < 32; ++lane) {
      unsigned t = w * 32 + lane;
      if (t >= threads) break;
      r.mask |= 1u << lane;
      r.addr[lane] = addr(t % bx, t / bx);
    }
    Result res = m.evaluate(r);
    ++c.requests;
    c.wavefronts += res.wavefronts;
    c.ideal += res.ideal;
  }
  return c;
}

}  // namespace smemlab::bank::testing
