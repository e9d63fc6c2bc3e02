// wgmma's operand reads from shared memory (bank/hopper.h): the descriptor's
// canonical layouts (PTX ISA "Shared Memory Matrix Layout"; the emulator
// computes the same addresses in emu/ops_wgmma.cc, which this layer may not
// include) and the measured cost of a core matrix.
#include <algorithm>
#include <map>
#include <set>

#include "bank/hopper.h"

namespace smemlab::bank {

namespace {

// Byte address of element (mn, k), the ISA's layouts: T elements per 16
// bytes, W 16-byte chunks per swizzle row.
uint64_t gmma_element_address(const GmmaDescriptor& d, bool mn_major, unsigned elem_bytes,
                              unsigned mn, unsigned k) {
  const unsigned t = 16 / elem_bytes;
  const unsigned w = d.swizzle_bytes ? d.swizzle_bytes / 16 : 1;
  const bool swizzled = d.swizzle_bytes != 0;
  uint64_t off;
  if (!mn_major)
    off = uint64_t{mn % 8} * 16 * w + uint64_t{mn / 8} * d.sbo +
          uint64_t{k / t} * (swizzled ? 16 : d.lbo) + uint64_t{k % t} * elem_bytes;
  else if (!swizzled)
    off = uint64_t{mn % t} * elem_bytes + uint64_t{mn / t} * d.sbo + uint64_t{k % 8} * 16 +
          uint64_t{k / 8} * d.lbo;
  else
    off = uint64_t{mn % t} * elem_bytes + uint64_t{(mn / t) % w} * 16 +
          uint64_t{mn / (t * w)} * d.lbo + uint64_t{k % 8} * 16 * w + uint64_t{k / 8} * d.sbo;
  uint64_t addr = d.start + off;
  if (swizzled) {
    // The 16-byte chunk index XOR the row of the repeating pattern, counted
    // from the pattern's start (base offset rows into it).
    const uint64_t phase = ((addr >> 7) - d.base_offset) & (w - 1);
    addr ^= phase << 4;
  }
  return addr;
}

}  // namespace

GmmaDescriptor decode_gmma_descriptor(uint64_t bits) {
  static constexpr unsigned kSwizzle[4] = {0, 128, 64, 32};
  GmmaDescriptor d;
  d.start = static_cast<uint32_t>(bits & 0x3fff) << 4;
  d.lbo = static_cast<uint32_t>((bits >> 16) & 0x3fff) << 4;
  d.sbo = static_cast<uint32_t>((bits >> 32) & 0x3fff) << 4;
  d.base_offset = static_cast<unsigned>((bits >> 49) & 7);
  d.swizzle_bytes = kSwizzle[bits >> 62];
  return d;
}

std::vector<uint64_t> gmma_core_matrices(const GmmaOperand& op) {
  if (op.elem_bytes != 1 && op.elem_bytes != 2 && op.elem_bytes != 4)
    throw Error("wgmma operand: element size " + std::to_string(op.elem_bytes) +
                " is not 1, 2 or 4 bytes");
  if (op.rows == 0 || op.rows % 8 || op.first_row % 8)
    throw Error("wgmma operand: rows " + std::to_string(op.first_row) + " + " +
                std::to_string(op.rows) + " are not whole groups of 8");
  if (op.mn_major && op.elem_bytes != 2)
    throw Error("wgmma operand: MN-major needs 2-byte elements, not " +
                std::to_string(op.elem_bytes));
  const GmmaDescriptor d = decode_gmma_descriptor(op.descriptor);
  const unsigned t = 16 / op.elem_bytes, k_elems = 32 / op.elem_bytes;  // 32 bytes of K per wgmma
  std::vector<uint64_t> chunks;
  if (!op.mn_major) {
    for (unsigned g = op.first_row / 8; g < (op.first_row + op.rows) / 8; ++g)
      for (unsigned kc = 0; kc < k_elems / t; ++kc)
        for (unsigned r = 0; r < 8; ++r)
          chunks.push_back(gmma_element_address(d, false, op.elem_bytes, 8 * g + r, kc * t));
  } else {
    for (unsigned mc = op.first_row / t; mc < (op.first_row + op.rows) / t; ++mc)
      for (unsigned kg = 0; kg < k_elems / 8; ++kg)
        for (unsigned r = 0; r < 8; ++r)
          chunks.push_back(gmma_element_address(d, true, op.elem_bytes, mc * t, 8 * kg + r));
  }
  return chunks;
}

Cost gmma_operand_cost(const GmmaOperand& op) {
  const std::vector<uint64_t> chunks = gmma_core_matrices(op);
  Cost c;
  for (size_t i = 0; i < chunks.size(); i += 8) {
    std::map<unsigned, std::set<uint64_t>> words;  // bank -> distinct words of this core matrix
    for (size_t r = i; r < i + 8; ++r)
      for (uint64_t w = chunks[r] / 4; w < chunks[r] / 4 + 4; ++w) words[w % 32].insert(w);
    unsigned worst = 0;
    for (const auto& [bank, set] : words)
      worst = std::max(worst, static_cast<unsigned>(set.size()));
    c.wavefronts += worst;
    c.ideal += 1;
    c.ways = std::max(c.ways, worst);
  }
  c.bank_conflicts = c.wavefronts - c.ideal;
  c.worst_wavefronts = c.wavefronts;
  return c;
}

Cost gmma_sass_only_cost(unsigned n) {
  if (n < 8 || n > 256 || n % 8)
    throw Error("HGMMA.64x" + std::to_string(n) + "x16: N must be a multiple of 8 in 8..256");
  Cost c;
  // core matrices: rows x 32 bytes / 128 bytes each
  c.wavefronts = c.ideal = c.worst_wavefronts = (64 + n) * 32 / 128;
  c.ways = 1;
  return c;
}

}  // namespace smemlab::bank
