#include "emu/memory.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace smemlab::emu {

uint64_t GlobalMemory::allocate(uint64_t bytes, std::string name) {
  if (bytes > kMaxAllocationBytes)
    throw std::length_error(
        fmt::format("{}{}{} bytes: more than the emulator's {}-byte limit for one allocation", name,
                    name.empty() ? "" : ": ", bytes, kMaxAllocationBytes));
  if (total_ + bytes > kMaxGlobalBytes)
    throw std::length_error(
        fmt::format("{}{}{} bytes: global memory would exceed the emulator's {}-byte limit", name,
                    name.empty() ? "" : ": ", bytes, kMaxGlobalBytes));
  total_ += bytes;
  auto a = std::make_unique<Allocation>();
  a->base = next_;
  a->size = bytes;
  a->name = std::move(name);
  a->data = std::make_unique<uint8_t[]>(std::max<uint64_t>(bytes, 1));
  std::memset(a->data.get(), 0, std::max<uint64_t>(bytes, 1));
  next_ += (bytes + 4096 + 255) & ~uint64_t{255};
  uint64_t base = a->base;
  allocs_.push_back(std::move(a));
  return base;
}

const GlobalMemory::Allocation* GlobalMemory::find(uint64_t addr) const {
  auto it = std::upper_bound(
      allocs_.begin(), allocs_.end(), addr,
      [](uint64_t x, const std::unique_ptr<Allocation>& a) { return x < a->base; });
  if (it == allocs_.begin()) return nullptr;
  const Allocation* a = (--it)->get();
  return addr - a->base < a->size ? a : nullptr;
}

uint8_t* GlobalMemory::translate(uint64_t addr, uint64_t size) const {
  const Allocation* a = find(addr);
  if (!a || size > a->size - (addr - a->base)) return nullptr;
  return a->data.get() + (addr - a->base);
}

bool GlobalMemory::free(uint64_t addr) {
  for (auto it = allocs_.begin(); it != allocs_.end(); ++it) {
    if ((*it)->base == addr) {
      total_ -= (*it)->size;
      allocs_.erase(it);
      return true;
    }
  }
  return false;
}

}  // namespace smemlab::emu
