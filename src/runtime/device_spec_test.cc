// The emulated H100's limits (DeviceSpec, used for occupancy and launch
// checks) agree with the attributes it reports (the H100's measured table).
#include "runtime/device_spec.h"

#include <gtest/gtest.h>

namespace smemlab::runtime {
namespace {

int attr(CUdevice_attribute a) {
  int v = -1;
  EXPECT_TRUE(h100_attribute(a, &v)) << a;
  return v;
}

TEST(DeviceSpec, H100LimitsAreItsAttributes) {
  DeviceSpec d = device_spec("sm_90");
  EXPECT_EQ(d.sms, attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT));
  EXPECT_EQ(d.shared_per_sm, attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR));
  EXPECT_EQ(d.shared_per_block, attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK));
  EXPECT_EQ(d.shared_per_block_optin, attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));
  EXPECT_EQ(d.reserved_shared_per_block,
            attr(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK));
  EXPECT_EQ(d.regs_per_sm, attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR));
  EXPECT_EQ(d.regs_per_block, attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK));
  EXPECT_EQ(d.threads_per_sm, attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR));
  EXPECT_EQ(d.blocks_per_sm, attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR));
  EXPECT_EQ(d.clock_khz, attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE));
  EXPECT_EQ(d.memory_clock_khz, attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE));
  EXPECT_EQ(d.bus_width, attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH));
  EXPECT_EQ(d.l2_bytes, attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE));
  EXPECT_EQ(d.major, attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR));
  EXPECT_EQ(d.minor, attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));
}

TEST(DeviceSpec, EveryDriverAttributeHasAnH100Value) {
  int v;
  for (int a = 1; a < CU_DEVICE_ATTRIBUTE_MAX; ++a)
    EXPECT_TRUE(h100_attribute(static_cast<CUdevice_attribute>(a), &v)) << "attribute " << a;
  EXPECT_FALSE(h100_attribute(CU_DEVICE_ATTRIBUTE_MAX, &v));
}

}  // namespace
}  // namespace smemlab::runtime
