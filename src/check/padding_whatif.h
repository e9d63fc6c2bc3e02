// The padding what-if (issue 28, deliverable 3: the counterpart of the
// swizzle what-if for shared buffers no TMA or bulk copy fills): for each
// buffer (a .shared variable, or the dynamic window) whose requests
// conflict, the wavefronts its loads, stores and atomics would take had each
// of its rows been padded by k 4-byte words, k the smallest that removes the
// conflicts. The buffer's distinct requests are recorded (merged with a
// count) and replayed through the launch's first bank model with the row
// pitch P made P + 4k: a byte at offset o of the buffer moves to
// (o / P) * (P + 4k) + o % P. PTX does not keep a buffer's dimensions, so P
// comes from the access pattern: the most common positive address step
// between consecutive active lanes of its conflicted requests (a column walk
// steps one row per lane; docs/json-schema.md, `padding_what_if`).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bank/bank.h"
#include "emu/observer.h"

namespace smemlab::check {

// A buffer's requests of one kind (load, store, atomic) before and after.
struct PadOpCounts {
  uint64_t requests = 0, wavefronts = 0, ideal = 0;
  uint64_t padded_wavefronts = 0;  // with the chosen padding
};

struct PaddingBuffer {
  std::string name;  // the PTX variable ("" for the dynamic window)
  uint32_t base = 0, bytes = 0;
  uint32_t pitch = 0;      // the row pitch the accesses imply, bytes (0: none found)
  uint32_t pad_words = 0;  // k: the smallest padding that removes the conflicts, else
                           // the smallest of the fewest wavefronts; 0 when none helps
  bool removes = false;    // k leaves no wavefront above ideal
  uint64_t padded_bytes = 0;
  std::array<PadOpCounts, 3> ops{};       // load, store, atomic
  uint64_t unmodelled = 0;                // requests the model refused (left out of both sides)
  bool incomplete = false;                // more distinct requests than kept: no prediction made
  const emu::InstrInfo* worst = nullptr;  // the instruction of its costliest conflicted request
};

// A buffer as PaddingWhatIf takes it: a .shared variable (its PTX name) or
// the dynamic window (name "").
inline PaddingBuffer padding_span(std::string name, uint32_t base, uint32_t bytes) {
  PaddingBuffer b;
  b.name = std::move(name);
  b.base = base;
  b.bytes = bytes;
  return b;
}

class PaddingWhatIf final : public emu::KernelObserver {
 public:
  // `model`: the launch's first model (outlives this); `spans`: the
  // kernel's buffers (name, base, bytes): its .shared variables and the
  // launch's dynamic window.
  PaddingWhatIf(const bank::Model* model, std::vector<PaddingBuffer> spans);
  ~PaddingWhatIf() override;
  void on_kernel_begin(const emu::KernelInfo& info) override { kernel_ = info; }
  const emu::KernelInfo& kernel() const { return kernel_; }
  const bank::Model& model() const { return *model_; }
  std::unique_ptr<emu::BlockObserver> make_block_observer(emu::Dim3 block) override;
  void finish_block(emu::Dim3 block, std::unique_ptr<emu::BlockObserver> observer) override;
  // The conflicted buffers no bulk copy wrote, in shared-offset order
  // (computed at the first call, after the launch).
  const std::vector<PaddingBuffer>& buffers() const;
  void scale(double f) { scale_ *= f; }

  // Offset `o` of a buffer with rows `pitch` bytes apart, padded by
  // `pad_bytes` per row. Exposed for tests.
  static uint64_t padded(uint64_t o, uint32_t pitch, uint32_t pad_bytes) {
    return o / pitch * (pitch + pad_bytes) + o % pitch;
  }
  // The most common positive step between consecutive active lanes' addresses
  // of `requests` (weighted by count); 0 when none. Exposed for tests.
  struct Step {
    uint32_t mask;
    const uint32_t* addr;  // the lanes' shared offsets
    uint64_t count;
  };
  static uint32_t row_pitch(const std::vector<Step>& requests);

  struct Recorded;  // a buffer's distinct requests (padding_whatif.cc)

 private:
  const bank::Model* model_;
  std::vector<PaddingBuffer> spans_;  // every buffer: name, base, bytes
  emu::KernelInfo kernel_;
  std::vector<std::unique_ptr<Recorded>> recorded_;  // by buffer
  double scale_ = 1;
  mutable std::optional<std::vector<PaddingBuffer>> results_;
};

}  // namespace smemlab::check
