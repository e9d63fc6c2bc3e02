#include "fix/layout.h"

#include <fmt/format.h>

namespace smemlab::fix {

uint64_t Layout::remap(uint64_t offset) const {
  const uint64_t row_bytes = uint64_t{width} * elem;
  uint64_t row = offset / row_bytes, rest = offset % row_bytes;
  if (change == Change::Pad) return row * (row_bytes + uint64_t{pad} * elem) + rest;
  uint64_t col = rest / elem, within = rest % elem;
  uint64_t units = width / unit;
  uint64_t r = rows ? row % rows : row;
  uint64_t u = (col / unit) ^ (r % units);
  return row * row_bytes + (u * unit + col % unit) * elem + within;
}

uint64_t Layout::bytes(uint64_t old_bytes) const {
  if (change == Change::Swizzle) return old_bytes;
  const uint64_t row_bytes = uint64_t{width} * elem;
  uint64_t full_rows = old_bytes / row_bytes, rest = old_bytes % row_bytes;
  // A partial last row keeps its length after its pad-shifted start.
  return full_rows * (row_bytes + uint64_t{pad} * elem) + rest;
}

std::string Layout::describe() const {
  if (change == Change::Pad)
    return fmt::format("pad rows by {} ({} -> {} elements)", pad, width, width + pad);
  if (unit == 1) return fmt::format("xor-swizzle columns by row ({} wide)", width);
  return fmt::format("xor-swizzle {}-element units by row ({} wide)", unit, width);
}

}  // namespace smemlab::fix
