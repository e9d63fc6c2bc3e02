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
  struct Allocation {
    uint64_t base = 0;
    uint64_t size = 0;
    std::string name;
    uint8_t* data = nullptr;  // the bytes: `owned`, or the caller's (adopt)
    std::unique_ptr<uint8_t[]> owned;
  };

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

 private:
  std::vector<std::unique_ptr<Allocation>> allocs_;  // sorted by base
  uint64_t next_ = kGlobalBase;
};

}  // namespace smemlab::emu
