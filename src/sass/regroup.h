// Turns the emulator's PTX-level warp accesses into SASS-level requests
// before the counting analyses see them (the seam of the SASS level,
// docs/sass.md). The emulator runs PTX; for an access that ptxas merged, a
// warp's accesses of the merged PTX instructions are held until all have
// arrived and then handed on as one wider request (lanes' address = the
// SASS instruction's, width = its width); a narrowed or split access is
// handed on as its SASS part(s). All other events pass through unchanged.
// A group that does not complete as the map says (a member repeated before
// the others came, a different lane mask or address) is handed on at PTX
// level and counted in fallbacks().
#pragma once

#include <atomic>
#include <memory>

#include "emu/observer.h"
#include "sass/mapping.h"

namespace smemlab::sass {

class Regroup final : public emu::KernelObserver {
 public:
  Regroup(emu::KernelObserver* inner, const KernelMap* map) : inner_(inner), map_(map) {}

  void on_kernel_begin(const emu::KernelInfo& info) override { inner_->on_kernel_begin(info); }
  std::unique_ptr<emu::BlockObserver> make_block_observer(emu::Dim3 block) override;
  void finish_block(emu::Dim3 block, std::unique_ptr<emu::BlockObserver> o) override;
  void on_kernel_end(bool ok) override { inner_->on_kernel_end(ok); }

  // Warp-level executions of a merged group that were counted at PTX level.
  uint64_t fallbacks() const { return fallbacks_; }

 private:
  emu::KernelObserver* inner_;
  const KernelMap* map_;
  uint64_t fallbacks_ = 0;
};

}  // namespace smemlab::sass
