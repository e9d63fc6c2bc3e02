#include "timing/gpu.h"

#include <stdexcept>

namespace smemlab::timing {

namespace {

#define SMEMLAB_GPU_PARAM(field, value, unit, source) {#field, value, unit, source},
const std::vector<GpuParam> kRows_h100 = {
#include "timing/h100.def"
};
const std::vector<GpuParam> kRows_a100_80 = {
#include "timing/a100_80.def"
};
const std::vector<GpuParam> kRows_a100_40 = {
#include "timing/a100_40.def"
};
const std::vector<GpuParam> kRows_l40s = {
#include "timing/l40s.def"
};
const std::vector<GpuParam> kRows_rtx4090 = {
#include "timing/rtx4090.def"
};
const std::vector<GpuParam> kRows_v100 = {
#include "timing/v100.def"
};
#undef SMEMLAB_GPU_PARAM

struct Field {
  const char* name;
  double Gpu::*member;
};
const Field kFields[] = {
#define SMEMLAB_GPU_PARAM(field, value, unit, source) {#field, &Gpu::field},
#include "timing/h100.def"
#undef SMEMLAB_GPU_PARAM
};

// A table's rows into a Gpu, row for row against h100.def's fields: a
// table that drifts from the H100's (a field added there and not here)
// would otherwise silently take the H100's value.
Gpu gpu_from_rows(const char* key, const std::vector<GpuParam>& rows) {
  constexpr size_t n = sizeof kFields / sizeof kFields[0];
  if (rows.size() != n)
    throw std::logic_error(std::string("timing: the parameter table of ") + key + " has " +
                           std::to_string(rows.size()) + " rows, h100.def " + std::to_string(n));
  Gpu g;
  for (size_t i = 0; i < n; ++i) {
    if (std::string_view(rows[i].name) != kFields[i].name)
      throw std::logic_error(std::string("timing: the parameter table of ") + key + " has '" +
                             rows[i].name + "' where h100.def has '" + kFields[i].name + "'");
    g.*kFields[i].member = rows[i].value;
  }
  return g;
}

}  // namespace

std::string with_article(std::string_view name) {
  // The names are initialisms, read letter by letter: "an H100", "a V100".
  const bool vowel_sound =
      !name.empty() && std::string_view("AEFHILMNORSX").find(name[0]) != std::string_view::npos;
  return std::string(vowel_sound ? "an " : "a ") + std::string(name);
}

const std::vector<GpuParam>& h100_params() { return kRows_h100; }

const std::vector<GpuSpec>& gpus() {
  static const std::vector<GpuSpec> all = {
#define SMEMLAB_GPU(rows, key, name, arch, validated) \
  {key, name, arch, validated, &kRows_##rows, gpu_from_rows(key, kRows_##rows)},
#include "timing/gpus.def"
#undef SMEMLAB_GPU
  };
  return all;
}

std::vector<const GpuSpec*> gpus_for_arch(std::string_view arch) {
  std::vector<const GpuSpec*> out;
  for (const GpuSpec& g : gpus())
    if (arch == g.arch) out.push_back(&g);
  return out;
}

std::string validation_note(const GpuSpec& g) {
  if (g.validated) return "";
  return std::string("unvalidated: no measurements on ") + with_article(g.name);
}

}  // namespace smemlab::timing
