// Bank-conflict statistics of shared-memory accesses, gathered from the
// emulator's events (issue: `smemlab analyze`). Every warp-level shared load,
// store or atomic is run through one bank::Model per requested architecture;
// counts are kept per instruction (pc) and summed into source lines by
// `lines()`. Blocks run in parallel: each gets its own BlockObserver, merged
// in block order, so the result does not depend on thread timing.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "bank/bank.h"
#include "bank/ldmatrix.h"
#include "check/bank_cost_cache.h"
#include "check/source_lines.h"
#include "emu/observer.h"

namespace smemlab::check {

// Nsight Compute's shared-memory operation classes: its SASS-patched
// op_ld/op_st/op_atom, and ldmatrix/stmatrix apart (LDSM/STSM are counted
// under op_ldsm/op_shared_stsm, never under op_ld/op_st: 36 of 36 H100
// probes, docs/bank-model.md "Hopper").
enum class SharedOp { Load, Store, Atomic, LdMatrix, StMatrix };
inline constexpr int kSharedOps = 5;
const char* shared_op_name(SharedOp op);

struct BankCounts {
  uint64_t requests = 0;  // warp-level instructions with >= 1 active lane
  uint64_t wavefronts = 0;
  uint64_t ideal = 0;
  uint64_t bank_conflicts = 0;
  uint64_t worst_wavefronts = 0;  // differs from wavefronts only for CC 1.x bounds
  uint64_t unmodelled = 0;        // requests the model refused (e.g. atomics before sm_70)
  unsigned max_ways = 0;
  // Bytes the requests' active lanes moved to or from registers (lanes x
  // bytes per lane; an ldmatrix/stmatrix row 16 bytes): the time model's
  // L1/shared data path compares them with the wavefronts (docs/timing.md).
  uint64_t lane_bytes = 0;
  void add(const BankCounts& o);
  void scale(double f);
};

// The costliest request seen (most excess wavefronts; first seen on ties).
struct WorstRequest {
  bank::Request request;  // an ldmatrix/stmatrix in its plain form (bank::as_request)
  bank::Result result;
  unsigned matrices = 0;  // ldmatrix/stmatrix: 1, 2 or 4; 0 for other instructions
  emu::Dim3 block;
  uint32_t warp = 0;
};

struct ModelCounts {
  BankCounts op[kSharedOps];
  std::optional<WorstRequest> worst;
};

struct InstrStats {
  const emu::InstrInfo* instr = nullptr;
  SharedOp op = SharedOp::Load;
  unsigned width = 0;
  std::vector<ModelCounts> models;  // one per model, in the order given
};

struct LineStats {
  SourceLine where;
  std::vector<ModelCounts> models;
  std::vector<uint32_t> pcs;  // instructions attributed to this line
};

class BankAnalysis : public emu::KernelObserver {
 public:
  // Models are shared by all blocks: bank::Model::evaluate is const and
  // thread-safe.
  explicit BankAnalysis(std::vector<std::unique_ptr<bank::Model>> models);

  std::unique_ptr<emu::BlockObserver> make_block_observer(emu::Dim3 block) override;
  void on_kernel_begin(const emu::KernelInfo& info) override { kernel_ = info; }
  void finish_block(emu::Dim3 block, std::unique_ptr<emu::BlockObserver> observer) override;

  const std::vector<std::unique_ptr<bank::Model>>& models() const { return models_; }
  const std::map<uint32_t, InstrStats>& instructions() const { return by_pc_; }
  const emu::KernelInfo& kernel() const { return kernel_; }
  uint64_t blocks_observed() const { return blocks_; }
  uint64_t cp_async_requests() const { return cp_async_; }
  // Per source line (see source_lines.h), sorted by file and line.
  std::vector<LineStats> lines() const;
  // Whole-kernel totals per model.
  std::vector<ModelCounts> totals() const;
  // Multiplies every count by f (rounded): sampled blocks -> whole grid.
  void scale(double f);

  // Adds one request to `stats` (exposed for tests and for the block observer).
  // `matrix`: the request is an ldmatrix/stmatrix (costed by
  // Model::evaluate_matrix; `request` is its plain form for display).
  static void record(const std::vector<std::unique_ptr<bank::Model>>& models, InstrStats& stats,
                     const bank::Request& request, emu::Dim3 block, uint32_t warp,
                     const bank::MatrixRequest* matrix = nullptr);

 private:
  std::vector<std::unique_ptr<bank::Model>> models_;
  std::map<uint32_t, InstrStats> by_pc_;
  emu::KernelInfo kernel_;
  uint64_t blocks_ = 0;
  uint64_t cp_async_ = 0;
  // Shared with the other analyses of the same models (BankMemo::of), got
  // by the first block observer: analyses made and never run look up none.
  std::shared_ptr<BankMemo> memo_;
  std::once_flag memo_once_;
};

void merge(ModelCounts& into, const ModelCounts& from);

}  // namespace smemlab::check
