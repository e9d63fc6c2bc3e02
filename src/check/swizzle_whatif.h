// The swizzle what-if (issue 28, deliverable 3): for every buffer a TMA
// load fills, the wavefronts its shared-memory readers (ld.shared,
// ldmatrix) would take had the tensor map asked for each swizzle mode,
// the readers' addresses following the data: a reader of box row r, byte b
// under the load's swizzle reads row r, byte b of the box laid out under
// the other mode (rows a span apart under a swizzle, the 16-byte chunks
// permuted by address bits 7..9). Costed with the launch's first bank
// model, the rules ld/st/ldmatrix are counted with everywhere. Readers of
// a buffer through wgmma descriptors (gmma_reads) cost 1 wavefront per core
// matrix under every mode and descriptor layout (measured on the H100,
// bank::gmma_operand_cost): the what-if shows that one number for all.
// Buffers no TMA load fills that wgmma reads through descriptors
// (DescriptorBuffer: filled by st.shared or cp.async, as hand-written
// kernels do) get the same what-if over the descriptor's layout field: each
// read costed again with the descriptor of that mode's canonical layout.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "bank/bank.h"
#include "emu/observer.h"

namespace smemlab::check {

// The four modes of CUtensorMapSwizzle this what-if weighs: none, 32B,
// 64B, 128B (the values 0..3).
inline constexpr int kSwizzleModes = 4;
const char* swizzle_mode_name(int mode);  // "none", "32B", "64B", "128B"

// One buffer: the TMA load instruction and the shared offset it fills.
struct SwizzleBuffer {
  const emu::InstrInfo* load = nullptr;
  uint32_t shared_base = 0;
  uint8_t swizzle = 0;  // the map's mode
  uint32_t row_bytes = 0, rows = 0;
  uint64_t reads = 0;  // reader requests inside the box
  // Wavefronts of those reads under each mode (nullopt: the mode cannot
  // hold the box's rows, which are wider than its span).
  std::array<std::optional<uint64_t>, kSwizzleModes> wavefronts{};
  uint64_t unmodelled = 0;  // reads the model refused
  // The reading instructions (their source lines are where `fix` rewrites
  // the readers' addresses).
  std::set<const emu::InstrInfo*> readers;
  // wgmma operands read from the buffer (per warpgroup instruction) and
  // their wavefronts: the same under every mode.
  uint64_t gmma_reads = 0, gmma_wavefronts = 0;
};

// The mode whose readers take the fewest wavefronts (the map's own on a tie).
int best_swizzle(const SwizzleBuffer& b);

// The change to a better mode `to` as a user makes it (the what-if's
// proposal): the tensor map's field and the readers' address XOR.
struct SwizzleProposal {
  const char* tensor_map_swizzle;  // "CU_TENSOR_MAP_SWIZZLE_128B"
  std::string cute_swizzle;        // CuTe's functor on byte offsets: "Swizzle<3,4,3>"
  std::string reader_xor;          // "o ^ ((o >> 7 & 7) << 4)"
  uint32_t row_pitch = 0;          // bytes from one box row to the next under `to`
  uint32_t alignment = 0;          // the box's base alignment the pattern needs
};
SwizzleProposal swizzle_proposal(const SwizzleBuffer& b, int to);

// A buffer no TMA load fills, read by a wgmma operand through descriptors:
// the wgmma instruction, which operand, and the 1 KiB block (a swizzle
// pattern's repeat) of the operand's first chunk.
struct DescriptorBuffer {
  const emu::InstrInfo* wgmma = nullptr;
  bool operand_a = false;
  uint32_t shared_base = 0;
  uint8_t swizzle = 0;  // the descriptor's layout as a mode 0..3 (none, 32B, 64B, 128B)
  bool mn_major = false;
  uint32_t rows = 0, elem_bytes = 0;  // per read: A's or B's rows (mn), element size
  uint64_t reads = 0;                 // warpgroup operand reads
  // Wavefronts of those reads under each layout (bank::gmma_operand_cost).
  std::array<std::optional<uint64_t>, kSwizzleModes> wavefronts{};
  uint64_t unmodelled = 0;  // reads the rule refused (under the descriptor's own layout)
};

// The descriptor of the same operand (start, major-ness) in mode `to`'s
// canonical layout: K-major none: core matrices 128 bytes apart along K
// (LBO 128) and a 256-byte row group (SBO: 2 chunks of K per wgmma);
// swizzled: rows a span apart, 8 rows a group (SBO 8 x span). MN-major the
// same strides with LBO and SBO's roles as the ISA gives them.
uint64_t descriptor_under(uint32_t start, int to);

class SwizzleWhatIf final : public emu::KernelObserver {
 public:
  // `model`: the first model of the launch (outlives this analysis).
  explicit SwizzleWhatIf(const bank::Model* model) : model_(model) {}
  void on_kernel_begin(const emu::KernelInfo& info) override { kernel_ = info; }
  const emu::KernelInfo& kernel() const { return kernel_; }
  const bank::Model& model() const { return *model_; }
  std::unique_ptr<emu::BlockObserver> make_block_observer(emu::Dim3 block) override;
  void finish_block(emu::Dim3 block, std::unique_ptr<emu::BlockObserver> observer) override;
  // By (load pc, shared offset).
  const std::map<std::pair<uint32_t, uint32_t>, SwizzleBuffer>& buffers() const { return buffers_; }
  // By (wgmma pc, operand A, 1 KiB block).
  using DescriptorKey = std::tuple<uint32_t, bool, uint32_t>;
  const std::map<DescriptorKey, DescriptorBuffer>& descriptor_buffers() const {
    return descriptors_;
  }
  void scale(double f);

  // The address a byte at shared offset `addr` of a box (base, row bytes,
  // laid out under mode `from`) moves to under mode `to`; false when `to`
  // cannot hold the box's rows or `addr` is not box data. Exposed for tests.
  static bool remap(uint32_t base, uint32_t row_bytes, int from, int to, uint64_t addr,
                    uint64_t* out);

 private:
  const bank::Model* model_;
  emu::KernelInfo kernel_;
  std::map<std::pair<uint32_t, uint32_t>, SwizzleBuffer> buffers_;
  std::map<DescriptorKey, DescriptorBuffer> descriptors_;
};

}  // namespace smemlab::check
