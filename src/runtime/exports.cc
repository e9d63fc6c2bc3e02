// What libcuda.so.1 exports: the entry points cudart finds with dlsym
// (cuGetProcAddress, cuGetExportTable, cuInit, cuDriverGetVersion), the
// private tables cudart asks cuGetExportTable for, and a named stub for
// every entry point smemlab does not implement (it says so once and
// returns CUDA_ERROR_NOT_SUPPORTED: never a silent success).
//
// The private tables are undocumented; their layouts below are what
// cudart 13 was seen to call (a logging driver, docs/runtime.md) and what
// ZLUDA and similar projects describe: slot 0 holds the table's size.
#include <cuda.h>
#include <fmt/format.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <utility>

#include "runtime/api.h"
#include "runtime/driver.h"
#include "runtime/guard.h"
#include "runtime/integrity.h"

#include <pthread.h>
#include <unistd.h>

#include <ctime>

namespace smemlab::runtime {

CUresult get_primary_context(CUcontext* c, CUdevice dev);

namespace {

// ---- stubs that name themselves -------------------------------------------

constexpr int kStubs = 1024;
// Never destroyed, as the tables below: a stub may be called from cudart's
// exit handler.
std::array<std::string, kStubs>& g_stub_names = *new std::array<std::string, kStubs>();
int g_stub_count = 0;

template <int N>
CUresult named_stub_body() {
  Driver& d = Driver::get();
  std::lock_guard<DriverMutex> lock(d.mu);
  d.not_supported(g_stub_names[N].c_str());
  return CUDA_ERROR_NOT_SUPPORTED;
}
// Behind the catch boundary (guard.h), as every other entry point.
template <int N>
CUresult named_stub() {
  return Guarded<"a not implemented entry point", named_stub_body<N>>::call();
}
template <int... I>
void* stub_at(int i, std::integer_sequence<int, I...>) {
  static void* const table[] = {reinterpret_cast<void*>(&named_stub<I>)...};
  return table[i];
}
// A stub for `name` (the same one on every request), or null when the pool is used up.
void* stub_for(const std::string& name) {
  static std::map<std::string, int>& slots = *new std::map<std::string, int>();
  auto it = slots.find(name);
  if (it == slots.end()) {
    if (g_stub_count == kStubs) return nullptr;
    g_stub_names[g_stub_count] = name;
    it = slots.emplace(name, g_stub_count++).first;
  }
  return stub_at(it->second, std::make_integer_sequence<int, kStubs>{});
}

// ---- cudart's private tables -----------------------------------------------

// A table slot: F behind the catch boundary (guard.h).
#define G(name, f) reinterpret_cast<void*>(&Guarded<name, f>::call)

bool debug() {
  static bool on = std::getenv("SMEMLAB_DEBUG_TABLES") != nullptr;
  return on;
}

CUresult load_wrapped_fatbin(CUmodule* m, const void* image) {
  Driver& d = Driver::get();
  std::lock_guard<DriverMutex> lock(d.mu);
  if (!m || !image) return CUDA_ERROR_INVALID_VALUE;
  Module* mod = nullptr;
  CUresult r = d.load_fatbin(image, &mod);
  if (r == CUDA_SUCCESS) *m = reinterpret_cast<CUmodule>(mod);
  return r;
}
CUresult get_module_from_cubin(CUmodule* m, const void* wrapper) {
  return load_wrapped_fatbin(m, wrapper);
}
CUresult get_module_from_cubin_ext1(CUmodule* m, const void* wrapper, void*, void*, unsigned) {
  return load_wrapped_fatbin(m, wrapper);
}
void cudart_fn7(size_t x) {
  if (debug()) std::fprintf(stderr, "fn7 %zu\n", x);
}
CUresult get_module_from_cubin_ext2(const void* fatbin, CUmodule* m, void*, void*, unsigned) {
  return load_wrapped_fatbin(m, fatbin);
}
CUresult load_compilers() { return CUDA_SUCCESS; }

uint32_t g_hook_buffer1[1024], g_hook_buffer2[14];
void hook_buffer1(void** p, size_t* n) {
  *p = g_hook_buffer1;
  *n = sizeof g_hook_buffer1 / sizeof *g_hook_buffer1;
}
void hook_buffer2(void** p, size_t* n) {
  *p = g_hook_buffer2;
  *n = sizeof g_hook_buffer2 / sizeof *g_hook_buffer2;
}

// Context-local storage: cudart keeps its per-context state here. One
// context, so one map; destructors run at exit as on context destruction.
struct Stored {
  void* value;
  void (*dtor)(CUcontext, void*, void*);
};
std::map<void*, Stored>& storage() {
  static auto* m = new std::map<void*, Stored>();
  return *m;
}
CUresult storage_put(CUcontext, void* key, void* value, void (*dtor)(CUcontext, void*, void*)) {
  if (debug()) std::fprintf(stderr, "put %p %p %p\n", key, value, reinterpret_cast<void*>(dtor));
  Driver& d = Driver::get();
  std::lock_guard<DriverMutex> lock(d.mu);
  storage()[key] = {value, dtor};
  return CUDA_SUCCESS;
}
CUresult storage_delete(CUcontext, void* key) {
  if (debug()) std::fprintf(stderr, "delete %p\n", key);
  Driver& d = Driver::get();
  std::lock_guard<DriverMutex> lock(d.mu);
  return storage().erase(key) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}
CUresult storage_get(void** value, CUcontext, void* key) {
  if (debug()) std::fprintf(stderr, "get %p\n", key);
  Driver& d = Driver::get();
  std::lock_guard<DriverMutex> lock(d.mu);
  auto it = storage().find(key);
  if (it == storage().end()) return CUDA_ERROR_INVALID_HANDLE;
  *value = it->second.value;
  return CUDA_SUCCESS;
}

// Context checks: cudart asks whether a context is usable.
CUresult context_check(CUcontext, uint32_t* result, const void**) {
  if (result) *result = 0;
  return CUDA_SUCCESS;
}
uint32_t context_check_count() { return 0; }
// Extended device queries: one flag cudart reads at device setup (0: none).
CUresult device_flag(unsigned char* result, CUdevice) {
  if (result) *result = 0;
  return CUDA_SUCCESS;
}

}  // namespace

void destroy_context_storage(void* context) {
  std::map<void*, Stored> entries;
  {
    Driver& d = Driver::get();
    std::lock_guard<DriverMutex> lock(d.mu);
    entries.swap(storage());
  }
  for (auto& [key, e] : entries)
    if (e.dtor) e.dtor(static_cast<CUcontext>(context), key, e.value);
}

namespace {

std::vector<void*>& integrity_slots();
std::vector<void*>& cudart_slots();

CUresult integrity_check(uint32_t version, uint64_t unix_seconds, uint64_t result[2]) {
  if (!result) return CUDA_ERROR_INVALID_VALUE;
  Driver& d = Driver::get();
  std::lock_guard<DriverMutex> lock(d.mu);
  IntegrityInput in{};
  in.driver_version = CUDA_VERSION;
  in.version = version;
  in.pid = static_cast<uint32_t>(getpid());
  in.tid = static_cast<uint32_t>(pthread_self());
  in.cudart_table = cudart_slots().data();
  in.integrity_table = integrity_slots().data();
  in.function = integrity_slots()[1];
  in.unix_seconds = unix_seconds;
  IntegrityDevice dev{};
  std::memcpy(dev.uuid, "smemlab-emulator", 16);
  int v = 0;
  device_attribute(d.spec, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, &v), dev.pci_domain = v;
  device_attribute(d.spec, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, &v), dev.pci_bus = v;
  device_attribute(d.spec, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, &v), dev.pci_device = v;
  integrity_hash(in, &dev, 1, result);
  return CUDA_SUCCESS;
}

struct Table {
  const char* name;
  unsigned char uuid[16];
  std::vector<void*> slots;
};

// Never destroyed: cudart keeps pointers into these tables and its exit
// handler, which runs after our static destructors would, calls through them
// (a destroyed vector's freed slots made that call land on whatever reused
// the memory: SIGSEGV after main returned).
std::vector<Table>& tables() {
  static std::vector<Table>& t = *new std::vector<Table>([] {
    auto fill = [](Table tb, size_t n, std::map<size_t, void*> known) {
      tb.slots.resize(n);
      tb.slots[0] = reinterpret_cast<void*>(n * sizeof(void*));
      for (size_t i = 1; i < n; ++i)
        tb.slots[i] = known.count(i) ? known[i] : stub_for(fmt::format("{} slot {}", tb.name, i));
      return tb;
    };
    std::vector<Table> v;
    v.push_back(fill({"cudart interface",
                      {0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39,
                       0x12, 0xfd, 0x9d, 0xf9},
                      {}},
                     13,
                     {{1, G("cudart interface slot 1", get_module_from_cubin)},
                      {2, G("cudart interface slot 2", get_primary_context)},
                      {6, G("cudart interface slot 6", get_module_from_cubin_ext1)},
                      {7, G("cudart interface slot 7", cudart_fn7)},
                      {8, G("cudart interface slot 8", get_module_from_cubin_ext2)},
                      {12, G("cudart interface slot 12", load_compilers)}}));
    v.push_back(fill({"tools runtime callback hooks",
                      {0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2, 0x08, 0x00,
                       0x20, 0x0c, 0x0a, 0x66},
                      {}},
                     7,
                     {{2, G("tools runtime callback hooks slot 2", hook_buffer1)},
                      {6, G("tools runtime callback hooks slot 6", hook_buffer2)}}));
    v.push_back(fill({"tools thread-local storage",
                      {0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47, 0x82, 0x98, 0xf6, 0xe7,
                       0x8a, 0x3a, 0xec, 0xdc},
                      {}},
                     4, {}));
    v.push_back(fill({"context checks",
                      {0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43, 0x92, 0xf6, 0xbb, 0xd5,
                       0x00, 0x6d, 0xfa, 0x7e},
                      {}},
                     4,
                     {{2, G("context checks slot 2", context_check)},
                      {3, G("context checks slot 3", context_check_count)}}));
    v.push_back(fill({"device extended",
                      {0xb1, 0x05, 0x41, 0xe1, 0xf7, 0xc7, 0xc7, 0x4a, 0x9f, 0x64, 0xf2, 0x23,
                       0xbe, 0x99, 0xf1, 0xe2},
                      {}},
                     26, {{13, G("device extended slot 13", device_flag)}}));
    v.push_back(fill({"context create bypass",
                      {0x0c, 0xa5, 0x0b, 0x8c, 0x10, 0x04, 0x92, 0x9a, 0x89, 0xa7, 0xd0, 0xdf,
                       0x10, 0xe7, 0x72, 0x86},
                      {}},
                     2, {}));
    v.push_back(fill({"heap access",
                      {0x19, 0x5b, 0xcb, 0xf4, 0xd6, 0x7d, 0x02, 0x4a, 0xac, 0xc5, 0x1d, 0x29,
                       0xce, 0xa6, 0x31, 0xae},
                      {}},
                     3, {}));
    v.push_back(fill({"integrity check",
                      {0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba, 0x12,
                       0x3c, 0x66, 0xe1, 0xf2},
                      {}},
                     3, {{1, G("integrity check slot 1", integrity_check)}}));
    // This one has no size slot: the functions start at slot 0.
    Table cls{"context-local storage",
              {0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8,
               0x95, 0x93},
              {G("context-local storage slot 0", storage_put), G("context-local storage slot 1", storage_delete),
               G("context-local storage slot 2", storage_get), stub_for("context-local storage slot 3")}};
    v.push_back(cls);
    return v;
  }());
  return t;
}

std::vector<void*>& cudart_slots() { return tables()[0].slots; }
std::vector<void*>& integrity_slots() {
  for (Table& t : tables())
    if (std::strcmp(t.name, "integrity check") == 0) return t.slots;
  return tables()[0].slots;
}

// cudart probes this one to learn whether it runs on a special driver.
constexpr unsigned char kProbe[16] = {0xf8, 0xcf, 0xf9, 0x51, 0x21, 0x46, 0x8b, 0x4e,
                                      0xb9, 0xe2, 0xfb, 0x46, 0x9e, 0x7c, 0x0d, 0xd9};

}  // namespace

CUresult get_primary_context(CUcontext* c, CUdevice dev) {
  using Fn = CUresult (*)(CUcontext*, CUdevice);
  return reinterpret_cast<Fn>(find_entry("cuDevicePrimaryCtxRetain", 13000)->fn)(c, dev);
}

}  // namespace smemlab::runtime

using namespace smemlab::runtime;

// cuda.h maps the name to the _v2 signature; libcuda exports both.
#undef cuGetProcAddress

extern "C" {
__attribute__((visibility("default"))) CUresult cuGetExportTable(const void** table,
                                                                  const CUuuid* id);
__attribute__((visibility("default"))) CUresult cuGetProcAddress(const char* symbol, void** pfn,
                                                                  int version, cuuint64_t flags);
__attribute__((visibility("default"))) CUresult cuGetProcAddress_v2(
    const char* symbol, void** pfn, int version, cuuint64_t flags,
    CUdriverProcAddressQueryResult* status);
}  // extern "C"

namespace {

CUresult get_export_table(const void** table, const CUuuid* id) {
  if (!table || !id) return CUDA_ERROR_INVALID_VALUE;
  for (const Table& t : tables())
    if (std::memcmp(t.uuid, id->bytes, 16) == 0) {
      *table = t.slots.data();
      return CUDA_SUCCESS;
    }
  *table = nullptr;
  if (std::memcmp(kProbe, id->bytes, 16) != 0) {
    Driver& d = Driver::get();
    std::string hex;
    for (int i = 0; i < 16; ++i) hex += fmt::format("{:02x}", static_cast<unsigned char>(id->bytes[i]));
    std::lock_guard<DriverMutex> lock(d.mu);
    d.not_supported(("cuGetExportTable(" + hex + ")").c_str(), "CUDA_ERROR_NOT_FOUND");
  }
  return CUDA_ERROR_NOT_FOUND;
}
CUresult get_proc_address(const char* symbol, void** pfn, int version, cuuint64_t,
                          CUdriverProcAddressQueryResult* status) {
  if (!pfn) return CUDA_ERROR_INVALID_VALUE;
  auto found = [&](void* f) {
    *pfn = f;
    if (status) *status = CU_GET_PROC_ADDRESS_SUCCESS;
    return CUDA_SUCCESS;
  };
  if (!symbol || !*symbol) {
    *pfn = nullptr;
    if (status) *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return CUDA_ERROR_NOT_FOUND;
  }
  std::string name = symbol;
  if (name == "cuGetProcAddress")
    return found(version >= 12000 ? reinterpret_cast<void*>(cuGetProcAddress_v2)
                                  : reinterpret_cast<void*>(cuGetProcAddress));
  if (name == "cuGetExportTable") return found(reinterpret_cast<void*>(cuGetExportTable));
  if (const EntryPoint* e = find_entry(symbol, version)) return found(e->fn);
  void* stub = stub_for(fmt::format("{} (version {})", name, version));
  if (!stub) {
    *pfn = nullptr;
    if (status) *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return CUDA_ERROR_NOT_FOUND;
  }
  return found(stub);
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) CUresult cuGetExportTable(const void** table,
                                                                  const CUuuid* id) {
  return Guarded<"cuGetExportTable", get_export_table>::call(table, id);
}

__attribute__((visibility("default"))) CUresult cuGetProcAddress(const char* symbol, void** pfn,
                                                                  int version, cuuint64_t flags) {
  return cuGetProcAddress_v2(symbol, pfn, version, flags, nullptr);
}

__attribute__((visibility("default"))) CUresult cuGetProcAddress_v2(
    const char* symbol, void** pfn, int version, cuuint64_t flags,
    CUdriverProcAddressQueryResult* status) {
  return Guarded<"cuGetProcAddress", get_proc_address>::call(symbol, pfn, version, flags, status);
}

__attribute__((visibility("default"))) CUresult cuInit(unsigned flags) {
  using Fn = CUresult (*)(unsigned);
  return reinterpret_cast<Fn>(find_entry("cuInit", 2000)->fn)(flags);
}

__attribute__((visibility("default"))) CUresult cuDriverGetVersion(int* v) {
  using Fn = CUresult (*)(int*);
  return reinterpret_cast<Fn>(find_entry("cuDriverGetVersion", 2020)->fn)(v);
}

}  // extern "C"

namespace {
// Loaded: tell the CLI the program reached the driver. At exit: leaks
// (check) and the summary.
void load() {
  Driver::get();
  resolve_named_exports();
}
void unload() { Driver::get().finish(); }
// Behind the catch boundary too: an exception here would end the program
// at load or at exit.
__attribute__((constructor)) void on_load() { Guarded<"loading libcuda.so.1", load>::call(); }
__attribute__((destructor)) void on_exit() { Guarded<"unloading libcuda.so.1", unload>::call(); }
}  // namespace
