// Shared by the fuzz harnesses: the libFuzzer entry point each one defines.
// A harness returns normally for any input the code under test rejects with
// its documented error type; anything else (another exception, a crash, a
// sanitizer report, a hang) is a finding. See docs/robustness.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace smemlab::fuzz {

inline std::string text_of(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

}  // namespace smemlab::fuzz
