// Small helpers shared by the bandwidth-bound topic benchmarks (reverse,
// tiles, transpose, demos, memory, config): problem sizes and the common
// "verify, then time" tail of a benchmark.
#pragma once

#include <cstdio>
#include <string>

#include "bench/bench.h"

namespace smemlab::bench {

// 256 MiB of 4-byte elements (64 MiB in --quick runs).
inline size_t big_elems(const Context& c) { return (c.quick ? 64ull : 256ull) << 20 >> 2; }

inline std::string fixed(double v, int prec) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", prec, v);
  return buf;
}

// Fills in the timing part of `r` (already verified or not) for `launch`.
template <class Launch>
Result& time_into(Result& r, Context& c, Launch&& launch) {
  if (!r.error.empty()) return r;
  r.samples_ms = time_ms(c, launch);
  r.ms = median(r.samples_ms);
  r.verified = true;
  return r;
}

}  // namespace smemlab::bench
