// The time model's view of a GPU: its parameters (h100.def, each with its
// unit and source) as one struct, and the table itself for documentation
// and `--json` (a prediction names the figures it used).
#pragma once

#include <string>
#include <vector>

namespace smemlab::timing {

struct Gpu {
#define SMEMLAB_GPU_PARAM(field, value, unit, source) double field = value;
#include "timing/h100.def"
#undef SMEMLAB_GPU_PARAM
};

struct GpuParam {
  const char* name;
  double value;
  const char* unit;
  const char* source;
};

// The H100 of h100.def.
inline const Gpu& h100() {
  static const Gpu g;
  return g;
}
const std::vector<GpuParam>& h100_params();

}  // namespace smemlab::timing
