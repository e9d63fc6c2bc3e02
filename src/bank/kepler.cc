// Kepler (sm_30 ... sm_37): 32 banks that deliver 64 bits per clock, in a
// 4- or 8-byte addressing mode (cudaDeviceSetSharedMemConfig). CUDA C
// Programming Guide 4.x/5.x, compute capability 3.x.
#include <algorithm>

#include "bank/models.h"

namespace smemlab::bank::detail {
namespace {

constexpr unsigned kBanks = 32;

class KeplerModel final : public Model {
 public:
  KeplerModel(unsigned sm, unsigned mode) : sm_(sm), mode_(mode) {}
  std::string name() const override {
    return "sm_" + std::to_string(sm_) + ":" + std::to_string(mode_);
  }
  std::string description() const override {
    return name() + ": Kepler, 32 banks, " + std::to_string(mode_) +
           "-byte bank mode (CUDA guide 3.x rules; not measured here)";
  }
  unsigned banks() const override { return kBanks; }
  unsigned bank_bytes() const override { return mode_; }
  // A shift by whole bank words rotates the banks and a multiple of the
  // width keeps the lanes aligned, but in 4-byte mode which words share a
  // 64-bit access depends on the 256-byte row.
  uint64_t period(unsigned width) const override { return mode_ == 4 ? 256 : std::max(8u, width); }

  Result evaluate(const Request& r) const override {
    validate_fast(r);
    if (r.op == Op::Atomic)
      throw Error(name() +
                  ": shared-memory atomics are not modelled before sm_70 "
                  "(Kepler emulates them with lock/update/unlock sequences)");
    Result res;
    if (r.mask == 0) return res;
    Touch touches[32 * kMaxWordsPerLane];
    const size_t n = add_touches(r, r.mask, mode_, kBanks, touches);
    // 4-byte mode: words i and i+32 share a bank but travel in the same
    // 64-bit bank access when they lie in one 64-word (256-byte) row.
    if (mode_ == 4)
      for (size_t i = 0; i < n; ++i) touches[i].key = touches[i].word / 64;
    res.wavefronts = serve_group({touches, n}, 0, res.passes);
    unsigned active = static_cast<unsigned>(__builtin_popcount(r.mask));
    // The banks move 32 x 8 = 256 bytes per pass.
    res.ideal = std::max(1u, (active * r.width + 255) / 256);
    res.ideal = std::min(res.ideal, res.wavefronts);
    res.bank_conflicts = res.wavefronts - res.ideal;
    res.ways = res.wavefronts;
    res.worst_wavefronts = res.wavefronts;
    return res;
  }

 private:
  unsigned sm_, mode_;
};

}  // namespace

std::unique_ptr<Model> make_kepler(unsigned sm, unsigned mode) {
  return std::make_unique<KeplerModel>(sm, mode);
}

}  // namespace smemlab::bank::detail
