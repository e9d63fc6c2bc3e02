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

  Result evaluate(const Request& r) const override {
    validate(r);
    if (r.op == Op::Atomic)
      throw Error(name() +
                  ": shared-memory atomics are not modelled before sm_70 "
                  "(Fermi emulates them with lock/update/unlock sequences)");
    Result res;
    if (r.mask == 0) return res;
    unsigned group_size = r.width <= 4 ? 32 : 128 / r.width;
    unsigned groups = 0;
    for (unsigned first = 0; first < 32; first += group_size) {
      uint32_t lanes = lanes_in(r.mask, first, group_size);
      if (!lanes) continue;
      std::vector<Touch> touches;
      add_touches(r, lanes, 4, kBanks, touches);
      unsigned cost = serve_group(touches, groups, res.passes);
      if (r.width == 16) {
        // The guide's extra 128-bit pass; it carries no further words.
        res.passes.push_back({groups, {}});
        ++cost;
      }
      res.wavefronts += cost;
      res.ways = std::max(res.ways, cost);
      ++groups;
    }
    res.ideal = groups;
    res.bank_conflicts = res.wavefronts - res.ideal;
    res.worst_wavefronts = res.wavefronts;
    return res;
  }

 private:
  unsigned sm_;
};

}  // namespace

std::unique_ptr<Model> make_fermi(unsigned sm) { return std::make_unique<FermiModel>(sm); }

}  // namespace smemlab::bank::detail
