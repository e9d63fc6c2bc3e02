// The time model's view of a GPU: its parameters (h100.def and one such
// table per GPU of gpus.def, each row with its unit and source) as one
// struct, and the tables themselves for documentation and `--json` (a
// prediction names the figures it used). Only the H100 was measured; the
// others are published figures, and their predictions say so.
#pragma once

#include <string>
#include <string_view>
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

// One row of gpus.def with its parameters.
struct GpuSpec {
  const char* key;   // "a100-80"
  const char* name;  // "A100 SXM4 80GB", as text and JSON print it
  const char* arch;  // the bank model whose wavefronts it takes ("sm_80")
  bool validated;    // measured against by the project (docs/validation.md)
  const std::vector<GpuParam>* params;
  Gpu gpu;
};

// gpus.def's GPUs, H100 first. (A table that lacks a row of h100.def, has
// another, or orders them otherwise does not compile.)
const std::vector<GpuSpec>& gpus();
// The GPUs of a bank model's canonical name (bank::Model::name(), e.g.
// "sm_80"), in gpus.def's order; empty for an arch without parameters.
std::vector<const GpuSpec*> gpus_for_arch(std::string_view arch);
// "an H100", "a V100": the name as the text output's sentences use it.
std::string with_article(std::string_view name);
// "" for a validated GPU, else "unvalidated: no measurements on an A100 SXM4 80GB".
std::string validation_note(const GpuSpec& g);

// The H100 of h100.def.
inline const Gpu& h100() {
  static const Gpu g;
  return g;
}
const std::vector<GpuParam>& h100_params();

}  // namespace smemlab::timing
