// Fermi (sm_20, sm_21): 32 banks of 4 bytes, any number of words broadcast
// in one pass. CUDA C Programming Guide 4.x, compute capability 2.x: 64-bit
// accesses are served per half-warp, 128-bit ones per quarter-warp, and the
// latter cost one extra pass ("add 1 to the maximum number of threads in a
// quarter-warp that access different addresses belonging to the same bank").
#include <algorithm>

#include "bank/models.h"

namespace smemlab::bank::detail {
namespace {

constexpr unsigned kBanks = 32;

class FermiModel final : public Model {
 public:
  explicit FermiModel(unsigned sm) : sm_(sm) {}
  std::string name() const override { return "sm_" + std::to_string(sm_); }
  std::string description() const override {
    return name() +
           ": Fermi, 32 banks x 4 B, multicast; 64-bit per half-warp, 128-bit per "
           "quarter-warp (CUDA guide 2.x rules; not measured here)";
  }
  unsigned banks() const override { return kBanks; }
  unsigned bank_bytes() const override { return 4; }
  // A shift by whole 4-byte words rotates the banks (same distinct words
  // per bank); a multiple of the width keeps the lanes aligned.
  uint64_t period(unsigned width) const override { return std::max(4u, width); }

  Result evaluate(const Request& r) const override {
    check(r);
    if (r.mask == 0) return Result{};
    // 128-bit: the guide's extra pass per quarter-warp; it carries no words.
    return serve_in_groups(r, r.width <= 4 ? 32 : 128 / r.width, kBanks, false,
                           r.width == 16 ? 1 : 0);
  }
  Cost cost(const Request& r) const override {
    check(r);
    if (r.mask == 0) return Cost{};
    return count_in_groups(r, r.width <= 4 ? 32 : 128 / r.width, kBanks, false,
                           r.width == 16 ? 1 : 0);
  }

 private:
  void check(const Request& r) const {
    validate_fast(r);
    if (r.op == Op::Atomic)
      throw Error(name() +
                  ": shared-memory atomics are not modelled before sm_70 "
                  "(Fermi emulates them with lock/update/unlock sequences)");
  }
  unsigned sm_;
};

}  // namespace

std::unique_ptr<Model> make_fermi(unsigned sm) { return std::make_unique<FermiModel>(sm); }

}  // namespace smemlab::bank::detail
