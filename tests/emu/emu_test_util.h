// Helpers for emulator tests: load a checked-in PTX file, find a kernel by
// its unmangled name.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "emu/launch.h"

namespace smemlab::emu::test {

inline std::string ptx_path(const std::string& name) {
  return std::string(SMEMLAB_EMU_PTX_DIR) + "/" + name;
}

inline std::string find_kernel(const Module& m, const std::string& part) {
  for (const auto& k : m.kernel_names())
    if (k.find(part) != std::string::npos) return k;
  ADD_FAILURE() << "no kernel containing " << part;
  return "";
}

template <class V>
uint64_t upload(Device& d, const std::vector<V>& v) {
  uint64_t p = d.malloc(v.size() * sizeof(V));
  d.copy_to(p, v.data(), v.size() * sizeof(V));
  return p;
}

template <class V>
std::vector<V> download(const Device& d, uint64_t p, size_t n) {
  std::vector<V> v(n);
  d.copy_from(v.data(), p, n * sizeof(V));
  return v;
}

}  // namespace smemlab::emu::test
