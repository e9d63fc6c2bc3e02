// Hopper's shared-memory traffic that is not an ld/st request, counted per
// instruction from the emulator's Hopper events (emu/observer.h) in Nsight
// Compute's families: `tma` (TMA and 1-D bulk copies: loads, stores,
// reductions, prefetches), `gmma` (wgmma.mma_async reading its operands
// from shared memory) and `dshared` (loads, stores and atomics to a cluster
// peer's shared memory). cp.async's global side (LDGSTS) is an
// AccessAnalysis class. Shared-side wavefronts are not counted here: their
// rules are measured on an H100 first (issue 28, docs/bank-model.md).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "check/access_stats.h"
#include "check/source_lines.h"
#include "emu/observer.h"

namespace smemlab::check {

// One family's counts: warp-level requests (a copy: one per issuing
// thread, as each issues its own), the global-side bytes (a copy's
// in-bounds bytes; a DSMEM access's lanes x width) and the shared-side
// bytes (a copy's 16-byte chunks, a wgmma's operand chunks).
struct HopperCounts {
  uint64_t requests = 0, bytes = 0, shared_bytes = 0;
  void add(const HopperCounts& o) {
    requests += o.requests;
    bytes += o.bytes;
    shared_bytes += o.shared_bytes;
  }
  void scale(double f) {
    for (uint64_t* c : {&requests, &bytes, &shared_bytes})
      *c = static_cast<uint64_t>(static_cast<double>(*c) * f + 0.5);
  }
};

// The rows of the families, each a JSON object inside its family:
// tma.loads/stores/reductions/prefetches, gmma (one row), dshared.loads/
// stores/atomics.
enum class HopperClass {
  TmaLoad,
  TmaStore,
  TmaReduction,
  TmaPrefetch,
  Gmma,
  DsharedLoad,
  DsharedStore,
  DsharedAtomic
};
inline constexpr int kHopperClasses = 8;
const char* hopper_family(HopperClass c);  // "tma", "gmma", "dshared"
const char* hopper_row(HopperClass c);     // "loads", ..., "" for gmma

struct HopperLine {
  HopperCounts cls[kHopperClasses];
  bool any() const {
    for (const auto& c : cls)
      if (c.requests) return true;
    return false;
  }
  void add(const HopperLine& o) {
    for (int i = 0; i < kHopperClasses; ++i) cls[i].add(o.cls[i]);
  }
};

struct HopperInstr {
  const emu::InstrInfo* instr = nullptr;
  HopperLine counts;
};

class HopperAnalysis final : public emu::KernelObserver {
 public:
  void on_kernel_begin(const emu::KernelInfo& info) override { kernel_ = info; }
  std::unique_ptr<emu::BlockObserver> make_block_observer(emu::Dim3 block) override;
  void finish_block(emu::Dim3 block, std::unique_ptr<emu::BlockObserver> observer) override;

  const ByPc<HopperInstr>& instructions() const { return by_pc_; }
  const emu::KernelInfo& kernel() const { return kernel_; }
  // Per source line (see source_lines.h) and for the whole kernel.
  std::map<SourceLine, HopperLine> lines() const;
  HopperLine totals() const;
  // Multiplies every count by f (rounded): sampled blocks -> whole grid.
  void scale(double f);

 private:
  ByPc<HopperInstr> by_pc_;
  emu::KernelInfo kernel_;
};

}  // namespace smemlab::check
