// The GPU the runtime pretends to be: the limits and properties of one
// architecture (H100 SXM for sm_90, the default), answered to
// cuDeviceGetAttribute and used for occupancy and launch checks.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <string>

namespace smemlab::runtime {

struct DeviceSpec {
  std::string arch = "sm_90";  // as given to --arch (first model)
  std::string name;            // "NVIDIA H100 80GB HBM3"
  int major = 9, minor = 0;
  int sms = 132;
  int shared_per_sm = 233472;         // 228 KiB
  int shared_per_block = 49152;       // without opt-in
  int shared_per_block_optin = 232448;  // 227 KiB
  int reserved_shared_per_block = 1024;
  int regs_per_sm = 65536, regs_per_block = 65536;
  int threads_per_sm = 2048, blocks_per_sm = 32;
  int clock_khz = 1980000, memory_clock_khz = 2619000, bus_width = 5120;
  int l2_bytes = 52428800;
  uint64_t total_memory = 85017493504ull;  // as the H100 80GB HBM3 reports
};

// "sm_90", "sm_35:8", ... -> the spec of that architecture's usual part
// (the nearest one the table knows at or below it).
DeviceSpec device_spec(const std::string& arch);

// cuDeviceGetAttribute; false for an attribute the table does not know.
// sm_90 and later answer exactly what an H100 SXM answers
// (runtime/h100_attributes.def, measured); older parts their spec's limits.
bool device_attribute(const DeviceSpec& d, CUdevice_attribute a, int* value);
// The measured H100 value of `a` (false: not an attribute the driver knows).
bool h100_attribute(CUdevice_attribute a, int* value);

}  // namespace smemlab::runtime
