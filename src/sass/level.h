// The SASS level of `analyze` (docs/sass.md): which level a run counts at,
// why, and the kernel's PTX -> SASS map. This is the module's entry point:
// it finds the tools, compiles and disassembles (cached), parses and maps.
// Anything that prevents the SASS level (tools missing, a target ptxas
// cannot compile for, a tool failing) falls back to the PTX level with the
// reason; it never fails the analysis.
#pragma once

#include <string>

#include "emu/program.h"
#include "ptx/ir.h"
#include "sass/disasm.h"
#include "sass/mapping.h"

namespace smemlab::sass {

enum class Level { Ptx, Sass };
const char* level_name(Level l);

struct KernelLevel {
  Level level = Level::Ptx;
  std::string target;      // "sm_90" when at SASS level
  std::string reason;      // how the level was reached, or why it fell back
  KernelMap map;           // empty at PTX level
  uint32_t registers = 0;  // per thread in the SASS (registers_used); 0: unknown
};

// `ptx_text` is the text `module` was parsed from.
KernelLevel choose_level(Level wanted, const std::string& ptx_text, const ptx::Module& module,
                         const std::string& kernel, const emu::Program& program);

// Program mode (`analyze -- APP`): the SASS the GPU would run. That is the
// cubin nvcc put in the program's fatbin when there is one for the emulated
// GPU, built from the very PTX the emulator runs; otherwise the driver would
// JIT-compile the module's PTX for the GPU, and so ptxas does here.
struct ProgramSass {
  std::string target;                   // the emulated GPU: "sm_90"
  const Disassembly* fatbin = nullptr;  // the fatbin's cubin, disassembled; null: none usable
  std::string origin;                   // where that cubin is, or why there is none usable
  const RegisterCounts* fatbin_registers = nullptr;  // its kernels' registers (may be null)
  const NullHgmmas* fatbin_null_hgmmas = nullptr;    // its SASS-only HGMMAs (may be null)
  const LdgstsInstrs* fatbin_ldgsts = nullptr;       // its LDGSTS forms (may be null)
};
KernelLevel choose_program_level(Level wanted, const std::string& ptx_text,
                                 const ptx::Module& module, const std::string& kernel,
                                 const emu::Program& program, const ProgramSass& sass);

}  // namespace smemlab::sass
