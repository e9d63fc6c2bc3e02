// The what-if search's data: every warp-level shared access of one emulated
// launch, recorded once (identical requests from different blocks or
// iterations merged with a count), then re-costed under a candidate layout
// of one array by remapping the addresses that fall inside it and running
// the bank models again. No recompilation and no re-emulation per candidate.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "bank/bank.h"
#include "emu/observer.h"
#include "fix/layout.h"

namespace smemlab::fix {

struct SharedAccess {
  bank::Request request;
  uint32_t pc = 0;
  const emu::InstrInfo* instr = nullptr;
  uint64_t count = 0;  // how often this exact request happened
};

// Records shared loads, stores and atomics (cp.async's shared side follows
// other rules and is not costed, as in `analyze`).
class AccessRecorder : public emu::KernelObserver {
 public:
  std::unique_ptr<emu::BlockObserver> make_block_observer(emu::Dim3 block) override;
  void finish_block(emu::Dim3 block, std::unique_ptr<emu::BlockObserver> observer) override;
  void on_kernel_begin(const emu::KernelInfo& info) override { kernel_ = info; }
  const std::vector<SharedAccess>& accesses() const { return accesses_; }
  const emu::KernelInfo& kernel() const { return kernel_; }

 private:
  std::map<std::string, size_t> index_;  // request bytes -> accesses_ index
  std::vector<SharedAccess> accesses_;
  emu::KernelInfo kernel_;
};

// Where an array lies in the block's shared window.
struct Span {
  uint64_t base = 0, bytes = 0;
  bool contains(uint64_t a) const { return a >= base && a < base + bytes; }
};

struct Cost {
  uint64_t requests = 0, wavefronts = 0, ideal = 0;
  bool valid = true;  // false: the layout misaligns an access (the model refused it)
  std::string error;  // why not valid
  double per_request() const { return requests ? double(wavefronts) / double(requests) : 0; }
  double ideal_per_request() const { return requests ? double(ideal) / double(requests) : 0; }
};

// The accesses that touch `span`, costed by `model`, with their lanes inside
// the span remapped by `layout` (nullptr: as recorded).
Cost cost_of(const std::vector<SharedAccess>& accesses, const Span& span, const Layout* layout,
             const bank::Model& model);

// Widest access (bytes per lane) into the span; 0 when none.
unsigned widest_access(const std::vector<SharedAccess>& accesses, const Span& span);
// Narrowest access (bytes per lane) into the span; 0 when none.
unsigned narrowest_access(const std::vector<SharedAccess>& accesses, const Span& span);

}  // namespace smemlab::fix
