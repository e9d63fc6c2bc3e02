// Runs NVIDIA's tools for the SASS level: ptxas compiles the PTX for the
// target exactly as the driver's JIT does for `smemlab run --gpu` (default
// optimization, plus -lineinfo for the line table), nvdisasm disassembles
// the cubin with line information. Results are cached per PTX hash, so a
// second analysis of the same PTX runs neither tool.
#pragma once

#include <string>

namespace smemlab::sass {

struct Tools {
  std::string ptxas, nvdisasm;  // absolute paths; empty when not found
  std::string missing;          // why not usable, "" when both were found
};

// ptxas and nvdisasm from $SMEMLAB_PTXAS / $SMEMLAB_NVDISASM, PATH,
// /usr/local/cuda/bin, and the nvdisasm that CMake found at configure time
// (NVIDIA's PyPI package nvidia-cuda-nvdisasm; scripts/setup installs it).
Tools find_tools();

struct Disassembled {
  std::string text;   // nvdisasm -g -c output; "" on failure
  std::string error;  // why it failed (the tool's own message)
};

// Compiles `ptx_text` for `arch` ("sm_90") and disassembles it; only
// `entry`'s code when given (ptxas --entry: a module's other kernels are
// not compiled, which matters for large modules).
Disassembled disassemble(const Tools& tools, const std::string& ptx_text, const std::string& arch,
                         const std::string& entry = "");

// Disassembles a cubin that is already there (program mode: the SASS nvcc
// put in the program's fatbin for the emulated GPU); cached like the above.
Disassembled disassemble_cubin(const Tools& tools, const std::string& cubin);

}  // namespace smemlab::sass
