// Separate compilation (nvcc -rdc=true): the fatbin a program registers is
// nvlink's linked image, SASS only; each translation unit's own fatbin (its
// relocatable SASS and, unless the build left it out, its PTX) stays in the
// same ELF object, in the section `__nv_relfatbin`, one fatbin after
// another. The driver links their PTX (ptx/link.h) to emulate the image.
#pragma once

#include <string>
#include <vector>

#include "runtime/fatbin.h"

namespace smemlab::runtime {

struct RdcUnits {
  std::string object;                             // the ELF file read
  std::vector<std::vector<FatbinEntry>> fatbins;  // one per translation unit
};

// The per-unit fatbins of the ELF object (executable or shared library)
// whose memory holds `image`; none when that object has no __nv_relfatbin
// section (not an -rdc build) or its file cannot be read. Throws FatbinError
// for a section that does not hold fatbins.
RdcUnits rdc_units(const void* image);

// Whether the unit is CUDA's device runtime (libcudadevrt, linked by
// -lcudadevrt): its relocatable SASS defines __cudaCDP2LaunchDeviceV2. The
// emulator provides those functions itself (emu/device_runtime.h), and the
// library ships PTX only for its newest target, so it is left out of the link.
bool is_device_runtime(const std::vector<FatbinEntry>& unit);

}  // namespace smemlab::runtime
