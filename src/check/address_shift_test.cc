#include "check/address_shift.h"

#include <gtest/gtest.h>

#include <random>

namespace smemlab::check {
namespace {

// What same_shift must answer, lane by lane: every active lane moved by the
// first active lane's difference, and every active address of both
// requests below 2^63.
bool reference(uint32_t ref_mask, const uint64_t* ref, uint32_t mask, const uint64_t* addr) {
  if (mask != ref_mask) return false;
  const unsigned first = static_cast<unsigned>(__builtin_ctz(mask));
  const uint64_t d = addr[first] - ref[first];
  for (unsigned l = 0; l < 32; ++l) {
    if (!(mask >> l & 1u)) continue;
    if (addr[l] - ref[l] != d || addr[l] >> 63 || ref[l] >> 63) return false;
  }
  return true;
}

// Random requests against random earlier ones: mostly exact shifts (full
// and partial masks, inactive lanes holding garbage), some with one lane
// off, some near 2^63 or near 0 so that the shift wraps or crosses 2^63.
TEST(AddressShift, SameShiftEqualsALaneByLaneCheck) {
  std::mt19937_64 rng(std::random_device{}());
  const uint64_t top = uint64_t{1} << 63;
  int same = 0, differ = 0;
  for (int i = 0; i < 200000; ++i) {
    uint32_t mask = rng() % 3 ? 0xffffffffu : static_cast<uint32_t>(rng()) | 1u << (rng() % 32);
    uint64_t base;
    switch (rng() % 4) {
      case 0:
        base = top - rng() % 4096;  // just below (or at) 2^63
        break;
      case 1:
        base = rng() % 4096;  // near 0: a negative shift may wrap
        break;
      case 2:
        base = rng();  // anywhere, 2^63 and above too
        break;
      default:
        base = 0x7f0000000000ull + rng() % 65536;
    }
    uint64_t ref[32], addr[32];
    const uint64_t stride = rng() % 2 ? 4 * (rng() % 40) : rng() % 5000;
    for (unsigned l = 0; l < 32; ++l)
      ref[l] = base + (rng() % 2 ? l : rng() % 32) * stride - (rng() % 8 == 0 ? 64 : 0);
    uint64_t d;
    switch (rng() % 4) {
      case 0:
        d = rng() % 8192;
        break;
      case 1:
        d = uint64_t{0} - rng() % 8192;
        break;
      case 2:
        d = rng();
        break;
      default:
        d = top - ref[rng() % 32] + rng() % 64 - 32;  // puts a lane near 2^63
    }
    for (unsigned l = 0; l < 32; ++l) addr[l] = (mask >> l & 1u) ? ref[l] + d : rng();
    if (rng() % 4 == 0) addr[rng() % 32] += 1 + rng() % 64;  // a lane off (active or not)
    uint32_t addr_mask = rng() % 16 == 0 ? mask ^ 1u << (rng() % 32) : mask;
    if (!addr_mask) continue;

    ShiftRef r;
    const bool usable = make_shift_ref(r, mask, ref);
    bool low = true;
    for (unsigned l = 0; l < 32; ++l)
      if (mask >> l & 1u && ref[l] >> 63) low = false;
    ASSERT_EQ(usable, low) << i;
    if (!usable) continue;
    uint64_t shift = 0;
    const bool want = reference(mask, ref, addr_mask, addr);
    ASSERT_EQ(same_shift(r, addr_mask, addr, &shift), want) << i;
    if (want) {
      EXPECT_EQ(shift, addr[__builtin_ctz(mask)] - ref[__builtin_ctz(mask)]);
      ++same;
    } else {
      ++differ;
    }
  }
  // Both answers were exercised.
  EXPECT_GT(same, 10000);
  EXPECT_GT(differ, 10000);
}

// One active lane (same_shift skips the lane pass): against the lane-by-lane
// check, with the lane near 2^63 or 0 so that the bound decides, and the
// other lanes holding garbage.
TEST(AddressShift, OneLaneEqualsALaneByLaneCheck) {
  std::mt19937_64 rng(std::random_device{}());
  const uint64_t top = uint64_t{1} << 63;
  int same = 0, differ = 0;
  for (int i = 0; i < 100000; ++i) {
    const uint32_t mask = 1u << (rng() % 32);
    const unsigned lane = static_cast<unsigned>(__builtin_ctz(mask));
    uint64_t ref[32], addr[32];
    for (unsigned l = 0; l < 32; ++l) {
      ref[l] = rng();
      addr[l] = rng();
    }
    ref[lane] = rng() % 2 ? top - 1 - rng() % 4096 : rng() % 4096;
    addr[lane] = rng() % 3 ? ref[lane] + (rng() % 8192) - 4096 : rng();
    const uint32_t addr_mask = rng() % 16 == 0 ? 1u << (rng() % 32) : mask;
    ShiftRef r;
    ASSERT_TRUE(make_shift_ref(r, mask, ref));
    uint64_t shift = 0;
    const bool want = reference(mask, ref, addr_mask, addr);
    ASSERT_EQ(same_shift(r, addr_mask, addr, &shift), want) << i;
    (want ? same : differ)++;
  }
  EXPECT_GT(same, 10000);
  EXPECT_GT(differ, 10000);
}

TEST(AddressShift, EdgesOf2To63) {
  const uint64_t top = uint64_t{1} << 63;
  uint64_t ref[32], addr[32];
  for (unsigned l = 0; l < 32; ++l) ref[l] = top - 256 + 4 * l;  // highest: top - 132
  ShiftRef r;
  ASSERT_TRUE(make_shift_ref(r, 0xffffffffu, ref));
  uint64_t d;
  auto moved = [&](uint64_t by) {
    for (unsigned l = 0; l < 32; ++l) addr[l] = ref[l] + by;
    return same_shift(r, 0xffffffffu, addr, &d);
  };
  EXPECT_TRUE(moved(131));                         // highest lane at 2^63 - 1
  EXPECT_FALSE(moved(132));                        // reaches 2^63
  EXPECT_TRUE(moved(uint64_t{0} - (top - 256)));   // lowest lane at 0
  EXPECT_FALSE(moved(uint64_t{0} - (top - 255)));  // lowest lane wraps
  EXPECT_FALSE(moved(top));
  // Lanes outside the mask take no part.
  addr[0] = 1;
  for (unsigned l = 1; l < 32; ++l) addr[l] = ref[l] - 8;
  EXPECT_FALSE(same_shift(r, 0xffffffffu, addr, &d));
  ASSERT_TRUE(make_shift_ref(r, 0xfffffffeu, ref));
  EXPECT_TRUE(same_shift(r, 0xfffffffeu, addr, &d));
  EXPECT_EQ(d, uint64_t{0} - 8);
  // A request with an active address at 2^63 or above is not kept.
  ref[7] = top;
  EXPECT_FALSE(make_shift_ref(r, 0xffffffffu, ref));
  EXPECT_TRUE(make_shift_ref(r, 0xffffff7fu, ref));
}

}  // namespace
}  // namespace smemlab::check
