#include "runtime/device_spec.h"

#include <string_view>

namespace smemlab::runtime {

DeviceSpec device_spec(const std::string& arch) {
  std::string_view a = arch;
  a = a.substr(0, a.find(':'));
  int sm = 90;
  if (a.starts_with("sm_")) {
    sm = 0;
    for (char c : a.substr(3))
      if (c >= '0' && c <= '9') sm = sm * 10 + (c - '0');
  }
  DeviceSpec d;
  d.arch = arch;
  d.major = sm / 10;
  d.minor = sm % 10;
  if (sm >= 90) {
    d.name = "NVIDIA H100 80GB HBM3";
  } else if (sm >= 80) {
    d.name = "NVIDIA A100-SXM4-80GB";
    d.sms = 108, d.shared_per_sm = 167936, d.shared_per_block_optin = 166912;
    d.clock_khz = 1410000, d.memory_clock_khz = 1593000, d.l2_bytes = 41943040;
  } else if (sm >= 70) {
    d.name = "Tesla V100-SXM2-32GB";
    d.sms = 80, d.shared_per_sm = 98304, d.shared_per_block_optin = 98304 - 1024;
    d.clock_khz = 1530000, d.memory_clock_khz = 877000, d.bus_width = 4096, d.l2_bytes = 6291456;
    d.total_memory = 34089730048ull;
  } else if (sm >= 30) {
    d.name = "Tesla K40m";
    d.sms = 15, d.shared_per_sm = 49152, d.shared_per_block_optin = 49152;
    d.reserved_shared_per_block = 0, d.blocks_per_sm = 16;
    d.clock_khz = 745000, d.memory_clock_khz = 3004000, d.bus_width = 384, d.l2_bytes = 1572864;
    d.total_memory = 12079136768ull;
  } else if (sm >= 20) {
    d.name = "Tesla C2050";
    d.sms = 14, d.shared_per_sm = 49152, d.shared_per_block_optin = 49152;
    d.reserved_shared_per_block = 0, d.regs_per_sm = d.regs_per_block = 32768;
    d.threads_per_sm = 1536, d.blocks_per_sm = 8;
    d.clock_khz = 1150000, d.memory_clock_khz = 1500000, d.bus_width = 384, d.l2_bytes = 786432;
    d.total_memory = 3220897792ull;
  } else {
    d.name = "Tesla C1060";
    d.sms = 30, d.shared_per_sm = 16384, d.shared_per_block = 16384,
    d.shared_per_block_optin = 16384, d.reserved_shared_per_block = 0;
    d.regs_per_sm = d.regs_per_block = 16384, d.threads_per_sm = 1024, d.blocks_per_sm = 8;
    d.clock_khz = 1296000, d.memory_clock_khz = 800000, d.bus_width = 512, d.l2_bytes = 0;
    d.total_memory = 4294770688ull;
  }
  return d;
}

namespace {

struct H100Attribute {
  CUdevice_attribute id;
  int value;
};
constexpr H100Attribute kH100[] = {
#define SMEMLAB_ATTR(name, value) {CU_DEVICE_ATTRIBUTE_##name, value},
#include "runtime/h100_attributes.def"
#undef SMEMLAB_ATTR
};

// Older parts: the limits of their spec; feature flags and texture limits
// they lack in the table are reported as absent (0).
bool older_attribute(const DeviceSpec& d, CUdevice_attribute a, int* v) {
  bool modern = d.major >= 7;
  switch (a) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = d.major >= 2 ? 1024 : 512; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: *v = d.major >= 2 ? 1024 : 512; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: *v = 64; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *v = d.major >= 3 ? 2147483647 : 65535; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: *v = 65535; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *v = d.shared_per_block; return true;
    case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: *v = 65536; return true;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *v = 32; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_PITCH: *v = 2147483647; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: *v = d.regs_per_block; return true;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: *v = d.clock_khz; return true;
    case CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT: *v = 512; return true;
    case CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT: *v = 32; return true;
    case CU_DEVICE_ATTRIBUTE_GPU_OVERLAP: *v = 1; return true;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = d.sms; return true;
    case CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT: *v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_INTEGRATED: *v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: *v = 1; return true;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE: *v = CU_COMPUTEMODE_DEFAULT; return true;
    case CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT: *v = 512; return true;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: *v = 1; return true;
    case CU_DEVICE_ATTRIBUTE_ECC_ENABLED: *v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: *v = 1; return true;
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: *v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: *v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_TCC_DRIVER: *v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: *v = d.memory_clock_khz; return true;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: *v = d.bus_width; return true;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *v = d.l2_bytes; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: *v = d.threads_per_sm; return true;
    case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: *v = 2; return true;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: *v = 1; return true;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = d.major; return true;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = d.minor; return true;
    case CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED: *v = 1; return true;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED: *v = 1; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: *v = d.shared_per_sm; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: *v = d.regs_per_sm; return true;
    case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: *v = 1; return true;
    case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD: *v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID: *v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED: *v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO: *v = 2; return true;
    case CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS: *v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS: *v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED: *v = modern; return true;
    case CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM: *v = 1; return true;
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH:
      *v = 1;
      return true;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
      *v = d.shared_per_block_optin;
      return true;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: *v = d.blocks_per_sm; return true;
    case CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK:
      *v = d.reserved_shared_per_block;
      return true;
    case CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE: *v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE: *v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: *v = 1; return true;
    case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: *v = 0; return true;
    case CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH:
      *v = d.major >= 9 ? 1 : 0;
      return true;
    default:
      // Every other attribute is a feature flag or a texture/surface limit
      // the emulator does not model: reported as absent (0).
      *v = 0;
      return false;
  }
}

}  // namespace

bool h100_attribute(CUdevice_attribute a, int* v) {
  for (const auto& x : kH100)
    if (x.id == a) {
      *v = x.value;
      return true;
    }
  *v = 0;
  return false;
}

bool device_attribute(const DeviceSpec& d, CUdevice_attribute a, int* v) {
  // sm_90 and later: the H100's own answers, every attribute.
  if (d.major >= 9) return h100_attribute(a, v);
  return older_attribute(d, a, v);
}

}  // namespace smemlab::runtime
