#include "timing/gpu.h"

namespace smemlab::timing {

const std::vector<GpuParam>& h100_params() {
  static const std::vector<GpuParam> rows = {
#define SMEMLAB_GPU_PARAM(field, value, unit, source) {#field, value, unit, source},
#include "timing/h100.def"
#undef SMEMLAB_GPU_PARAM
  };
  return rows;
}

}  // namespace smemlab::timing
