#include "emu/ops_async.h"

#include <string>

namespace smemlab::emu::mbar {
namespace {

constexpr uint64_t kField = (1u << 21) - 1;

uint64_t make(uint32_t pend, uint32_t exp, int32_t tx, unsigned par) {
  return uint64_t{pend} | uint64_t{exp} << 21 | (static_cast<uint64_t>(tx) & kField) << 42 |
         uint64_t{par & 1u} << 63;
}

// Completes the phase once every arrival is made and no announced byte is
// outstanding (tx-count at or below zero: bytes beyond the announced ones
// do not hold a phase back, H200 run 16). The transition reinitializes the
// pending arrivals; the tx-count is kept (the ISA lists no reset of it).
void settle(uint64_t& obj) {
  if (pending(obj) == 0 && tx_count(obj) <= 0)
    obj = make(expected(obj), expected(obj), tx_count(obj), parity(obj) ^ 1u);
}

void set_tx(uint64_t& obj, int64_t tx) {
  if (tx > kMaxCount || tx < -static_cast<int64_t>(kMaxCount))
    throw Error("mbarrier tx-count " + std::to_string(tx) + " is outside -(2^20-1) .. 2^20-1");
  obj = make(pending(obj), expected(obj), static_cast<int32_t>(tx), parity(obj));
}

}  // namespace

uint32_t pending(uint64_t obj) { return static_cast<uint32_t>(obj & kField); }
uint32_t expected(uint64_t obj) { return static_cast<uint32_t>(obj >> 21 & kField); }
int32_t tx_count(uint64_t obj) {
  auto raw = static_cast<int32_t>(obj >> 42 & kField);
  return raw & (1 << 20) ? raw - (1 << 21) : raw;
}
unsigned parity(uint64_t obj) { return static_cast<unsigned>(obj >> 63); }

uint64_t init(uint32_t count) {
  if (count == 0 || count > kMaxCount)
    throw Error("mbarrier.init count " + std::to_string(count) + " is outside 1 .. 2^20-1");
  return make(count, count, 0, 0);
}

void expect_tx(uint64_t& obj, uint32_t bytes) { set_tx(obj, int64_t{tx_count(obj)} + bytes); }

void complete_tx(uint64_t& obj, uint32_t bytes) {
  set_tx(obj, int64_t{tx_count(obj)} - bytes);
  settle(obj);
}

uint64_t arrive(uint64_t& obj, uint32_t count, uint32_t tx, bool drop) {
  uint64_t token = obj;
  if (expected(obj) == 0) throw Error("mbarrier used before mbarrier.init");
  if (count == 0 || count > pending(obj))
    throw Error("mbarrier arrive with count " + std::to_string(count) + " when " +
                std::to_string(pending(obj)) + " arrivals are pending");
  if (tx) set_tx(obj, int64_t{tx_count(obj)} + tx);
  uint32_t exp = drop ? expected(obj) - count : expected(obj);
  obj = make(pending(obj) - count, exp, tx_count(obj), parity(obj));
  settle(obj);
  return token;
}

}  // namespace smemlab::emu::mbar
