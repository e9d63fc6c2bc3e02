// `smemlab fix FILE.cu --kernel K [...] -- APP [ARGS...]`: fix's workflow in
// program mode (docs/fix.md, "Program mode"). The program runs on the
// emulated driver (src/runtime) three ways: once as built, recording the
// shared accesses of its launches of K (the what-if data) and snapshotting
// device memory after each (the proof's reference), and a second time as
// built before the first proof (is its stdout the same every run?); then
// once per proven candidate with K's module replaced by the PTX rebuilt
// from the rewritten FILE.cu (runtime/fix_hooks.h). A candidate is verified
// when every snapshot and the exit status are equal, stdout too unless the
// program's own runs differ in it, and `check` finds nothing new. The CLI
// (cli/fix_program.cc) parses the flags and prints the result.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "fix/fix.h"

namespace smemlab::session {

struct ProgramFixOptions {
  std::string file;          // the kernel's CUDA source (.cu)
  std::string kernel;        // K, as named in FILE.cu
  std::string kernel_regex;  // which launches (default: K's, by its bare name)
  std::string archs = "sm_90";
  std::string nvcc_flags;  // the program's nvcc options, one string
  std::vector<std::string> xnvcc;
  uint64_t launch_skip = 0;
  int64_t launch_count = -1;  // -1: all
  unsigned max_pad = 8, prove = 3;
};

// The program as built fails (a kernel fault, a crash, a driver error):
// nothing can be fixed (the CLI's exit status 4). Bad input throws
// UsageError (session/launch_spec.h).
class ProgramFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ProgramFix {
  fix::SourceModel source;
  fix::Result result;
  // The selected launches (one kernel, one configuration; grids may differ).
  std::string kernel;  // mangled
  emu::Dim3 grid, block;
  uint32_t dynamic_shared = 0;
  std::vector<uint64_t> launches;  // their indices in the program's launch order
  bool grids_differ = false;
  // The kernel's TMA tiles whose readers another swizzle would serve in
  // fewer wavefronts: analyze's swizzle_what_if entries with a `proposal`,
  // each with its `launch` (one more run of the program, in analyze mode).
  // Each proposal `applied` (docs/fix.md, "TMA tiles"): the change written
  // and proven, or why not; the first verified one's edits.
  nlohmann::json swizzle_proposals = nlohmann::json::array();
  fix::Edits swizzle_patch;
};

// Runs the workflow for APP (`app`: its command line). `note` receives the
// lines said on the way (options left out, a program whose output is not
// deterministic), each a whole line without its newline.
ProgramFix fix_program(const ProgramFixOptions& o, const std::vector<std::string>& app,
                       const std::function<void(const std::string&)>& note);

}  // namespace smemlab::session
