#include "libs/curand_mtgp32.h"

#include <curand_mtgp32dc_p_11213.h>

#include <cstring>

namespace smemlab::libs::mtgp {
namespace {
constexpr unsigned kMask = 1023, kN = MTGPDC_N;  // the state ring; MTGPDC_N = 351
}

Sequence::Sequence(uint64_t seed) : seed_(seed), states_(kStates) {
  for (unsigned b = 0; b < kStates; ++b) reset(b);
}

// curand_mtgp32_host.h's mtgp32_init_state with curandMakeMTGP32KernelState's seed.
void Sequence::reset(unsigned b) {
  State& st = states_[b];
  const mtgp32_params_fast_t& p = mtgp32dc_params_fast_11213[b];
  const uint32_t seed = uint32_t(seed_ ^ (seed_ >> 32)) + b + 1;
  const int size = p.mexp / 32 + 1;
  uint32_t hidden = p.tbl[4] ^ (p.tbl[8] << 16), tmp = hidden;
  tmp += tmp >> 16;
  tmp += tmp >> 8;
  std::memset(st.s, tmp & 0xff, sizeof(uint32_t) * size);
  st.s[0] = seed;
  st.s[1] = hidden;
  for (int i = 1; i < size; ++i) st.s[i] ^= 1812433253u * (st.s[i - 1] ^ (st.s[i - 1] >> 30)) + i;
  st.offset = 0;
  st.round = 0;
}

// One call of curand() by each of a block's 256 threads (curand_mtgp32_kernel.h):
// thread t reads words t, t+1, t+pos of the ring and writes word t+351, so in
// thread order no thread reads what another writes in the same round.
void Sequence::advance(unsigned b) {
  State& st = states_[b];
  const mtgp32_params_fast_t& p = mtgp32dc_params_fast_11213[b];
  const uint32_t mask = mtgp32dc_params_fast_11213[0].mask;
  for (unsigned t = 0; t < kThreads; ++t) {
    const unsigned o = t + st.offset;
    uint32_t x = (st.s[o & kMask] & mask) ^ st.s[(o + 1) & kMask];
    x ^= x << p.sh1;
    uint32_t y = x ^ (st.s[(o + p.pos) & kMask] >> p.sh2);
    const uint32_t r = y ^ p.tbl[y & 0x0f];
    st.s[(o + kN) & kMask] = r;
    uint32_t tt = st.s[(o + p.pos - 1) & kMask];
    tt ^= tt >> 16;
    tt ^= tt >> 8;
    st.out[t] = r ^ p.tmp_tbl[tt & 0x0f];
  }
  st.offset = (st.offset + kThreads) & kMask;
  ++st.round;
}

uint32_t Sequence::at(uint64_t g) {
  const unsigned b = unsigned((g / kThreads) % kStates);
  const uint64_t round = g / (uint64_t(kThreads) * kStates);
  State& st = states_[b];
  if (st.round > round + 1) reset(b);  // an earlier round: start the state again
  while (st.round < round + 1) advance(b);
  return st.out[g % kThreads];
}

}  // namespace smemlab::libs::mtgp
