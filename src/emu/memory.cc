#include "emu/memory.h"

#include <algorithm>
#include <cstring>
#include <iterator>

namespace smemlab::emu {

uint64_t GlobalMemory::allocate(uint64_t bytes, std::string name) {
  auto a = std::make_unique<Allocation>();
  a->base = next_;
  a->size = bytes;
  a->name = std::move(name);
  a->owned = std::make_unique<uint8_t[]>(std::max<uint64_t>(bytes, 1));
  a->data = a->owned.get();
  std::memset(a->data, 0, std::max<uint64_t>(bytes, 1));
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
  if (!a || addr - a->base + size > a->size) return nullptr;
  return a->data + (addr - a->base);
}

uint64_t GlobalMemory::adopt(void* host, uint64_t bytes, std::string name) {
  uint64_t base = reinterpret_cast<uint64_t>(host);
  auto at = std::upper_bound(
      allocs_.begin(), allocs_.end(), base,
      [](uint64_t x, const std::unique_ptr<Allocation>& a) { return x < a->base; });
  if (at != allocs_.begin() && (*std::prev(at))->base + (*std::prev(at))->size > base) return 0;
  if (at != allocs_.end() && base + bytes > (*at)->base) return 0;
  auto a = std::make_unique<Allocation>();
  a->base = base;
  a->size = bytes;
  a->name = std::move(name);
  a->data = static_cast<uint8_t*>(host);
  allocs_.insert(at, std::move(a));
  return base;
}

bool GlobalMemory::free(uint64_t addr) {
  for (auto it = allocs_.begin(); it != allocs_.end(); ++it) {
    if ((*it)->base == addr) {
      allocs_.erase(it);
      return true;
    }
  }
  return false;
}

}  // namespace smemlab::emu
