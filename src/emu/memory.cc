#include "emu/memory.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <iterator>
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
  a->owned = std::make_unique<uint8_t[]>(std::max<uint64_t>(bytes, 1));
  a->data = a->owned.get();
  std::memset(a->data, 0, std::max<uint64_t>(bytes, 1));
  next_ += (bytes + 4096 + 255) & ~uint64_t{255};
  uint64_t base = a->base;
  allocs_.push_back(std::move(a));
  return base;
}

const GlobalMemory::Allocation* GlobalMemory::find(uint64_t addr) const {
  if (addr >= kHeapBase) return heap_.find(addr);
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
      total_ -= (*it)->size;
      if (freed_.size() == kFreedKept) freed_.erase(freed_.begin());
      freed_.push_back({(*it)->base, (*it)->size, (*it)->name});
      allocs_.erase(it);
      return true;
    }
  }
  return false;
}

const GlobalMemory::Freed* GlobalMemory::freed_at(uint64_t addr) const {
  // Newest first: an address freed, reused and freed again names the last.
  for (auto it = freed_.rbegin(); it != freed_.rend(); ++it)
    if (addr - it->base < std::max<uint64_t>(it->size, 1)) {
      for (const auto& a : allocs_)  // live again (reallocated there): not this one
        if (addr - a->base < std::max<uint64_t>(a->size, 1)) return nullptr;
      return &*it;
    }
  return nullptr;
}

void GlobalMemory::unreserve(uint64_t base) {
  std::erase_if(reserved_, [&](const Range& r) { return r.base == base; });
}

const GlobalMemory::Range* GlobalMemory::reserved_at(uint64_t addr) const {
  for (const Range& r : reserved_)
    if (addr - r.base < r.size) return &r;
  return nullptr;
}

uint64_t DeviceHeap::allocate(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t rounded = (std::max<uint64_t>(bytes, 1) + 15) & ~uint64_t{15};
  if (bytes > limit_ || used_ + rounded > limit_) return 0;
  auto a = std::make_unique<DeviceAllocation>();
  a->base = next_;
  a->size = bytes;
  a->name = fmt::format("malloc({})", bytes);
  a->owned = std::make_unique<uint8_t[]>(rounded);
  a->data = a->owned.get();
  std::memset(a->data, 0, rounded);
  next_ += rounded + 4096;
  used_ += rounded;
  uint64_t base = a->base;
  live_[base] = std::move(a);
  return base;
}

uint64_t DeviceHeap::intern(const char* text) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = interned_.find(text); it != interned_.end()) return it->second;
  uint64_t bytes = std::strlen(text) + 1, rounded = (bytes + 15) & ~uint64_t{15};
  auto a = std::make_unique<DeviceAllocation>();
  a->base = next_;
  a->size = bytes;
  a->name = "a device runtime string";
  a->owned = std::make_unique<uint8_t[]>(rounded);
  a->data = a->owned.get();
  std::memcpy(a->data, text, bytes);
  const uint64_t base = a->base;
  next_ += rounded + 4096;
  live_[base] = std::move(a);
  interned_[text] = base;
  return base;
}

bool DeviceHeap::free(uint64_t addr) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.find(addr);
  if (it == live_.end()) return false;
  for (const auto& [text, at] : interned_)
    if (at == addr) return false;  // the runtime's string, not the program's to free
  used_ -= (std::max<uint64_t>(it->second->size, 1) + 15) & ~uint64_t{15};
  freed_.push_back(std::move(it->second));
  live_.erase(it);
  return true;
}

const DeviceAllocation* DeviceHeap::find(uint64_t addr) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.upper_bound(addr);
  if (it == live_.begin()) return nullptr;
  const DeviceAllocation* a = (--it)->second.get();
  return addr - a->base < a->size ? a : nullptr;
}

const DeviceAllocation* DeviceHeap::below(uint64_t addr, bool* freed) const {
  std::lock_guard<std::mutex> lock(mu_);
  const DeviceAllocation* best = nullptr;
  auto it = live_.upper_bound(addr);
  if (it != live_.begin()) best = std::prev(it)->second.get();
  *freed = false;
  for (const auto& a : freed_) {
    if (a->base <= addr && (!best || a->base > best->base)) {
      best = a.get();
      *freed = true;
    }
  }
  return best;
}

void DeviceHeap::release_freed() {
  std::lock_guard<std::mutex> lock(mu_);
  freed_.clear();
}

uint64_t DeviceHeap::live_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return used_;
}

}  // namespace smemlab::emu
