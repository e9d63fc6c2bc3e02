// What `smemlab fix FILE.cu --kernel K -- APP` asks of the emulated driver,
// through the program's environment (set only by fix):
//   SMEMLAB_FIX_RECORD    append each selected launch's shared accesses and
//                         configuration to this file (fix/access_log.h);
//                         the module's PTX goes to FILE.N.ptx
//   SMEMLAB_FIX_SNAPSHOT  append hashes of every live device allocation and
//                         __device__ variable after each selected launch
//   SMEMLAB_FIX_PTX       run the selected launches from this PTX instead
//                         (the kernel rebuilt from the rewritten source); its
//                         __device__/__constant__ variables are bound to the
//                         program module's by copying in before and the
//                         changed bytes back after each launch
//   SMEMLAB_FIX_SHARED    and with this many bytes of dynamic shared memory
//   SMEMLAB_FIX_TMA_SWIZZLE  every cuTensorMapEncodeTiled takes this swizzle
//                         (the host half of a TMA tile's swizzle proof: the
//                         one encode in FILE.cu, rewritten; the program's
//                         host code is not rebuilt)
// Selection (SMEMLAB_KERNEL, _LAUNCH_SKIP, _LAUNCH_COUNT) is the driver's.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "emu/launch.h"

namespace smemlab::runtime {

class Driver;
struct Module;

class FixHooks {
 public:
  static FixHooks& get();
  // Before a selected launch: the module to run it from (the override's or
  // the program's), with cfg's dynamic shared bytes replaced when asked, and
  // the observer to attach (null when nothing is recorded). Throws
  // std::runtime_error (the override does not load or lacks the kernel).
  emu::Module& before(Driver& d, Module& m, const std::string& kernel, emu::LaunchConfig& cfg,
                      emu::KernelObserver** observer);
  // The swizzle a tiled tensor map is encoded with: `sw`, or the proof's.
  int tensor_map_swizzle(int sw) const;
  // After it: the recorded accesses and the snapshot written out.
  void after(Driver& d, Module& m, uint64_t index, const std::string& kernel,
             const emu::LaunchConfig& cfg);

 private:
  FixHooks();
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace smemlab::runtime
