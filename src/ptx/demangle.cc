#include "ptx/demangle.h"

#include <cxxabi.h>

#include <cstdlib>

namespace smemlab::ptx {

std::string demangle(const std::string& mangled) {
  int status = 0;
  char* d = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !d) return mangled;
  std::string s(d);
  std::free(d);
  return s;
}

}  // namespace smemlab::ptx
