// One emulated launch with the analyses attached (bank statistics and
// memory-access statistics, the defect checks, or both) and the emulator's
// stop turned into a finding. Used by the CLI's recipe mode (`analyze FILE.cu`) and by
// the CUDA runtime (`analyze -- ./app`): whoever prepared the launch (a
// recipe, or a program's cuLaunchKernel) hands over module, kernel, config
// and argument bytes.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bank/bank.h"
#include "check/access_stats.h"
#include "check/bank_stats.h"
#include "check/defects.h"
#include "check/hopper_stats.h"
#include "check/padding_whatif.h"
#include "check/swizzle_whatif.h"
#include "emu/launch.h"
#include "ptx/demangle.h"
#include "report/report.h"
#include "sass/level.h"
#include "timing/footprint.h"

namespace smemlab::session {

// A bad --arch or --blocks value (the message names it).
struct OptionError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct LaunchAnalysis {
  std::unique_ptr<check::BankAnalysis> banks;  // null with Analyses::FindingsOnly
  check::AccessAnalysis access;
  check::HopperAnalysis hopper;                   // TMA, wgmma, distributed shared memory
  std::unique_ptr<check::SwizzleWhatIf> swizzle;  // with banks: TMA-filled buffers' readers
  std::unique_ptr<check::PaddingWhatIf> padding;  // with banks: the other buffers
  std::unique_ptr<check::DefectCheck> defects;    // null with Analyses::Counts
  sass::KernelLevel level;                        // the PTX -> SASS map the counts went through
  timing::Footprint footprint;                    // distinct global sectors (the time model's DRAM)
  emu::LaunchStatus status;
  report::RunInfo info;  // `source` is left to the caller
  // Findings of the checkers plus the error the emulator stopped on, if any.
  std::vector<check::Finding> findings;
};

// "sm_90,sm_35:4" or "all" -> models; throws OptionError for unknown names.
std::vector<std::unique_ptr<bank::Model>> parse_models(const std::string& archs);

// Which blocks to emulate: "all", a count N (a deterministic sample of N
// blocks spread evenly over the grid, first and last included), or "" for
// the default: all blocks up to kDefaultSample, else that many. Empty
// result: the whole grid. Throws OptionError.
inline constexpr uint64_t kDefaultSample = 64;
std::vector<emu::Dim3> sample_blocks(emu::Dim3 grid, const std::string& spec);

// What a launch is emulated with: everything (`analyze --check`, `report`,
// `fix`, which proves a fix adds no finding), the counts alone (`analyze`,
// the Nsight Compute of the pair: whole-grid counts at close to emulation
// speed; the emulator's own stops are still findings), or the defect
// checkers alone (`check`, the compute-sanitizer, which prints findings only
// and so need not pay for the counts).
enum class Analyses : uint8_t { All, Counts, FindingsOnly };

// Runs the launch with all analyses (`what`); a kernel that fails (out-of-bounds,
// deadlock, ...) leaves its error in status and in findings. With
// cfg.only_blocks set, counts are scaled to the whole grid (RunInfo says by
// how much).
// At the SASS level (`level` Sass, where the tools exist, else PTX with the
// reason in RunInfo) the bank and access analyses count SASS requests of
// `ptx_text` compiled by ptxas; the defect checkers always see the PTX
// accesses, and so does `extra` when given. With schedules in `compare`
// (check --compare-schedules), the launch runs again under each of them and
// the differences are findings (session/schedule_compare.h).
void analyze_launch(emu::Module& m, const std::string& kernel, emu::LaunchConfig cfg,
                    const std::vector<emu::ArgBytes>& args,
                    std::vector<std::unique_ptr<bank::Model>> models, LaunchAnalysis* out,
                    sass::Level level = sass::Level::Ptx, const std::string& ptx_text = "",
                    emu::KernelObserver* extra = nullptr, Analyses what = Analyses::All,
                    const std::vector<emu::Schedule>& compare = {});

// The same with the level already chosen (program mode chooses it once per
// kernel with sass::choose_program_level and reuses it for every launch).
void analyze_launch(emu::Module& m, const std::string& kernel, emu::LaunchConfig cfg,
                    const std::vector<emu::ArgBytes>& args,
                    std::vector<std::unique_ptr<bank::Model>> models, LaunchAnalysis* out,
                    sass::KernelLevel level, emu::KernelObserver* extra = nullptr,
                    Analyses what = Analyses::All, const std::vector<emu::Schedule>& compare = {});

// The finding kind of the error the emulator stopped on: the one place an
// emulator fault's kind (emu::FaultKind) becomes a finding kind, by the
// finding column of emu/fault_kinds.def. A deadlock at a warp collective
// (OpClass::Collective) is a divergent barrier, elsewhere a barrier deadlock.
check::FindingKind finding_kind_of(emu::FaultKind kind);
check::FindingKind finding_kind_of(const emu::LaunchError& e);

// The error the emulator stopped on, as a finding of `check`.
check::Finding finding_from(const emu::LaunchError& e, emu::Dim3 block_dim);

using ptx::demangle;

}  // namespace smemlab::session
