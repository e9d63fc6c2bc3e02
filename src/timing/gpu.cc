#include "timing/gpu.h"

#include <iterator>
#include <string_view>

namespace smemlab::timing {

namespace {

#define SMEMLAB_GPU_PARAM(field, value, unit, source) GpuParam{#field, value, unit, source},
constexpr GpuParam kRows_h100[] = {
#include "timing/h100.def"
};
constexpr GpuParam kRows_a100_80[] = {
#include "timing/a100_80.def"
};
constexpr GpuParam kRows_a100_40[] = {
#include "timing/a100_40.def"
};
constexpr GpuParam kRows_l40s[] = {
#include "timing/l40s.def"
};
constexpr GpuParam kRows_rtx4090[] = {
#include "timing/rtx4090.def"
};
constexpr GpuParam kRows_v100[] = {
#include "timing/v100.def"
};
#undef SMEMLAB_GPU_PARAM

// Every GPU's table has h100.def's rows in its order, checked when
// compiling: a row added to h100.def and not to another table would
// otherwise leave that GPU with the H100's value.
template <size_t N>
constexpr bool rows_of_h100(const GpuParam (&rows)[N]) {
  if (N != std::size(kRows_h100)) return false;
  for (size_t i = 0; i < N; ++i)
    if (std::string_view(rows[i].name) != std::string_view(kRows_h100[i].name)) return false;
  return true;
}
#define SMEMLAB_GPU(rows, key, name, arch, validated) \
  static_assert(rows_of_h100(kRows_##rows),           \
                "src/timing/" #rows ".def must have h100.def's rows, in h100.def's order");
#include "timing/gpus.def"
#undef SMEMLAB_GPU

template <size_t N>
Gpu gpu_from_rows(const GpuParam (&rows)[N]) {
  static constexpr double Gpu::*kFields[] = {
#define SMEMLAB_GPU_PARAM(field, value, unit, source) &Gpu::field,
#include "timing/h100.def"
#undef SMEMLAB_GPU_PARAM
  };
  static_assert(N == std::size(kFields));
  Gpu g;
  for (size_t i = 0; i < N; ++i) g.*kFields[i] = rows[i].value;
  return g;
}

template <size_t N>
const std::vector<GpuParam>* table(const GpuParam (&rows)[N]) {
  static const std::vector<GpuParam> v(std::begin(rows), std::end(rows));
  return &v;
}

}  // namespace

std::string with_article(std::string_view name) {
  // The names are initialisms, read letter by letter: "an H100", "a V100".
  const bool vowel_sound =
      !name.empty() && std::string_view("AEFHILMNORSX").find(name[0]) != std::string_view::npos;
  return std::string(vowel_sound ? "an " : "a ") + std::string(name);
}

const std::vector<GpuParam>& h100_params() { return *table(kRows_h100); }

const std::vector<GpuSpec>& gpus() {
  static const std::vector<GpuSpec> all = {
#define SMEMLAB_GPU(rows, key, name, arch, validated) \
  {key, name, arch, validated, table(kRows_##rows), gpu_from_rows(kRows_##rows)},
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
