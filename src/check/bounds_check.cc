#include "check/bounds_check.h"

namespace smemlab::check::detail {

bool BoundsCheck::shared(const emu::MemAccess& a, uint32_t thread, uint64_t addr) {
  if (in_shared_bounds(addr, a.width)) return true;
  out_.report(FindingKind::OutOfBounds, Severity::Error,
              fmt::format("shared {} of {} bytes at offset {} is outside every shared variable{}",
                          role(a.op), a.width, addr, nearest(addr)),
              a.instr, thread, nullptr, 0, role(a.op));
  return false;
}

std::string BoundsCheck::nearest(uint64_t addr) const {
  const MemoryLayout& L = s_.layout;
  for (const SharedVar& v : L.shared)
    if (addr >= v.offset && addr < uint64_t{v.offset} + v.size + 64)
      return fmt::format(" (byte {} past the start of '{}', which has {} bytes)", addr - v.offset,
                         v.name, v.size);
  if (addr >= L.dynamic_offset)
    return fmt::format(" (byte {} of the dynamic window, which has {} bytes at launch)",
                       addr - L.dynamic_offset, s_.kernel.dynamic_shared);
  return "";
}

void BoundsCheck::local(const emu::MemAccess& a, uint32_t thread, uint64_t addr) {
  if (addr + a.width > s_.layout.frame_bytes)
    out_.report(FindingKind::OutOfBounds, Severity::Error,
                fmt::format("local {} of {} bytes at frame offset {} is outside the thread's "
                            "{}-byte frame",
                            role(a.op), a.width, addr, s_.layout.frame_bytes),
                a.instr, thread, nullptr, 0, role(a.op));
}

void BoundsCheck::misaligned(const emu::MemAccess& a, uint32_t thread, uint64_t addr) {
  out_.report(FindingKind::Misaligned, Severity::Error,
              fmt::format("{} {} of {} bytes at address {:#x} is not {}-byte aligned",
                          emu::space_name(a.space), role(a.op), a.width, addr, a.width),
              a.instr, thread, nullptr, 0, role(a.op));
}

}  // namespace smemlab::check::detail
