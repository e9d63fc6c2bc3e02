// Emulated device memory. Global memory is a set of allocations with exact
// bounds: an address outside all of them translates to nullptr (reported as
// an error by the interpreter, never a host crash). Generic addresses of the
// other spaces live in fixed windows so `cvta` is plain arithmetic.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace smemlab::emu {

// Generic-address windows (each 4 GiB): addr = window + offset in that space.
constexpr uint64_t kWindowSize = 1ull << 32;
constexpr uint64_t kSharedWindow = 1ull << 44;
constexpr uint64_t kLocalWindow = 2ull << 44;
constexpr uint64_t kConstWindow = 3ull << 44;
constexpr uint64_t kParamWindow = 4ull << 44;
constexpr uint64_t kGlobalBase = 1ull << 47;  // first global allocation
constexpr uint64_t kHeapBase = 1ull << 48;    // first device-heap allocation

struct DeviceAllocation {
  uint64_t base = 0;
  uint64_t size = 0;
  std::string name;
  uint8_t* data = nullptr;  // the bytes: `owned`, or the caller's (GlobalMemory::adopt)
  std::unique_ptr<uint8_t[]> owned;
};

// The device heap behind malloc/free/new/delete in kernels, sized like
// cudaLimitMallocHeapSize (8 MiB by default): malloc returns 0 when the live
// bytes would exceed it. Every allocation has exact bounds at a 16-byte
// aligned address with an unmapped gap after it, so an overrun is an
// out-of-bounds error naming "malloc(N)". Blocks call it from several host
// threads, hence the lock. A freed allocation is unmapped at once but its
// storage lives until release_freed() (called when a launch ends), so an
// access racing with free never touches released host memory.
class DeviceHeap {
 public:
  uint64_t allocate(uint64_t bytes);  // 0 when the heap is exhausted
  bool free(uint64_t addr);           // false: not a live heap allocation
  const DeviceAllocation* find(uint64_t addr) const;
  // For error messages: the allocation (live or freed this launch) with the
  // highest base <= addr, or nullptr; *freed says which.
  const DeviceAllocation* below(uint64_t addr, bool* freed) const;
  void set_limit(uint64_t bytes) { limit_ = bytes; }
  uint64_t limit() const { return limit_; }
  void release_freed();
  uint64_t live_bytes() const;
  // A copy of a runtime string (cudaGetErrorString's) the kernels may read,
  // made once per text and kept for the program's life; it is not the
  // program's (not counted against the limit, never free()d by it).
  uint64_t intern(const char* text);

 private:
  mutable std::mutex mu_;
  std::map<uint64_t, std::unique_ptr<DeviceAllocation>> live_;
  std::map<const char*, uint64_t> interned_;  // text -> its address (in live_)
  std::vector<std::unique_ptr<DeviceAllocation>> freed_;
  uint64_t next_ = kHeapBase, used_ = 0, limit_ = 8u << 20;
};

// Emulated global memory is host memory: one allocation (a buffer, a
// .global variable) holds at most kMaxAllocationBytes, all together at most
// kMaxGlobalBytes. allocate() throws std::length_error past either.
constexpr uint64_t kMaxAllocationBytes = 1ull << 30;
constexpr uint64_t kMaxGlobalBytes = 4ull << 30;

// Whether a generic address is in no other space's window: global (the
// emulator's own allocations sit above kGlobalBase; adopted host memory
// anywhere outside the windows).
constexpr bool is_global_address(uint64_t addr) {
  for (uint64_t w : {kSharedWindow, kLocalWindow, kConstWindow, kParamWindow})
    if (addr - w < kWindowSize) return false;
  return true;
}

class GlobalMemory {
 public:
  using Allocation = DeviceAllocation;

  // Zero-filled, 256-byte aligned, with an unmapped gap after each allocation.
  uint64_t allocate(uint64_t bytes, std::string name = "");
  // Registers `bytes` of host memory the caller owns and keeps alive until
  // free(): the device address is the host pointer (the CUDA runtime's
  // cudaMalloc, so that managed and pinned memory the host touches directly
  // is the memory kernels see). Returns 0 if it overlaps a known allocation.
  uint64_t adopt(void* host, uint64_t bytes, std::string name = "");
  // Host pointer for [addr, addr+size) inside one allocation, or nullptr.
  uint8_t* translate(uint64_t addr, uint64_t size) const;
  const Allocation* find(uint64_t addr) const;
  bool free(uint64_t addr);
  const std::vector<std::unique_ptr<Allocation>>& allocations() const { return allocs_; }
  // For error messages: the freed allocation (of the last kFreedKept) that
  // held addr, or null: an access there is a use after free.
  struct Freed {
    uint64_t base = 0, size = 0;
    std::string name;
  };
  const Freed* freed_at(uint64_t addr) const;
  // Address ranges reserved for mapping later (cuMemAddressReserve): an
  // address there that no allocation holds is unmapped, not freed memory,
  // and fault messages say so.
  struct Range {
    uint64_t base = 0, size = 0;
  };
  void reserve(uint64_t base, uint64_t size) { reserved_.push_back({base, size}); }
  void unreserve(uint64_t base);
  const Range* reserved_at(uint64_t addr) const;
  static constexpr size_t kFreedKept = 4096;
  DeviceHeap& heap() { return heap_; }
  const DeviceHeap& heap() const { return heap_; }

 private:
  DeviceHeap heap_;
  std::vector<std::unique_ptr<Allocation>> allocs_;  // sorted by base
  std::vector<Freed> freed_;                         // oldest first; at most kFreedKept
  std::vector<Range> reserved_;
  uint64_t next_ = kGlobalBase;
  uint64_t total_ = 0;  // bytes allocated and not freed
};

}  // namespace smemlab::emu
