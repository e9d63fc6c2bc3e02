// Bank model: the cost, in wavefronts (passes through the banks), of one
// warp's shared-memory request, for every GPU generation.
//
// A Request is what one warp-level shared-memory instruction asks for: an
// operation, an access width, an active mask and one byte address per lane.
// A Model turns it into a Result: wavefronts, the ideal (conflict-free) count,
// Nsight Compute's bank-conflict counter, and the lanes and words each
// wavefront served (enough to draw a bank map). Rules and their sources:
// docs/bank-model.md. This module depends on nothing else in smemlab.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace smemlab::bank {

enum class Op { Load, Store, Atomic };

std::string_view op_name(Op op);
// Parses "load"/"ld", "store"/"st", "atomic"/"atom"; throws Error otherwise.
Op parse_op(std::string_view text);

struct Request {
  Op op = Op::Load;
  unsigned width = 4;               // bytes per lane: 1, 2, 4, 8 or 16
  uint32_t mask = 0xffffffffu;      // bit i = lane i is active
  std::array<uint64_t, 32> addr{};  // byte offsets into shared memory
};

// One bank-word served in one wavefront: which bank, which word (in the
// model's bank-word unit: 4 bytes, or 8 in Kepler's 8-byte mode) and the
// lanes that received it.
struct Slot {
  unsigned bank = 0;
  uint64_t word = 0;
  uint32_t lanes = 0;
};

struct Wavefront {
  unsigned group = 0;       // lane group (warp, half-, quarter-warp) it belongs to
  std::vector<Slot> slots;  // sorted by bank
};

struct Result {
  unsigned wavefronts = 0;
  unsigned ideal = 0;           // wavefronts the same request would cost without conflicts
  unsigned bank_conflicts = 0;  // Nsight Compute's l1tex__data_bank_conflicts_* semantics
  unsigned ways = 0;            // conflict degree: the worst group's cost (1 = conflict-free)
  std::vector<Wavefront> passes;
  // Only where the hardware's choice is unspecified (CC 1.x broadcast):
  // the cost under the least favourable choice. Equal to wavefronts elsewhere.
  unsigned worst_wavefronts = 0;
};

// A Result's counts without its passes: what a caller summing many requests
// needs (check's BankAnalysis), at a fraction of the cost of building the
// passes.
struct Cost {
  unsigned wavefronts = 0, ideal = 0, bank_conflicts = 0, ways = 0, worst_wavefronts = 0;
};
Cost cost_of(const Result& result);

// Bad requests (misaligned address, unsupported width) and unknown
// architecture names are errors, never guesses.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct MatrixRequest;  // ldmatrix/stmatrix: bank/ldmatrix.h

class Model {
 public:
  virtual ~Model() = default;
  // Canonical name, e.g. "sm_90", "sm_35:4", "sm_20", "sm_13".
  virtual std::string name() const = 0;
  // One line saying what generation this is and any caveat (e.g. unmeasured).
  virtual std::string description() const = 0;
  virtual unsigned banks() const = 0;
  virtual unsigned bank_bytes() const = 0;
  // Shifting every address of a request of `width` bytes per lane by a
  // multiple of this many bytes changes none of its counts (wavefronts,
  // ideal, conflicts, ways, worst) nor whether it is refused; only the words
  // a Result names move. Callers may therefore cost a request by its address
  // pattern (offsets from one lane, plus that lane's address modulo the
  // period). Always a multiple of `width`, so alignment is kept.
  virtual uint64_t period(unsigned width) const = 0;
  // Throws Error for an invalid request.
  virtual Result evaluate(const Request& request) const = 0;
  // Exactly evaluate(request)'s counts, and the same Error for a request it
  // refuses. The default calls evaluate; models with a cheaper count that
  // builds no passes override it.
  virtual Cost cost(const Request& request) const;
  // ldmatrix/stmatrix (bank/ldmatrix.h). Generations without the
  // instruction, or whose rule was not measured, throw Error.
  virtual Result evaluate_matrix(const MatrixRequest& request) const;
};

// Architecture names: sm_70 ... sm_90 (and sm_100, sm_120: same rules,
// unmeasured), sm_30 ... sm_37 with bank_mode 4 or 8 (also "sm_35:8"),
// sm_20, sm_21, sm_10 ... sm_13. Throws Error for anything else.
std::unique_ptr<Model> make_model(std::string_view arch, unsigned bank_mode = 4);

// One representative model per generation, oldest first, for `--arch all`:
// sm_13, sm_20, sm_35:4, sm_35:8, sm_90.
std::vector<std::unique_ptr<Model>> all_generations();

// Checks width and alignment of every active lane; throws Error naming the
// first offending lane. Models call this; exposed for callers that want to
// validate before building a model.
void validate(const Request& request);

}  // namespace smemlab::bank
