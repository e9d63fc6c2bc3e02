// mbarrier objects (PTX ISA "Parallel synchronization and communication
// instructions: mbarrier") as pure operations on the 64-bit word that holds
// one in shared memory. The interpreter's executors read the word, apply one
// of these and write it back; nothing else keeps mbarrier state.
//
// Encoding (the ISA leaves it opaque): bits 0-20 pending arrivals of the
// current phase, 21-41 expected arrivals per phase, 42-62 the tx-count as a
// signed 21-bit number, bit 63 the current phase's parity. A phase completes
// when its pending arrivals are zero and its tx-count is zero or below: the
// parity flips, pending is reset to expected, the tx-count is kept. The PTX
// ISA says "tx-count has reached zero"; a negative count (copies that
// completed before their expect_tx, which the ISA's range allows, or bytes
// beyond those announced) holds no phase back: on the H200 a phase whose
// excess bytes landed after the previous one completed completes at its
// arrival (run 16, tests/validation/hopper/public/tx_carry.cu; docs/emulator.md,
// "mbarrier"). The state token `arrive` returns is the word before the
// arrival; a token's phase is complete once the parity differs from it.
#pragma once

#include <cstdint>
#include <stdexcept>

namespace smemlab::emu::mbar {

// An operation the ISA makes undefined (count out of range, more arrivals
// than pending, tx-count out of range): the executor turns it into a fault.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

constexpr uint32_t kMaxCount = (1u << 20) - 1;

uint64_t init(uint32_t count);  // mbarrier.init: count in 1 .. 2^20-1
uint32_t pending(uint64_t obj);
uint32_t expected(uint64_t obj);
int32_t tx_count(uint64_t obj);
unsigned parity(uint64_t obj);

// mbarrier.expect_tx / complete_tx: tx-count += / -= bytes (complete_tx may
// complete the phase).
void expect_tx(uint64_t& obj, uint32_t bytes);
void complete_tx(uint64_t& obj, uint32_t bytes);

// mbarrier.arrive{.expect_tx}{_drop}: first tx-count += tx, then `count`
// arrivals (drop: the expected count of later phases drops by `count` too).
// Returns the state token (the word before the arrival).
uint64_t arrive(uint64_t& obj, uint32_t count, uint32_t tx = 0, bool drop = false);

// test_wait/try_wait with a token, and their .parity forms: whether the
// phase the token (or the parity) names has completed.
inline bool token_complete(uint64_t obj, uint64_t token) { return parity(obj) != parity(token); }
inline bool parity_complete(uint64_t obj, unsigned phase_parity) {
  return parity(obj) != (phase_parity & 1u);
}

}  // namespace smemlab::emu::mbar
