// The global side of TMA tensor copies and bulk copies, as Nsight Compute
// counts it on an H100 (bank/hopper.h, docs/bank-model.md "Hopper").
#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "bank/hopper.h"

namespace smemlab::bank {

namespace {

constexpr uint64_t kSector = 32;

void add_sectors(std::set<uint64_t>& sectors, uint64_t addr, uint64_t bytes) {
  for (uint64_t s = addr / kSector; s <= (addr + bytes - 1) / kSector; ++s) sectors.insert(s);
}

}  // namespace

CopyTraffic copy_traffic(CopyDirection direction, std::span<const CopyChunk> chunks,
                         unsigned destinations, std::span<const uint32_t> shared) {
  if (!shared.empty() && shared.size() != chunks.size())
    throw Error("copy: " + std::to_string(shared.size()) + " shared chunks for " +
                std::to_string(chunks.size()) + " global ones");
  // Loads walk the whole box; stores and reductions only the chunks inside.
  // Each moved chunk with the group it belongs to: a new group at every
  // 128-byte line of shared memory (or every 8 chunks without the shared
  // side), as the copy engine moves a line at a time.
  struct Moved {
    CopyChunk c;
    uint64_t group;
  };
  std::vector<Moved> moved;
  for (size_t i = 0; i < chunks.size(); ++i) {
    const CopyChunk& c = chunks[i];
    const uint64_t group = shared.empty() ? i / 8 : shared[i] / 128;
    if (direction == CopyDirection::Load)
      moved.push_back({{c.global, c.valid ? 16u : 0u}, group});
    else if (c.valid)
      moved.push_back({c, group});
  }
  CopyTraffic t;
  for (size_t i = 0; i < moved.size();) {
    std::set<uint64_t> sectors;
    // A load's chunks outside the tensor read no address: each run of
    // consecutive ones in the group costs as if packed from a sector
    // boundary, 2 chunks a sector (runs 5 and 6: 29 launches).
    uint64_t outside = 0, packed = 0;
    const size_t first = i;
    for (; i < moved.size() && i < first + 8 && moved[i].group == moved[first].group; ++i) {
      if (moved[i].c.valid) {
        add_sectors(sectors, moved[i].c.global, moved[i].c.valid);
        packed += (outside + 1) / 2;
        outside = 0;
      } else {
        ++outside;
      }
    }
    t.sectors += sectors.size() + packed + (outside + 1) / 2;
  }
  t.sectors *= std::max(destinations, 1u);
  t.bytes = t.sectors * kSector;
  return t;
}

std::vector<CopyChunk> tensor_box_chunks(const TensorBox& b) {
  if (b.rank < 1 || b.rank > 5)
    throw Error("tensor box: rank " + std::to_string(b.rank) + " is not 1..5");
  const uint64_t row_bytes = uint64_t{b.box[0]} * b.elem_bytes;
  if (row_bytes == 0 || row_bytes % 16)
    throw Error("tensor box: " + std::to_string(row_bytes) +
                " bytes per row is not a positive multiple of 16");
  uint64_t rows = 1;
  for (unsigned i = 1; i < b.rank; ++i) rows *= b.box[i];
  std::vector<CopyChunk> chunks;
  for (uint64_t row = 0; row < rows; ++row) {
    int64_t offset = 0;
    bool row_inside = true;
    uint64_t rest = row;
    for (unsigned i = 1; i < b.rank; ++i) {
      const int64_t coord = b.coords[i] + static_cast<int64_t>(rest % b.box[i]);
      rest /= b.box[i];
      row_inside &= coord >= 0 && static_cast<uint64_t>(coord) < b.dims[i];
      offset += coord * static_cast<int64_t>(b.strides[i - 1]);
    }
    for (uint64_t at = 0; at < row_bytes; at += 16) {
      const int64_t first =
          b.coords[0] * static_cast<int64_t>(b.elem_bytes) + static_cast<int64_t>(at);
      const int64_t end = static_cast<int64_t>(b.dims[0] * b.elem_bytes);
      unsigned valid = 0;
      if (row_inside && first >= 0 && first < end)
        valid = static_cast<unsigned>(std::min<int64_t>(16, end - first));
      chunks.push_back({b.base + static_cast<uint64_t>(offset + first), valid});
    }
  }
  return chunks;
}

std::vector<CopyChunk> bulk_chunks(uint64_t global, uint64_t bytes) {
  if (bytes == 0 || bytes % 16)
    throw Error("bulk copy: " + std::to_string(bytes) + " bytes is not a positive multiple of 16");
  std::vector<CopyChunk> chunks;
  for (uint64_t at = 0; at < bytes; at += 16) chunks.push_back({global + at, 16});
  return chunks;
}

std::vector<CopyChunk> run_chunks(std::span<const GlobalRun> runs) {
  std::vector<CopyChunk> chunks;
  for (const GlobalRun& run : runs) {
    if (run.address % 16)
      throw Error("copy run at " + std::to_string(run.address) +
                  " does not start on a 16-byte boundary");
    for (uint64_t at = 0; at < run.bytes; at += 16)
      chunks.push_back(
          {run.address + at, static_cast<unsigned>(std::min<uint64_t>(16, run.bytes - at))});
  }
  return chunks;
}

}  // namespace smemlab::bank
