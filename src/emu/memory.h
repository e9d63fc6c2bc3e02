// Emulated device memory. Global memory is a set of allocations with exact
// bounds: an address outside all of them translates to nullptr (reported as
// an error by the interpreter, never a host crash). Generic addresses of the
// other spaces live in fixed windows so `cvta` is plain arithmetic.
#pragma once

#include <cstdint>
#include <memory>
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

// Emulated global memory is host memory: one allocation (a buffer, a
// .global variable) holds at most kMaxAllocationBytes, all together at most
// kMaxGlobalBytes. allocate() throws std::length_error past either.
constexpr uint64_t kMaxAllocationBytes = 1ull << 30;
constexpr uint64_t kMaxGlobalBytes = 4ull << 30;

class GlobalMemory {
 public:
  struct Allocation {
    uint64_t base = 0;
    uint64_t size = 0;
    std::string name;
    std::unique_ptr<uint8_t[]> data;
  };

  // Zero-filled, 256-byte aligned, with an unmapped gap after each allocation.
  uint64_t allocate(uint64_t bytes, std::string name = "");
  // Host pointer for [addr, addr+size) inside one allocation, or nullptr.
  uint8_t* translate(uint64_t addr, uint64_t size) const;
  const Allocation* find(uint64_t addr) const;
  bool free(uint64_t addr);
  const std::vector<std::unique_ptr<Allocation>>& allocations() const { return allocs_; }

 private:
  std::vector<std::unique_ptr<Allocation>> allocs_;  // sorted by base
  uint64_t next_ = kGlobalBase;
  uint64_t total_ = 0;  // bytes allocated and not freed
};

}  // namespace smemlab::emu
