// `smemlab fix`: for every shared array of one launch whose accesses cost
// excess wavefronts, search layouts (padding, XOR swizzles) by re-costing the
// recorded accesses under each (what-if, no recompilation), then prove the
// best ones: rewrite the source (rewrite.h), rebuild and re-run with the same
// inputs through a Runner, and require bit-identical output buffers and no
// new `check` findings. Uses emu (events), check (findings), bank (models);
// the CLI supplies the Runner (nvcc + launch), so this module stays below it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bank/bank.h"
#include "check/finding.h"
#include "emu/program.h"
#include "fix/layout.h"
#include "fix/rewrite.h"
#include "fix/source_model.h"
#include "fix/whatif.h"

namespace smemlab::fix {

// One shared array of the launched kernel: PTX placement joined with the
// source declaration.
struct ArrayInfo {
  std::string name;      // as in the source (PTX name if not found there)
  std::string ptx_name;  // "" for the dynamic window
  bool dynamic = false;
  Span span;
  int source_index = -1;          // into SourceModel::arrays; -1 = not found
  std::vector<uint64_t> extents;  // elements per dimension (dynamic: the one implied)
  uint32_t elem = 0;              // element bytes
  unsigned widest = 0;            // widest access in bytes per lane
  std::vector<Cost> before;       // per model
  std::string skipped;            // why no candidates were searched ("" = searched)
};

struct Candidate {
  size_t array = 0;  // into Result::arrays
  Layout layout;
  std::vector<Cost> after;      // per model
  uint64_t shared_bytes = 0;    // the kernel's shared memory (static + dynamic) with this layout
  uint32_t dynamic_shared = 0;  // the launch's dynamic shared bytes with this layout
  unsigned blocks_per_sm = 0;   // on the target, as far as shared memory and threads allow
  std::optional<Edits> edits;   // the source change; nullopt = cannot be written (see why)
  std::string why_not;          // why no edits, or why the proof rejected it
  enum class Verdict { NotTried, Verified, Rejected } verdict = Verdict::NotTried;
  Cost measured;            // the rebuilt kernel's sm_90 cost, all shared arrays (proven ones only)
  double predicted_ns = 0;  // the rebuilt kernel's predicted H100 duration (0: none)
  // The edits also set the `// smemlab:` recipe's --shared to dynamic_shared
  // (recipe mode, a padded dynamic array; added after the proof).
  bool recipe_shared = false;
};

// What a run of the (possibly rewritten) kernel produced.
struct RunResult {
  std::string error;                          // could not compile or launch ("" = ran)
  std::vector<std::vector<uint8_t>> buffers;  // every buffer argument after the launch
  std::vector<check::Finding> findings;       // check's findings (the kernel's error included)
  Cost measured;  // the whole kernel's shared accesses on sm_90, as the rebuilt kernel ran
  // The time model's H100 duration of this run (src/timing, issue 31), as
  // the Runner predicted it; 0: none.
  double predicted_ns = 0;
};
// Builds and runs the kernel from `cu_path` with the original launch, except
// `dynamic_shared` bytes of dynamic shared memory.
using Runner = std::function<RunResult(const std::string& cu_path, uint32_t dynamic_shared)>;

// The proof's run of a change: `source` with `edits` written beside the
// original (so its #include "..." lines resolve), run through `run`, removed.
RunResult run_rewritten(const SourceModel& source, const Edits& edits, uint32_t dynamic_shared,
                        const Runner& run);
// Why `got` is not verified against the reference `want` (a run error, a
// buffer that differs, a finding kind check reports more often); "" when it is.
std::string proof_difference(const RunResult& want, const RunResult& got);

struct Options {
  unsigned max_pad = 8;  // padding tried: 1..max_pad elements (multiples of vector units)
  unsigned prove = 3;    // candidates proven per array, best first, until one is verified
  unsigned threads_per_block = 0;
};

struct Result {
  std::vector<std::string> models;    // names, target first
  std::vector<ArrayInfo> arrays;      // every shared array the kernel touches
  std::vector<Candidate> candidates;  // improving ones, ranked per array, arrays in order
  uint64_t shared_bytes = 0;          // as launched
  uint32_t dynamic_shared = 0;
  unsigned blocks_per_sm = 0;
  RunResult original;  // the unmodified kernel's run (the proof's reference)
  bool anything_to_fix() const;
  // The first verified candidate of an array (candidates are ranked), or null.
  const Candidate* best_verified(size_t array) const;
  // The patch: the best verified change of every array as one set of edits,
  // itself proven when it combines several arrays (if the combination fails
  // the proof, only the first array's change).
  Edits patch;
  std::string patch_note;  // what the patch holds when not every verified change
};

// Blocks of `threads` threads using `shared_bytes` each that fit on one SM of
// the target (sm_90: 228 KiB per SM, 1 KiB reserved per block, 2048 threads,
// 32 blocks).
unsigned blocks_per_sm(uint64_t shared_bytes, unsigned threads);

// The search and the proof. `program` is the launched kernel (its shared
// variables), `accesses` its recorded shared accesses and `original` its
// outputs (the same launch, all blocks: the proof's reference), `models` the bank
// models (target first), `lines` the module's line table (to find the
// extern array behind dynamic-window accesses).
Result find_fixes(const SourceModel& source, const emu::Program& program, uint32_t dynamic_shared,
                  const std::vector<SharedAccess>& accesses, const RunResult& original,
                  const std::vector<std::unique_ptr<bank::Model>>& models, const Runner& run,
                  const Options& options, const ptx::LineTable* lines);

}  // namespace smemlab::fix
