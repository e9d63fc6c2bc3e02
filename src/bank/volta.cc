// Volta through Hopper (sm_70 ... sm_90), measured on an H100; see
// docs/bank-model.md. 32 banks of 4 bytes. 1-4 byte accesses are served as
// one warp-wide group; 8- and 16-byte accesses in groups of 128/W lanes,
// which loads (never stores) may merge when neighbouring lanes pair up on
// the same address.
#include <algorithm>

#include "bank/ldmatrix.h"
#include "bank/models.h"

namespace smemlab::bank::detail {
namespace {

constexpr unsigned kBanks = 32;

// Rule 3: every active lane i has lane i^d inactive or at the same address,
// for d = 1 or for d = 2.
bool loads_merge(const Request& r) {
  for (unsigned d : {1u, 2u}) {
    bool all = true;
    for (unsigned i = 0; i < 32 && all; ++i) {
      unsigned j = i ^ d;
      if ((r.mask >> i & 1u) && (r.mask >> j & 1u) && r.addr[i] != r.addr[j]) all = false;
    }
    if (all) return true;
  }
  return false;
}

class VoltaModel final : public Model {
 public:
  explicit VoltaModel(unsigned sm) : sm_(sm) {}
  std::string name() const override { return "sm_" + std::to_string(sm_); }
  std::string description() const override {
    if (sm_ >= 100)
      return name() +
             ": Volta-Hopper rules (measured on an H100, sm_90); not measured on this "
             "generation";
    return name() +
           ": 32 banks x 4 B; 8/16-byte accesses in half/quarter-warp groups, loads "
           "may merge (measured on an H100)";
  }
  unsigned banks() const override { return kBanks; }
  unsigned bank_bytes() const override { return 4; }
  // A shift by whole 4-byte words rotates the banks (same distinct words
  // per bank); a multiple of the width keeps the lanes aligned.
  uint64_t period(unsigned width) const override { return std::max(4u, width); }

  Result evaluate(const Request& r) const override {
    validate_fast(r);
    if (r.mask == 0) return Result{};
    return serve_in_groups(r, group_size(r), kBanks, r.op == Op::Atomic);
  }
  Cost cost(const Request& r) const override {
    validate_fast(r);
    if (r.mask == 0) return Cost{};
    return count_in_groups(r, group_size(r), kBanks, r.op == Op::Atomic);
  }

  Result evaluate_matrix(const MatrixRequest& r) const override {
    unsigned since = r.store ? 90 : 75;
    if (sm_ < since)
      throw Error(std::string(r.store ? "stmatrix" : "ldmatrix") + " needs sm_" +
                  std::to_string(since) + " or later (model " + name() + ")");
    return bank::evaluate_matrix(r);
  }

 private:
  // Lane groups served separately; atomics serialize every lane on a bank,
  // even lanes on the same word.
  static unsigned group_size(const Request& r) {
    unsigned size = 32;
    if (r.op != Op::Atomic && r.width > 4) {
      size = 128 / r.width;
      if (r.op == Op::Load && loads_merge(r)) size *= 2;
    }
    return size;
  }
  unsigned sm_;
};

}  // namespace

std::unique_ptr<Model> make_volta(unsigned sm) { return std::make_unique<VoltaModel>(sm); }

}  // namespace smemlab::bank::detail
