// Hopper's shared-memory traffic that is not an ld/st request, counted per
// instruction from the emulator's Hopper events (emu/observer.h) in Nsight
// Compute's families: `tma` (TMA and 1-D bulk copies: loads, stores,
// reductions, prefetches), `gmma` (wgmma.mma_async reading its operands
// from shared memory), `dshared` (loads, stores and atomics to a cluster
// peer's shared memory) and `ldgsts` (cp.async: ncu files its global reads
// there, not under global loads) and `mbarrier` (mbarrier operations:
// SYNCS instructions, which ncu files under op_misc, not ld/st/atom). The costs are the H100's
// rules (bank/hopper.h, docs/bank-model.md "Hopper"): gmma wavefronts and bank conflicts per
// warpgroup instruction (gmma_operand_cost), dshared sectors (dshared_cost), TMA copies' global
// sectors (copy_traffic), cp.async's shared wavefronts and global sectors (async_copy_cost). No
// counter sees a TMA copy's shared side: none here.
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
// thread, as each issues its own), the global side (a copy's sectors and
// Nsight Compute's bytes, 32 per sector; a DSMEM access's lanes x width)
// and the shared-side bytes (a copy's 16-byte chunks, a wgmma's operand
// chunks).
// gmma also has wavefronts and bank_conflicts (the warpgroup's operands,
// counted at its first warp), dshared sectors; `unmodelled`: requests the
// rule refused.
struct HopperCounts {
  uint64_t requests = 0, bytes = 0, shared_bytes = 0;
  uint64_t wavefronts = 0, bank_conflicts = 0, sectors = 0, unmodelled = 0;
  void add(const HopperCounts& o) {
    requests += o.requests;
    bytes += o.bytes;
    shared_bytes += o.shared_bytes;
    wavefronts += o.wavefronts;
    bank_conflicts += o.bank_conflicts;
    sectors += o.sectors;
    unmodelled += o.unmodelled;
  }
  void scale(double f) {
    for (uint64_t* c :
         {&requests, &bytes, &shared_bytes, &wavefronts, &bank_conflicts, &sectors, &unmodelled})
      *c = static_cast<uint64_t>(static_cast<double>(*c) * f + 0.5);
  }
};

// The families (JSON keys) and their rows, each a class: hopper_classes.def.
enum class HopperFamily : uint8_t { Tma, Gmma, Dshared, Ldgsts, Mbarrier };
enum class HopperClass : uint8_t {
#define SMEMLAB_HOPPER_CLASS(id, family, row, fields) id,
#include "check/hopper_classes.def"
#undef SMEMLAB_HOPPER_CLASS
};
inline constexpr int kHopperClasses = 0
#define SMEMLAB_HOPPER_CLASS(id, family, row, fields) +1
#include "check/hopper_classes.def"
#undef SMEMLAB_HOPPER_CLASS
    ;
// What a class's row reports beside its requests (the table's `fields`).
enum HopperField : uint8_t {
  kWavefronts = 1,
  kBankConflicts = 2,
  kSectors = 4,  // global sectors and ncu's bytes (a DSMEM access: its lanes' bytes)
  kSharedBytes = 8,
};
HopperFamily hopper_family_of(HopperClass c);
uint8_t hopper_fields(HopperClass c);
const char* hopper_family(HopperClass c);  // "tma", "gmma", "dshared", "ldgsts", "mbarrier"
const char* hopper_row(HopperClass c);     // "loads", ..., "" for a one-row family

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
