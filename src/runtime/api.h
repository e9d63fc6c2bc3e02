// The driver entry points libcuda.so.1 hands out through cuGetProcAddress:
// name, the CUDA version that introduced that signature, and the function.
#pragma once

namespace smemlab::runtime {

struct EntryPoint {
  const char* name;
  int version;
  void* fn;
};

// The newest signature of `name` at or below `version` (as cudart asks:
// "cuMemAlloc", 3020), or null when smemlab does not implement it.
const EntryPoint* find_entry(const char* name, int version);

// Fills the slots of the symbols exported by name (named_exports.cc) with
// the entry points find_entry gives for their names and versions; at load.
void resolve_named_exports();

// The primary context's last release destroys it: the context-local storage
// cudart keeps in it is destructed then (exports.cc).
void destroy_context_storage(void* context);

}  // namespace smemlab::runtime
