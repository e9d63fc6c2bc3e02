// The driver API entry points over the emulator, and the name table
// cuGetProcAddress answers from. Each entry point takes the driver's lock;
// launches and the asynchronous calls (1-D copies and memsets, event
// records, host functions) are operations of the device queue
// (device_queue.h), which synchronization and queries wait for or look at.
// 2-D, 3-D and array *Async copies and memsets run as blocking ones.
#include "runtime/api.h"

#include <fmt/format.h>
#include <sys/mman.h>

#include <chrono>
#include <cstring>
#include <map>
#include <set>

#include "runtime/driver.h"
#include "runtime/graph.h"
#include "runtime/guard.h"
#include "runtime/mempool.h"
#include "runtime/static_libraries.h"
#include "runtime/tensor_map.h"
#include "runtime/vmm.h"

namespace smemlab::runtime {
namespace {

using Lock = std::lock_guard<DriverMutex>;
#define LOCKED               \
  Driver& d = Driver::get(); \
  Lock lock(d.mu);           \
  (void)d

int g_context_tag;  // the one (primary) context: its address is the handle
CUcontext the_context() { return reinterpret_cast<CUcontext>(&g_context_tag); }

// What cuStreamSetAttribute keeps for a stream. The emulator has no L2 and
// one scheduling order, so these change nothing it runs; they are kept
// (and checked as the driver checks them) so that a program reads back
// what it set.
struct StreamAttributes {
  CUaccessPolicyWindow window = {};
  CUsynchronizationPolicy sync_policy = CU_SYNC_POLICY_AUTO;
  CUlaunchMemSyncDomainMap domain_map = {0, 1};
  CUlaunchMemSyncDomain domain = CU_LAUNCH_MEM_SYNC_DOMAIN_DEFAULT;
};
struct Stream {
  unsigned flags = 0;
  int priority = 0;
  unsigned long long id = 0;
  StreamAttributes attributes = {};
};
unsigned long long g_stream_ids = 1;

Function* fn(CUfunction f) { return reinterpret_cast<Function*>(f); }

double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// ---- init, device ----------------------------------------------------------

CUresult init(unsigned) {
  LOCKED;
  if (!d.initialized) check_static_libraries(d);
  d.initialized = true;
  return CUDA_SUCCESS;
}
CUresult driver_version(int* v) {
  if (!v) return CUDA_ERROR_INVALID_VALUE;
  *v = CUDA_VERSION;
  return CUDA_SUCCESS;
}
CUresult device_get(CUdevice* dev, int ordinal) {
  if (!dev) return CUDA_ERROR_INVALID_VALUE;
  if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
  *dev = 0;
  return CUDA_SUCCESS;
}
CUresult device_count(int* n) {
  if (!n) return CUDA_ERROR_INVALID_VALUE;
  *n = 1;
  return CUDA_SUCCESS;
}
CUresult device_name(char* name, int len, CUdevice dev) {
  LOCKED;
  if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  std::string s = d.spec.name + " (smemlab emulator)";
  std::snprintf(name, static_cast<size_t>(len), "%s", s.c_str());
  return CUDA_SUCCESS;
}
CUresult device_total_mem(size_t* bytes, CUdevice dev) {
  LOCKED;
  if (!bytes) return CUDA_ERROR_INVALID_VALUE;
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  *bytes = d.spec.total_memory;
  return CUDA_SUCCESS;
}
CUresult device_attribute_(int* v, CUdevice_attribute a, CUdevice dev) {
  LOCKED;
  if (!v) return CUDA_ERROR_INVALID_VALUE;
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  int known;
  // An attribute the driver does not know is CUDA_ERROR_INVALID_VALUE.
  if (!device_attribute(d.spec, a, v) && !h100_attribute(a, &known))
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}
CUresult device_uuid(CUuuid* u, CUdevice dev) {
  if (!u) return CUDA_ERROR_INVALID_VALUE;
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  static const char kUuid[16] = {'s', 'm', 'e', 'm', 'l', 'a', 'b', '-',
                                 'e', 'm', 'u', 'l', 'a', 't', 'o', 'r'};
  std::memcpy(u->bytes, kUuid, 16);
  return CUDA_SUCCESS;
}
CUresult device_pci_bus_id(char* id, int len, CUdevice dev) {
  if (!id || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  std::snprintf(id, static_cast<size_t>(len), "0000:01:00.0");
  return CUDA_SUCCESS;
}
CUresult device_can_access_peer(int* can, CUdevice, CUdevice) {
  if (!can) return CUDA_ERROR_INVALID_VALUE;
  *can = 0;
  return CUDA_SUCCESS;
}
CUresult device_p2p_attribute(int* v, CUdevice_P2PAttribute, CUdevice, CUdevice) {
  if (!v) return CUDA_ERROR_INVALID_VALUE;
  *v = 0;
  return CUDA_SUCCESS;
}
bool tex_format(CUarray_format f, emu::texture::Format* out);
// 2^32 bytes of texels: the H100 answers 2^30 for one float channel (the
// only format measured; the rule for the others is that one's).
CUresult device_tex1d_max_width(size_t* w, CUarray_format format, unsigned channels, CUdevice) {
  emu::texture::Format f;
  if (!w || !tex_format(format, &f) || (channels != 1 && channels != 2 && channels != 4))
    return CUDA_ERROR_INVALID_VALUE;
  *w = (size_t{1} << 32) / (emu::texture::format_bytes(f) * channels);
  return CUDA_SUCCESS;
}

// ---- contexts: one device, one primary context -----------------------------

int g_primary_refs = 0;
CUresult primary_retain(CUcontext* c, CUdevice dev) {
  if (!c) return CUDA_ERROR_INVALID_VALUE;
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  *c = the_context();
  ++g_primary_refs;
  return CUDA_SUCCESS;
}
// The last release destroys the context's state, as the driver does; the
// memory stays (the emulated device is never reset).
CUresult primary_release(CUdevice dev) {
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  // cudaDeviceReset: the device's work ends first (and its output is printed).
  Driver::get().synchronize_all();
  if (g_primary_refs > 0 && --g_primary_refs == 0) destroy_context_storage(the_context());
  return CUDA_SUCCESS;
}
CUresult primary_set_flags(CUdevice dev, unsigned) { return primary_release(dev); }
CUresult primary_state(CUdevice dev, unsigned* flags, int* active) {
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  if (flags) *flags = 0;
  if (active) *active = 1;
  return CUDA_SUCCESS;
}
CUresult primary_reset(CUdevice dev) { return primary_release(dev); }
// Contexts a program creates (cuCtxCreate) beside the primary one. They are
// handles of one emulated device: modules, memory and streams are the
// device's, whichever context made them (docs/runtime.md, "Contexts"); what
// each keeps is its flags. The current context is the top of one stack.
struct CreatedContext {
  unsigned flags = 0;
};
auto& g_created = *new std::map<CUcontext, std::unique_ptr<CreatedContext>>;  // never destroyed
auto& g_ctx_stack = *new std::vector<CUcontext>;
bool known_context(CUcontext c) { return c == the_context() || g_created.count(c); }
CUresult ctx_get_current(CUcontext* c) {
  if (!c) return CUDA_ERROR_INVALID_VALUE;
  LOCKED;
  *c = g_ctx_stack.empty() ? nullptr : g_ctx_stack.back();
  return CUDA_SUCCESS;
}
CUresult ctx_set_current(CUcontext c) {
  LOCKED;
  if (c && !known_context(c)) return CUDA_ERROR_INVALID_CONTEXT;
  if (!c) {
    if (!g_ctx_stack.empty()) g_ctx_stack.pop_back();
  } else if (g_ctx_stack.empty()) {
    g_ctx_stack.push_back(c);
  } else {
    g_ctx_stack.back() = c;
  }
  return CUDA_SUCCESS;
}
CUresult ctx_push(CUcontext c) {
  LOCKED;
  if (!c || !known_context(c)) return CUDA_ERROR_INVALID_CONTEXT;
  g_ctx_stack.push_back(c);
  return CUDA_SUCCESS;
}
CUresult ctx_pop(CUcontext* c) {
  LOCKED;
  if (g_ctx_stack.empty()) return CUDA_ERROR_INVALID_CONTEXT;
  if (c) *c = g_ctx_stack.back();
  g_ctx_stack.pop_back();
  return CUDA_SUCCESS;
}
// cuCtxCreate (v2, v3 with execution-affinity parameters, v4 with its
// parameter struct): a new context of device 0, made current (pushed).
CUresult ctx_create_common(CUcontext* out, unsigned flags, CUdevice dev) {
  LOCKED;
  if (!out || (flags & ~unsigned{CU_CTX_FLAGS_MASK})) return CUDA_ERROR_INVALID_VALUE;
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  auto ctx = std::make_unique<CreatedContext>();
  ctx->flags = flags;
  CUcontext handle = reinterpret_cast<CUcontext>(ctx.get());
  g_created[handle] = std::move(ctx);
  g_ctx_stack.push_back(handle);
  *out = handle;
  return CUDA_SUCCESS;
}
CUresult ctx_create_v2(CUcontext* out, unsigned flags, CUdevice dev) {
  return ctx_create_common(out, flags, dev);
}
// Execution affinity (a share of the SMs) is an MPS client's: an H100
// outside MPS answers CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY, as here.
CUresult ctx_create_v3(CUcontext* out, CUexecAffinityParam* params, int n, unsigned flags,
                       CUdevice dev) {
  if (n < 0 || (n > 0 && !params)) return CUDA_ERROR_INVALID_VALUE;
  if (n > 0) return CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY;
  return ctx_create_common(out, flags, dev);
}
CUresult ctx_create_v4(CUcontext* out, CUctxCreateParams* params, unsigned flags, CUdevice dev) {
  if (params && params->numExecAffinityParams > 0 && params->cigParams)
    return CUDA_ERROR_INVALID_VALUE;  // the two are exclusive
  if (params && params->cigParams) {
    Driver::get().error_line(
        "cuCtxCreate: CUDA-in-graphics contexts (CUctxCreateParams::cigParams) share a graphics "
        "API's context; smemlab has none");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  if (params)
    return ctx_create_v3(out, params->execAffinityParams, params->numExecAffinityParams, flags,
                         dev);
  return ctx_create_common(out, flags, dev);
}
// Destroying a context waits for the device's work; the context leaves the
// stack wherever it is on it.
CUresult ctx_destroy(CUcontext c) {
  Driver::get().synchronize_all();
  LOCKED;
  auto it = g_created.find(c);
  if (it == g_created.end()) return CUDA_ERROR_INVALID_CONTEXT;
  std::erase(g_ctx_stack, c);
  g_created.erase(it);
  return CUDA_SUCCESS;
}
CUresult ctx_get_device(CUdevice* dev) {
  if (!dev) return CUDA_ERROR_INVALID_VALUE;
  *dev = 0;
  return CUDA_SUCCESS;
}
CUresult ctx_get_device_v2(CUdevice* dev, CUcontext) { return ctx_get_device(dev); }
CUresult ctx_synchronize() {
  Driver& d = Driver::get();
  d.synchronize_all();
  Lock lock(d.mu);
  pools_synchronized();
  return d.sticky;
}
CUresult ctx_synchronize_v2(CUcontext) { return ctx_synchronize(); }
CUresult ctx_get_flags(unsigned* f) {
  if (!f) return CUDA_ERROR_INVALID_VALUE;
  LOCKED;
  auto it = g_ctx_stack.empty() ? g_created.end() : g_created.find(g_ctx_stack.back());
  *f = it == g_created.end() ? 0 : it->second->flags;
  return CUDA_SUCCESS;
}
CUresult ctx_api_version(CUcontext, unsigned* v) {
  if (!v) return CUDA_ERROR_INVALID_VALUE;
  *v = 3020;
  return CUDA_SUCCESS;
}
// The H100's defaults (tests/data/h100_device_attributes.txt): stack, printf
// FIFO, malloc heap, (device-runtime sync depth: unsupported), pending
// launches, L2 fetch granularity, persisting L2 size.
size_t g_limits[16] = {1024, 8650752, 8 << 20, 0, 2048, 64, 9830400, 0};
CUresult ctx_get_limit(size_t* v, CUlimit l) {
  if (!v || static_cast<unsigned>(l) >= 16) return CUDA_ERROR_INVALID_VALUE;
  // CUDA 12's device runtime has no synchronization depth (the H100 answers this).
  if (l == CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH) return CUDA_ERROR_UNSUPPORTED_LIMIT;
  *v = g_limits[l];
  return CUDA_SUCCESS;
}
CUresult ctx_set_limit(CUlimit l, size_t v) {
  if (static_cast<unsigned>(l) >= 16) return CUDA_ERROR_INVALID_VALUE;
  if (l == CU_LIMIT_STACK_SIZE) {
    // The emulator's per-thread call stack of the kernels launched from now
    // on; the work already submitted runs with the stack it was launched with.
    if (v > UINT32_MAX) return CUDA_ERROR_OUT_OF_MEMORY;
    Driver::get().synchronize_all();
    LOCKED;
    d.device.set_stack_bytes(static_cast<uint32_t>(v));
  }
  g_limits[l] = v;
  return CUDA_SUCCESS;
}
CUfunc_cache g_cache = CU_FUNC_CACHE_PREFER_NONE;
CUresult ctx_get_cache_config(CUfunc_cache* c) {
  if (!c) return CUDA_ERROR_INVALID_VALUE;
  *c = g_cache;
  return CUDA_SUCCESS;
}
CUresult ctx_set_cache_config(CUfunc_cache c) {
  g_cache = c;
  return CUDA_SUCCESS;
}
// The Kepler bank-size switch: with an sm_3x device it selects the 4- or
// 8-byte bank model of later launches; elsewhere accepted and ignored.
CUresult ctx_get_shared_config(CUsharedconfig* c) {
  LOCKED;
  if (!c) return CUDA_ERROR_INVALID_VALUE;
  *c = d.spec.major == 3 && d.device_bank_config == CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE
           ? CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE
       : d.spec.major == 3 ? d.device_bank_config
                           : CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE;
  return CUDA_SUCCESS;
}
CUresult ctx_set_shared_config(CUsharedconfig c) {
  LOCKED;
  d.device_bank_config = c;
  return CUDA_SUCCESS;
}
CUresult ctx_stream_priority_range(int* least, int* greatest) {
  if (least) *least = 0;
  if (greatest) *greatest = -5;
  return CUDA_SUCCESS;
}
CUresult ctx_reset_persisting_l2() { return CUDA_SUCCESS; }

// ---- modules and functions -------------------------------------------------

CUresult module_loading_mode(CUmoduleLoadingMode* m) {
  if (!m) return CUDA_ERROR_INVALID_VALUE;
  *m = CU_MODULE_LAZY_LOADING;
  return CUDA_SUCCESS;
}
CUresult module_load_data(CUmodule* m, const void* image) {
  LOCKED;
  if (!m || !image) return CUDA_ERROR_INVALID_VALUE;
  Module* mod = nullptr;
  CUresult r = d.load_fatbin(image, &mod);
  if (r == CUDA_SUCCESS) *m = reinterpret_cast<CUmodule>(mod);
  return r;
}
CUresult module_unload(CUmodule) {
  // Modules stay loaded: functions and symbol addresses handed out remain
  // valid until exit (the program's fatbins are unloaded only at exit).
  return CUDA_SUCCESS;
}
CUresult module_get_function(CUfunction* f, CUmodule hm, const char* name) {
  LOCKED;
  if (!f || !hm || !name) return CUDA_ERROR_INVALID_VALUE;
  Module* m = reinterpret_cast<Module*>(hm);
  auto it = m->functions.find(name);
  if (it == m->functions.end()) {
    // Without PTX the names are unknown: the launch reports the module.
    if (m->emu) {
      const ptx::Function* k = m->emu->ptx().find(name);
      if (!k || !k->is_entry) return CUDA_ERROR_NOT_FOUND;
    }
    auto fn = std::make_unique<Function>();
    fn->module = m;
    fn->name = name;
    it = m->functions.emplace(name, std::move(fn)).first;
  }
  *f = reinterpret_cast<CUfunction>(it->second.get());
  return CUDA_SUCCESS;
}
CUresult module_get_global(CUdeviceptr* dptr, size_t* bytes, CUmodule hm, const char* name) {
  LOCKED;
  if (!hm || !name) return CUDA_ERROR_INVALID_VALUE;
  Module* m = reinterpret_cast<Module*>(hm);
  if (!m->emu) return CUDA_ERROR_NOT_FOUND;
  for (const auto& c : m->consts)
    if (c.symbol == name) {
      if (dptr) *dptr = reinterpret_cast<CUdeviceptr>(c.data);
      if (bytes) *bytes = c.size;
      return CUDA_SUCCESS;
    }
  uint64_t addr = m->emu->global_address(name);
  if (!addr) return CUDA_ERROR_NOT_FOUND;
  const auto* a = d.device.memory().find(addr);
  if (dptr) *dptr = addr;
  if (bytes) *bytes = a ? a->size : 0;
  return CUDA_SUCCESS;
}

// Libraries (cudart 12+ loads its fatbins this way): a library is a module,
// a CUkernel is a CUfunction.
CUresult library_load_data(CUlibrary* lib, const void* code, CUjit_option*, void**, unsigned,
                           CUlibraryOption*, void**, unsigned) {
  return module_load_data(reinterpret_cast<CUmodule*>(lib), code);
}
CUresult library_unload(CUlibrary) { return CUDA_SUCCESS; }
CUresult library_get_kernel(CUkernel* k, CUlibrary lib, const char* name) {
  return module_get_function(reinterpret_cast<CUfunction*>(k), reinterpret_cast<CUmodule>(lib),
                             name);
}
CUresult library_get_module(CUmodule* m, CUlibrary lib) {
  if (!m || !lib) return CUDA_ERROR_INVALID_VALUE;
  *m = reinterpret_cast<CUmodule>(lib);
  return CUDA_SUCCESS;
}
CUresult kernel_get_function(CUfunction* f, CUkernel k) {
  if (!f || !k) return CUDA_ERROR_INVALID_VALUE;
  *f = reinterpret_cast<CUfunction>(k);
  return CUDA_SUCCESS;
}
CUresult kernel_get_library(CUlibrary* lib, CUkernel k) {
  if (!lib || !k) return CUDA_ERROR_INVALID_VALUE;
  *lib = reinterpret_cast<CUlibrary>(reinterpret_cast<Function*>(k)->module);
  return CUDA_SUCCESS;
}
CUresult library_get_global(CUdeviceptr* p, size_t* bytes, CUlibrary lib, const char* name) {
  return module_get_global(p, bytes, reinterpret_cast<CUmodule>(lib), name);
}

// Registers per thread are a SASS fact the PTX does not carry; occupancy
// and the attribute use this value (docs/runtime.md: limits).
constexpr int kAssumedRegisters = 32;

// The kernel's cluster shape from __cluster_dims__ (.reqnctapercluster),
// 0,0,0 when it has none.
emu::Dim3 compiled_cluster(const Function& f) {
  const ptx::Function* pf = f.module->emu->ptx().find(f.name);
  if (!pf) return {0, 0, 0};
  auto it = pf->directives.find(".reqnctapercluster");
  if (it == pf->directives.end()) return {0, 0, 0};
  const auto& v = it->second;
  auto at = [&](size_t i) { return v.size() > i ? static_cast<uint32_t>(v[i]) : 1u; };
  return {at(0), at(1), at(2)};
}

// CLUSTER_SIZE_MUST_BE_SET (.explicitcluster: __cluster_dims__) and the
// required shape (compiled, else set at run time).
int cluster_attribute(const Function& f, CUfunction_attribute a) {
  emu::Dim3 c = compiled_cluster(f);
  if (a == CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET) {
    const ptx::Function* pf = f.module->emu->ptx().find(f.name);
    return pf && pf->directives.count(".explicitcluster") ? 1 : 0;
  }
  if (!c.x) c = f.required_cluster;
  return static_cast<int>(a == CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH    ? c.x
                          : a == CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT ? c.y
                                                                           : c.z);
}

// cuFuncSetAttribute of the cluster attributes: the required shape only
// when __cluster_dims__ did not fix it (else CUDA_ERROR_INVALID_VALUE, as
// the H100's driver 580 answers: scripts/gpu-cluster, 2026-11-27).
CUresult set_cluster_attribute(Driver& d, Function* f, CUfunction_attribute a, int v) {
  CUresult r;
  if (!d.program(f, "cuFuncSetAttribute", &r)) return r;
  switch (a) {
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
      if (v != 0 && v != 1) return CUDA_ERROR_INVALID_VALUE;
      f->non_portable_cluster = v;
      return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
      if (v < CU_CLUSTER_SCHEDULING_POLICY_DEFAULT ||
          v > CU_CLUSTER_SCHEDULING_POLICY_LOAD_BALANCING)
        return CUDA_ERROR_INVALID_VALUE;
      f->cluster_policy = v;
      return CUDA_SUCCESS;
    default:
      break;
  }
  if (compiled_cluster(*f).x) return CUDA_ERROR_INVALID_VALUE;
  if (v < 0 || v > static_cast<int>(emu::kMaxClusterBlocks)) return CUDA_ERROR_INVALID_VALUE;
  uint32_t& dim = a == CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH    ? f->required_cluster.x
                  : a == CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT ? f->required_cluster.y
                                                                   : f->required_cluster.z;
  dim = static_cast<uint32_t>(v);
  return CUDA_SUCCESS;
}

CUresult func_get_attribute(int* v, CUfunction_attribute a, CUfunction hf) {
  LOCKED;
  Function* f = fn(hf);
  if (!v || !f) return CUDA_ERROR_INVALID_VALUE;
  CUresult r;
  const emu::Program* p = d.program(f, "cuFuncGetAttribute", &r);
  if (!p) return r;
  switch (a) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
      *v = 1024;
      break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
      *v = static_cast<int>(p->static_shared);
      break;
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES:
      *v = static_cast<int>(f->module->emu->const_bank().size());
      break;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
      *v = static_cast<int>(p->frame_bytes);
      break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS:
      *v = kAssumedRegisters;
      break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION:
      *v = static_cast<int>(f->module->ptx_sm);
      break;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
      *v = d.spec.major * 10 + d.spec.minor;
      break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
      *v = f->max_dynamic_shared > 0 ? f->max_dynamic_shared
                                     : d.spec.shared_per_block - static_cast<int>(p->static_shared);
      break;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
      *v = f->preferred_carveout;
      break;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
      *v = cluster_attribute(*f, a);
      break;
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
      *v = f->non_portable_cluster;
      break;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
      *v = f->cluster_policy;
      break;
    default:
      *v = 0;
      break;
  }
  return CUDA_SUCCESS;
}
CUresult func_set_attribute(CUfunction hf, CUfunction_attribute a, int v) {
  LOCKED;
  Function* f = fn(hf);
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  if (a == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) {
    CUresult r;
    const emu::Program* p = d.program(f, "cuFuncSetAttribute", &r);
    if (!p) return r;
    int static_shared = static_cast<int>(p->static_shared);
    if (v < 0 || v + static_shared > d.spec.shared_per_block_optin) return CUDA_ERROR_INVALID_VALUE;
    f->max_dynamic_shared = v;
  } else if (a == CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT) {
    f->preferred_carveout = v;
  } else if (a >= CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH &&
             a <= CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE) {
    return set_cluster_attribute(d, f, a, v);
  } else {
    return CUDA_ERROR_INVALID_VALUE;  // read-only or unknown
  }
  return CUDA_SUCCESS;
}
CUresult func_set_cache_config(CUfunction, CUfunc_cache) { return CUDA_SUCCESS; }
CUresult func_set_shared_config(CUfunction hf, CUsharedconfig c) {
  LOCKED;
  if (!fn(hf)) return CUDA_ERROR_INVALID_HANDLE;
  fn(hf)->bank_config = c;
  return CUDA_SUCCESS;
}
CUresult func_get_name(const char** name, CUfunction hf) {
  if (!name || !fn(hf)) return CUDA_ERROR_INVALID_VALUE;
  *name = fn(hf)->name.c_str();
  return CUDA_SUCCESS;
}
CUresult func_param_info(CUfunction hf, size_t i, size_t* offset, size_t* size) {
  LOCKED;
  Function* f = fn(hf);
  if (!f) return CUDA_ERROR_INVALID_VALUE;
  CUresult r;
  const emu::Program* p = d.program(f, "cuFuncGetParamInfo", &r);
  if (!p) return r;
  const auto& params = p->params;
  if (i >= params.size()) return CUDA_ERROR_INVALID_VALUE;
  if (offset) *offset = params[i].offset;
  if (size) *size = params[i].size;
  return CUDA_SUCCESS;
}

CUresult kernel_get_attribute(int* v, CUfunction_attribute a, CUkernel k, CUdevice) {
  return func_get_attribute(v, a, reinterpret_cast<CUfunction>(k));
}
CUresult kernel_set_attribute(CUfunction_attribute a, int v, CUkernel k, CUdevice) {
  return func_set_attribute(reinterpret_cast<CUfunction>(k), a, v);
}
CUresult kernel_set_cache_config(CUkernel, CUfunc_cache, CUdevice) { return CUDA_SUCCESS; }
CUresult kernel_get_name(const char** name, CUkernel k) {
  return func_get_name(name, reinterpret_cast<CUfunction>(k));
}
CUresult kernel_param_info(CUkernel k, size_t i, size_t* offset, size_t* size) {
  return func_param_info(reinterpret_cast<CUfunction>(k), i, offset, size);
}

// ---- memory ----------------------------------------------------------------

CUresult mem_get_info(size_t* free_bytes, size_t* total) {
  LOCKED;
  uint64_t used = 0;
  for (const auto& [b, a] : d.allocs) used += a.size;
  if (total) *total = d.spec.total_memory;
  if (free_bytes) *free_bytes = d.spec.total_memory > used ? d.spec.total_memory - used : 0;
  return CUDA_SUCCESS;
}
CUresult mem_alloc(CUdeviceptr* p, size_t bytes) {
  LOCKED;
  if (!p) return CUDA_ERROR_INVALID_VALUE;
  if (bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  uint64_t a;
  CUresult r = d.allocate(bytes, MemKind::Device, &a);
  if (r == CUDA_SUCCESS) *p = a;
  return r;
}
CUresult mem_alloc_pitch(CUdeviceptr* p, size_t* pitch, size_t width, size_t height, unsigned) {
  if (!pitch) return CUDA_ERROR_INVALID_VALUE;
  *pitch = (width + 511) / 512 * 512;
  return mem_alloc(p, *pitch * height);
}
CUresult mem_alloc_managed(CUdeviceptr* p, size_t bytes, unsigned) {
  LOCKED;
  if (!p || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  uint64_t a;
  CUresult r = d.allocate(bytes, MemKind::Managed, &a);
  if (r == CUDA_SUCCESS) *p = a;
  return r;
}
CUresult mem_free(CUdeviceptr p) {
  LOCKED;
  if (!p) return CUDA_SUCCESS;
  return d.release(p, "cudaFree");
}
// Pinned host memory is mapped on a device with unified addressing whatever
// the flags asked, and cuMemHostGetFlags says so; portable and
// write-combined only when asked (as an H100 answers: cudaMallocHost 2,
// cudaHostAllocPortable 3, cudaHostAllocWriteCombined 6, cudaHostRegister 2).
constexpr unsigned kUvaHostFlags = CU_MEMHOSTALLOC_DEVICEMAP;
CUresult mem_host_alloc(void** p, size_t bytes, unsigned flags) {
  LOCKED;
  if (!p || (flags & ~unsigned{CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP |
                               CU_MEMHOSTALLOC_WRITECOMBINED}))
    return CUDA_ERROR_INVALID_VALUE;
  uint64_t a;
  CUresult r = d.allocate(std::max<size_t>(bytes, 1), MemKind::Host, &a);
  if (r != CUDA_SUCCESS) return r;
  d.allocs[a].host_flags = flags | kUvaHostFlags;
  *p = reinterpret_cast<void*>(a);
  return r;
}
CUresult mem_alloc_host(void** p, size_t bytes) { return mem_host_alloc(p, bytes, 0); }
CUresult mem_free_host(void* p) {
  LOCKED;
  return d.release(reinterpret_cast<uint64_t>(p), "cudaFreeHost");
}
CUresult mem_host_get_device_pointer(CUdeviceptr* dp, void* p, unsigned) {
  if (!dp) return CUDA_ERROR_INVALID_VALUE;
  *dp = reinterpret_cast<CUdeviceptr>(p);
  return CUDA_SUCCESS;
}
// The flags of the pinned allocation (or registered range) holding p;
// any other address is not pinned host memory: CUDA_ERROR_INVALID_VALUE.
CUresult mem_host_get_flags(unsigned* flags, void* p) {
  LOCKED;
  const Allocation* a = d.find(reinterpret_cast<uint64_t>(p));
  if (!flags || !a || (a->kind != MemKind::Host && a->kind != MemKind::Registered))
    return CUDA_ERROR_INVALID_VALUE;
  *flags = a->host_flags;
  return CUDA_SUCCESS;
}
CUresult mem_host_register(void* p, size_t bytes, unsigned flags) {
  LOCKED;
  uint64_t base = reinterpret_cast<uint64_t>(p);
  if (!p || !bytes || !d.device.memory().adopt(p, bytes)) return CUDA_ERROR_INVALID_VALUE;
  d.allocs[base] = {base, bytes, MemKind::Registered, false};
  (void)flags;  // (the H100 reports a registered range as mapped only)
  d.allocs[base].host_flags = kUvaHostFlags;
  return CUDA_SUCCESS;
}
CUresult mem_host_unregister(void* p) {
  LOCKED;
  return d.release(reinterpret_cast<uint64_t>(p), "cudaHostUnregister");
}
CUresult mem_get_address_range(CUdeviceptr* base, size_t* size, CUdeviceptr p) {
  LOCKED;
  const Allocation* a = d.find(p);
  if (!a) return CUDA_ERROR_NOT_FOUND;
  if (base) *base = a->base;
  if (size) *size = a->size;
  return CUDA_SUCCESS;
}
CUresult pointer_attribute(void* data, CUpointer_attribute attr, CUdeviceptr p) {
  LOCKED;
  const Allocation* a = d.find(p);
  switch (attr) {
    case CU_POINTER_ATTRIBUTE_CONTEXT:
      *static_cast<CUcontext*>(data) = a ? the_context() : nullptr;
      return a ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
      if (!a) return CUDA_ERROR_INVALID_VALUE;
      *static_cast<unsigned*>(data) = a->kind == MemKind::Device || a->kind == MemKind::Managed
                                          ? CU_MEMORYTYPE_DEVICE
                                          : CU_MEMORYTYPE_HOST;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
      if (!a) return CUDA_ERROR_INVALID_VALUE;
      *static_cast<void**>(data) = reinterpret_cast<void*>(p);
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
      *static_cast<int*>(data) = a && a->kind == MemKind::Managed;
      return a ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
      *static_cast<int*>(data) = 0;
      return a ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
      *static_cast<CUdeviceptr*>(data) = a ? a->base : 0;
      return a ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
      *static_cast<size_t*>(data) = a ? a->size : 0;
      return a ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    case CU_POINTER_ATTRIBUTE_MAPPED:
      *static_cast<int*>(data) = a != nullptr;
      return a ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    case CU_POINTER_ATTRIBUTE_BUFFER_ID:
      *static_cast<unsigned long long*>(data) = a ? a->base : 0;
      return a ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
}
CUresult pointer_attributes(unsigned n, CUpointer_attribute* attrs, void** data, CUdeviceptr p) {
  LOCKED;
  const Allocation* a = d.find(p);
  for (unsigned i = 0; i < n; ++i) {
    if (!data[i]) continue;
    if (!a) {
      // Unregistered host memory: cudaPointerGetAttributes says "unregistered".
      switch (attrs[i]) {
        case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
          *static_cast<unsigned*>(data[i]) = 0;
          break;
        case CU_POINTER_ATTRIBUTE_CONTEXT:
          *static_cast<CUcontext*>(data[i]) = nullptr;
          break;
        case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
          *static_cast<int*>(data[i]) = -2;
          break;
        case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
        case CU_POINTER_ATTRIBUTE_HOST_POINTER:
          *static_cast<void**>(data[i]) = nullptr;
          break;
        case CU_POINTER_ATTRIBUTE_IS_MANAGED:
        case CU_POINTER_ATTRIBUTE_MAPPED:
          *static_cast<int*>(data[i]) = 0;
          break;
        default:
          break;
      }
      continue;
    }
    pointer_attribute(data[i], attrs[i], p);
  }
  return CUDA_SUCCESS;
}

// A stream being captured records the operation, to run at each replay of
// the graph, instead of running it (graph.h).
#define CAPTURED(s, type, call) \
  if (captured(s)) return capture_node(s, type, [=] { return call; })

// Copies: 1 = must be device memory, 0 = host, -1 = either (unified).
CUresult memcpy_any(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  LOCKED;
  return d.copy("cudaMemcpy", dst, src, n, -1, -1);
}
CUresult memcpy_any_async(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  LOCKED;
  CAPTURED(s, CU_GRAPH_NODE_TYPE_MEMCPY, memcpy_any(dst, src, n));
  return d.copy_async("cudaMemcpyAsync", s, dst, src, n, -1, -1);
}
CUresult memcpy_htod(CUdeviceptr dst, const void* src, size_t n) {
  LOCKED;
  return d.copy("cudaMemcpy (host to device)", dst, reinterpret_cast<uint64_t>(src), n, 1, -1);
}
CUresult memcpy_htod_async(CUdeviceptr dst, const void* src, size_t n, CUstream s) {
  CAPTURED(s, CU_GRAPH_NODE_TYPE_MEMCPY, memcpy_htod(dst, src, n));
  LOCKED;
  return d.copy_async("cudaMemcpyAsync (host to device)", s, dst, reinterpret_cast<uint64_t>(src),
                      n, 1, -1);
}
CUresult memcpy_dtoh(void* dst, CUdeviceptr src, size_t n) {
  LOCKED;
  return d.copy("cudaMemcpy (device to host)", reinterpret_cast<uint64_t>(dst), src, n, -1, 1);
}
CUresult memcpy_dtoh_async(void* dst, CUdeviceptr src, size_t n, CUstream s) {
  CAPTURED(s, CU_GRAPH_NODE_TYPE_MEMCPY, memcpy_dtoh(dst, src, n));
  LOCKED;
  return d.copy_async("cudaMemcpyAsync (device to host)", s, reinterpret_cast<uint64_t>(dst), src,
                      n, -1, 1);
}
CUresult memcpy_dtod(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  LOCKED;
  return d.copy("cudaMemcpy (device to device)", dst, src, n, 1, 1);
}
CUresult memcpy_dtod_async(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  CAPTURED(s, CU_GRAPH_NODE_TYPE_MEMCPY, memcpy_dtod(dst, src, n));
  LOCKED;
  return d.copy_async("cudaMemcpyAsync (device to device)", s, dst, src, n, 1, 1);
}
CUresult memcpy_peer(CUdeviceptr dst, CUcontext, CUdeviceptr src, CUcontext, size_t n) {
  return memcpy_dtod(dst, src, n);
}
CUresult memcpy_peer_async(CUdeviceptr dst, CUcontext, CUdeviceptr src, CUcontext, size_t n,
                           CUstream s) {
  CAPTURED(s, CU_GRAPH_NODE_TYPE_MEMCPY, memcpy_dtod(dst, src, n));
  LOCKED;
  return d.copy_async("cudaMemcpyPeerAsync", s, dst, src, n, 1, 1);
}

// ---- CUDA arrays -----------------------------------------------------------
//
// cudaMallocArray/cudaMalloc3DArray (cuArray3DCreate): the emulator has no
// opaque texture layout, so an array is a device allocation of tightly
// packed rows (layer after layer), which texture objects over it read as
// pitched memory and array copies address as rows of Width texels.
struct Array {
  uint64_t base = 0;
  CUDA_ARRAY3D_DESCRIPTOR desc{};
  uint64_t row_bytes = 0;
  uint64_t height = 1;  // rows per slice (Height, or 1 for a 1-D array)
};
// Never destroyed, as the driver: cudart's exit handler may still call in
// after static destructors have run.
auto& g_arrays = *new std::map<CUarray, std::unique_ptr<Array>>;

Array* array_of(CUarray a) {
  auto it = g_arrays.find(a);
  return it == g_arrays.end() ? nullptr : it->second.get();
}

// The flags an array may have here: layered, surface load/store, cubemap
// (six square faces, times the layers of a layered cubemap) and texture
// gather (2-D). Depth textures, color attachments, sparse and
// deferred-mapping arrays have no emulation and are refused by name.
CUresult array_flags_refused(Driver& d, const CUDA_ARRAY3D_DESCRIPTOR& a) {
  const unsigned known = CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_SURFACE_LDST | CUDA_ARRAY3D_CUBEMAP |
                         CUDA_ARRAY3D_TEXTURE_GATHER;
  if (unsigned other = a.Flags & ~known) {
    struct Named {
      unsigned flag;
      const char* name;
    };
    static const Named kNames[] = {
        {CUDA_ARRAY3D_DEPTH_TEXTURE, "depth texture (CUDA_ARRAY3D_DEPTH_TEXTURE)"},
        {CUDA_ARRAY3D_COLOR_ATTACHMENT, "color attachment (cudaArrayColorAttachment)"},
        {CUDA_ARRAY3D_SPARSE, "sparse (cudaArraySparse)"},
        {CUDA_ARRAY3D_DEFERRED_MAPPING, "deferred mapping (cudaArrayDeferredMapping)"}};
    std::string names;
    for (const auto& n : kNames)
      if (other & n.flag) names += std::string(names.empty() ? "" : ", ") + n.name;
    d.error_line(
        fmt::format("cudaMallocArray/cudaMalloc3DArray (cuArray3DCreate): array flags "
                    "0x{:x} are not supported ({}; layered, surface load/store, cubemap and "
                    "texture-gather arrays are)",
                    other, names.empty() ? "unknown flags" : names));
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  if (a.Flags & CUDA_ARRAY3D_CUBEMAP) {
    bool layered = a.Flags & CUDA_ARRAY3D_LAYERED;
    if (a.Width != a.Height || a.Depth == 0 || (layered ? a.Depth % 6 : a.Depth != 6)) {
      d.error_line(
          fmt::format("cuArray3DCreate: a cubemap{} array has square faces and {} "
                      "slices, not {}x{}x{}",
                      layered ? " layered" : "", layered ? "a multiple of 6" : "6", a.Width,
                      a.Height, a.Depth));
      return CUDA_ERROR_INVALID_VALUE;
    }
  }
  if ((a.Flags & CUDA_ARRAY3D_TEXTURE_GATHER) &&
      (a.Height == 0 || a.Depth != 0 || (a.Flags & CUDA_ARRAY3D_LAYERED))) {
    d.error_line("cuArray3DCreate: a texture-gather array is 2-D (cudaArrayTextureGather)");
    return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUresult array_3d_create(CUarray* out, const CUDA_ARRAY3D_DESCRIPTOR* desc) {
  LOCKED;
  if (!out || !desc) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = array_flags_refused(d, *desc); r != CUDA_SUCCESS) return r;
  emu::texture::Format f;
  if (!tex_format(desc->Format, &f)) {
    d.error_line(fmt::format("cuArray3DCreate: array format 0x{:x} is not supported",
                             static_cast<unsigned>(desc->Format)));
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  unsigned ch = desc->NumChannels;
  if (desc->Width == 0 || (ch != 1 && ch != 2 && ch != 4)) return CUDA_ERROR_INVALID_VALUE;
  auto a = std::make_unique<Array>();
  a->desc = *desc;
  a->row_bytes = desc->Width * emu::texture::format_bytes(f) * ch;
  a->height = desc->Height ? desc->Height : 1;
  uint64_t bytes = a->row_bytes * a->height * (desc->Depth ? desc->Depth : 1);
  CUresult r = d.allocate(bytes, MemKind::Device, &a->base);
  if (r != CUDA_SUCCESS) return r;
  *out = reinterpret_cast<CUarray>(a.get());
  g_arrays[*out] = std::move(a);
  return CUDA_SUCCESS;
}
CUresult array_create(CUarray* out, const CUDA_ARRAY_DESCRIPTOR* desc) {
  if (!desc) return CUDA_ERROR_INVALID_VALUE;
  CUDA_ARRAY3D_DESCRIPTOR d3{};
  d3.Width = desc->Width;
  d3.Height = desc->Height;
  d3.Format = desc->Format;
  d3.NumChannels = desc->NumChannels;
  return array_3d_create(out, &d3);
}
CUresult array_destroy(CUarray h) {
  LOCKED;
  Array* a = array_of(h);
  if (!a) return CUDA_ERROR_INVALID_HANDLE;
  CUresult r = d.release(a->base, "cudaFreeArray");
  g_arrays.erase(h);
  return r;
}
CUresult array_3d_descriptor(CUDA_ARRAY3D_DESCRIPTOR* out, CUarray h) {
  LOCKED;
  Array* a = array_of(h);
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  if (!a) return CUDA_ERROR_INVALID_HANDLE;
  *out = a->desc;
  return CUDA_SUCCESS;
}
CUresult array_descriptor(CUDA_ARRAY_DESCRIPTOR* out, CUarray h) {
  LOCKED;
  Array* a = array_of(h);
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  if (!a) return CUDA_ERROR_INVALID_HANDLE;
  *out = {a->desc.Width, a->desc.Height, a->desc.Format, a->desc.NumChannels};
  return CUDA_SUCCESS;
}

// The driver's 1-D array copies (cuMemcpyHtoA, ...) address an array's bytes
// in row-major order, rows and slices back to back; the range must lie
// inside the array.
CUresult array_span(const char* api, const char* role, CUarray h, size_t offset, size_t bytes,
                    uint64_t* addr) {
  Array* a = array_of(h);
  if (!a) return CUDA_ERROR_INVALID_HANDLE;
  uint64_t total = a->row_bytes * a->height * (a->desc.Depth ? a->desc.Depth : 1);
  if (offset > total || bytes > total - offset) {
    Driver::get().api_error(
        check::FindingKind::MemcpyOutOfBounds,
        fmt::format("{}: {} CUDA array holds {} bytes ({} bytes x {} rows x {} slices); the copy "
                    "covers bytes [{}, {})",
                    api, role, total, a->row_bytes, a->height, a->desc.Depth ? a->desc.Depth : 1,
                    offset, offset + bytes));
    return CUDA_ERROR_INVALID_VALUE;
  }
  *addr = a->base + offset;
  return CUDA_SUCCESS;
}
CUresult memcpy_htoa(CUarray dst, size_t offset, const void* src, size_t n) {
  LOCKED;
  uint64_t at;
  if (CUresult r = array_span("cuMemcpyHtoA", "destination", dst, offset, n, &at);
      r != CUDA_SUCCESS)
    return r;
  return d.copy("cuMemcpyHtoA", at, reinterpret_cast<uint64_t>(src), n, 1, -1);
}
CUresult memcpy_atoh(void* dst, CUarray src, size_t offset, size_t n) {
  LOCKED;
  uint64_t at;
  if (CUresult r = array_span("cuMemcpyAtoH", "source", src, offset, n, &at); r != CUDA_SUCCESS)
    return r;
  return d.copy("cuMemcpyAtoH", reinterpret_cast<uint64_t>(dst), at, n, -1, 1);
}
CUresult memcpy_dtoa(CUarray dst, size_t offset, CUdeviceptr src, size_t n) {
  LOCKED;
  uint64_t at;
  if (CUresult r = array_span("cuMemcpyDtoA", "destination", dst, offset, n, &at);
      r != CUDA_SUCCESS)
    return r;
  return d.copy("cuMemcpyDtoA", at, src, n, 1, 1);
}
CUresult memcpy_atod(CUdeviceptr dst, CUarray src, size_t offset, size_t n) {
  LOCKED;
  uint64_t at;
  if (CUresult r = array_span("cuMemcpyAtoD", "source", src, offset, n, &at); r != CUDA_SUCCESS)
    return r;
  return d.copy("cuMemcpyAtoD", dst, at, n, 1, 1);
}
CUresult memcpy_atoa(CUarray dst, size_t dst_offset, CUarray src, size_t src_offset, size_t n) {
  LOCKED;
  uint64_t to, from;
  CUresult r = array_span("cuMemcpyAtoA", "destination", dst, dst_offset, n, &to);
  if (r == CUDA_SUCCESS) r = array_span("cuMemcpyAtoA", "source", src, src_offset, n, &from);
  if (r != CUDA_SUCCESS) return r;
  return d.copy("cuMemcpyAtoA", to, from, n, 1, 1);
}
CUresult memcpy_htoa_async(CUarray dst, size_t offset, const void* src, size_t n, CUstream s) {
  CAPTURED(s, CU_GRAPH_NODE_TYPE_MEMCPY, memcpy_htoa(dst, offset, src, n));
  return memcpy_htoa(dst, offset, src, n);
}
CUresult memcpy_atoh_async(void* dst, CUarray src, size_t offset, size_t n, CUstream s) {
  CAPTURED(s, CU_GRAPH_NODE_TYPE_MEMCPY, memcpy_atoh(dst, src, offset, n));
  return memcpy_atoh(dst, src, offset, n);
}

// One end of a 2-D/3-D copy: its start address, row pitch, rows per slice,
// and whether it is device memory (1), host memory (0) or unknown (-1).
struct CopyEnd {
  uint64_t addr = 0, pitch = 0, height = 0;
  int dev = -1;
};
// The copy box (x in bytes, y, z; width in bytes, rows, slices) is checked
// against an array's extent here: a row running past the array's width
// would otherwise land in the next row of the same allocation, unseen.
CUresult copy_end(const char* api, const char* role, CUmemorytype t, const void* host,
                  CUdeviceptr dev, CUarray array, size_t pitch, size_t height, size_t x, size_t y,
                  size_t z, size_t width, size_t rows, size_t depth, CopyEnd* e) {
  if (t == CU_MEMORYTYPE_ARRAY) {
    Array* a = array_of(array);
    if (!a) return CUDA_ERROR_INVALID_HANDLE;
    uint64_t slices = a->desc.Depth ? a->desc.Depth : 1;
    if (x + width > a->row_bytes || y + rows > a->height || z + depth > slices) {
      Driver& d = Driver::get();
      d.api_error(check::FindingKind::MemcpyOutOfBounds,
                  fmt::format("{}: {} CUDA array is {} bytes x {} rows x {} slices; the copy "
                              "covers bytes [{}, {}) of rows [{}, {}) of slices [{}, {})",
                              api, role, a->row_bytes, a->height, slices, x, x + width, y, y + rows,
                              z, z + depth));
      return CUDA_ERROR_INVALID_VALUE;
    }
    *e = {a->base, a->row_bytes, a->height, 1};
    return CUDA_SUCCESS;
  }
  *e = {t == CU_MEMORYTYPE_HOST ? reinterpret_cast<uint64_t>(host) : dev, pitch, height,
        t == CU_MEMORYTYPE_DEVICE ? 1
        : t == CU_MEMORYTYPE_HOST ? 0
                                  : -1};
  return CUDA_SUCCESS;
}

CUresult memcpy_2d(const CUDA_MEMCPY2D* c) {
  LOCKED;
  if (!c) return CUDA_ERROR_INVALID_VALUE;
  CopyEnd s, t;
  CUresult r =
      copy_end("cudaMemcpy2D", "source", c->srcMemoryType, c->srcHost, c->srcDevice, c->srcArray,
               c->srcPitch, 0, c->srcXInBytes, c->srcY, 0, c->WidthInBytes, c->Height, 1, &s);
  if (r == CUDA_SUCCESS)
    r = copy_end("cudaMemcpy2D", "destination", c->dstMemoryType, c->dstHost, c->dstDevice,
                 c->dstArray, c->dstPitch, 0, c->dstXInBytes, c->dstY, 0, c->WidthInBytes,
                 c->Height, 1, &t);
  if (r != CUDA_SUCCESS) return r;
  uint64_t src = s.addr + c->srcY * s.pitch + c->srcXInBytes;
  uint64_t dst = t.addr + c->dstY * t.pitch + c->dstXInBytes;
  for (size_t row = 0; row < c->Height; ++row) {
    r = d.copy("cudaMemcpy2D", dst + row * t.pitch, src + row * s.pitch, c->WidthInBytes, t.dev,
               s.dev);
    if (r != CUDA_SUCCESS) return r;
  }
  return CUDA_SUCCESS;
}
CUresult memcpy_2d_async(const CUDA_MEMCPY2D* c, CUstream s) {
  if (c && captured(s)) {
    CUDA_MEMCPY2D copy = *c;
    return capture_node(s, CU_GRAPH_NODE_TYPE_MEMCPY, [copy] { return memcpy_2d(&copy); });
  }
  return memcpy_2d(c);
}

// cudaMemcpy3D on linear memory (cudaMalloc3D's pitched pointers, host
// buffers): one row copy per (y, z), each checked as a 1-D copy.
CUresult memcpy_3d(const CUDA_MEMCPY3D* c) {
  LOCKED;
  if (!c) return CUDA_ERROR_INVALID_VALUE;
  // A height of 0 is allowed when Depth is 1 (the slice pitch is unused).
  CopyEnd s, t;
  CUresult r = copy_end("cudaMemcpy3D", "source", c->srcMemoryType, c->srcHost, c->srcDevice,
                        c->srcArray, c->srcPitch, c->srcHeight ? c->srcHeight : c->Height,
                        c->srcXInBytes, c->srcY, c->srcZ, c->WidthInBytes, c->Height, c->Depth, &s);
  if (r == CUDA_SUCCESS)
    r = copy_end("cudaMemcpy3D", "destination", c->dstMemoryType, c->dstHost, c->dstDevice,
                 c->dstArray, c->dstPitch, c->dstHeight ? c->dstHeight : c->Height, c->dstXInBytes,
                 c->dstY, c->dstZ, c->WidthInBytes, c->Height, c->Depth, &t);
  if (r != CUDA_SUCCESS) return r;
  uint64_t src_slice = s.pitch * s.height, dst_slice = t.pitch * t.height;
  uint64_t src = s.addr + c->srcZ * src_slice + c->srcY * s.pitch + c->srcXInBytes;
  uint64_t dst = t.addr + c->dstZ * dst_slice + c->dstY * t.pitch + c->dstXInBytes;
  for (size_t z = 0; z < c->Depth; ++z)
    for (size_t row = 0; row < c->Height; ++row) {
      r = d.copy("cudaMemcpy3D", dst + z * dst_slice + row * t.pitch,
                 src + z * src_slice + row * s.pitch, c->WidthInBytes, t.dev, s.dev);
      if (r != CUDA_SUCCESS) return r;
    }
  return CUDA_SUCCESS;
}
CUresult memcpy_3d_async(const CUDA_MEMCPY3D* c, CUstream s) {
  if (c && captured(s)) {
    CUDA_MEMCPY3D copy = *c;
    return capture_node(s, CU_GRAPH_NODE_TYPE_MEMCPY, [copy] { return memcpy_3d(&copy); });
  }
  return memcpy_3d(c);
}

CUresult memset_2d(const char* api, CUdeviceptr dst, size_t pitch, unsigned value, unsigned elem,
                   size_t width, size_t height) {
  LOCKED;
  d.synchronize_all();  // in the legacy stream's order (a no-op on the worker)
  if (d.sticky != CUDA_SUCCESS) return d.sticky;
  for (size_t row = 0; row < height; ++row) {
    uint8_t* p;
    if (!d.resolve(api, "destination", dst + row * pitch, width * elem, true, &p))
      return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < width; ++i) std::memcpy(p + i * elem, &value, elem);
  }
  return CUDA_SUCCESS;
}
// cudaMemsetAsync: checked now, set in stream `s`'s order.
CUresult memset_async(const char* api, CUstream s, CUdeviceptr dst, size_t pitch, unsigned value,
                      unsigned elem, size_t width, size_t height) {
  LOCKED;
  if (d.sticky != CUDA_SUCCESS) return d.sticky;
  for (size_t row = 0; row < height; ++row) {
    uint8_t* p;
    if (!d.resolve(api, "destination", dst + row * pitch, width * elem, true, &p))
      return CUDA_ERROR_INVALID_VALUE;
  }
  d.enqueue(
      s, [=] { memset_2d(api, dst, pitch, value, elem, width, height); }, api);
  return CUDA_SUCCESS;
}
CUresult memset_d8(CUdeviceptr p, unsigned char v, size_t n) {
  return memset_2d("cudaMemset", p, n, v, 1, n, 1);
}
CUresult memset_d8_async(CUdeviceptr p, unsigned char v, size_t n, CUstream s) {
  CAPTURED(s, CU_GRAPH_NODE_TYPE_MEMSET, memset_d8(p, v, n));
  return memset_async("cudaMemsetAsync", s, p, n, v, 1, n, 1);
}
CUresult memset_d16(CUdeviceptr p, unsigned short v, size_t n) {
  return memset_2d("cuMemsetD16", p, n * 2, v, 2, n, 1);
}
CUresult memset_d32(CUdeviceptr p, unsigned v, size_t n) {
  return memset_2d("cuMemsetD32", p, n * 4, v, 4, n, 1);
}
CUresult memset_d16_async(CUdeviceptr p, unsigned short v, size_t n, CUstream s) {
  CAPTURED(s, CU_GRAPH_NODE_TYPE_MEMSET, memset_d16(p, v, n));
  return memset_async("cuMemsetD16Async", s, p, n * 2, v, 2, n, 1);
}
CUresult memset_d32_async(CUdeviceptr p, unsigned v, size_t n, CUstream s) {
  CAPTURED(s, CU_GRAPH_NODE_TYPE_MEMSET, memset_d32(p, v, n));
  return memset_async("cuMemsetD32Async", s, p, n * 4, v, 4, n, 1);
}
CUresult memset_d2d16(CUdeviceptr p, size_t pitch, unsigned short v, size_t w, size_t h) {
  return memset_2d("cuMemsetD2D16", p, pitch, v, 2, w, h);
}
CUresult memset_d2d32(CUdeviceptr p, size_t pitch, unsigned v, size_t w, size_t h) {
  return memset_2d("cuMemsetD2D32", p, pitch, v, 4, w, h);
}
CUresult memset_d2d16_async(CUdeviceptr p, size_t pitch, unsigned short v, size_t w, size_t h,
                            CUstream s) {
  CAPTURED(s, CU_GRAPH_NODE_TYPE_MEMSET, memset_d2d16(p, pitch, v, w, h));
  return memset_async("cuMemsetD2D16Async", s, p, pitch, v, 2, w, h);
}
CUresult memset_d2d32_async(CUdeviceptr p, size_t pitch, unsigned v, size_t w, size_t h,
                            CUstream s) {
  CAPTURED(s, CU_GRAPH_NODE_TYPE_MEMSET, memset_d2d32(p, pitch, v, w, h));
  return memset_async("cuMemsetD2D32Async", s, p, pitch, v, 4, w, h);
}
CUresult memset_d2d8(CUdeviceptr p, size_t pitch, unsigned char v, size_t w, size_t h) {
  return memset_2d("cudaMemset2D", p, pitch, v, 1, w, h);
}
CUresult memset_d2d8_async(CUdeviceptr p, size_t pitch, unsigned char v, size_t w, size_t h,
                           CUstream s) {
  CAPTURED(s, CU_GRAPH_NODE_TYPE_MEMSET, memset_d2d8(p, pitch, v, w, h));
  return memset_async("cudaMemset2DAsync", s, p, pitch, v, 1, w, h);
}
// Hints about where managed memory should live: the emulator's memory is
// the host's, so there is nothing to move.
CUresult mem_advise(CUdeviceptr, size_t, CUmem_advise, CUmemLocation) { return CUDA_SUCCESS; }
CUresult mem_prefetch(CUdeviceptr, size_t, CUmemLocation, unsigned, CUstream) {
  return CUDA_SUCCESS;
}
CUresult mem_advise_v1(CUdeviceptr, size_t, CUmem_advise, CUdevice) { return CUDA_SUCCESS; }
CUresult mem_prefetch_v1(CUdeviceptr, size_t, CUdevice, CUstream) { return CUDA_SUCCESS; }

// ---- texture objects -------------------------------------------------------
//
// cudaCreateTextureObject over linear (cudaMalloc) and pitch-2D
// (cudaMallocPitch) memory and CUDA arrays, mapped onto the emulator's
// texture objects (emu::Device::create_texture): the handle the program gets
// is the emulator's, so a kernel's `tex` resolves it directly. Mipmapped
// arrays are refused by name.

// What the program passed, for cuTexObjectGetResourceDesc/GetTextureDesc.
struct TexObject {
  CUDA_RESOURCE_DESC res;
  CUDA_TEXTURE_DESC tex;
};
auto& g_textures = *new std::map<CUtexObject, TexObject>;  // never destroyed, as g_arrays

bool tex_format(CUarray_format f, emu::texture::Format* out) {
  using F = emu::texture::Format;
  switch (f) {
    case CU_AD_FORMAT_UNSIGNED_INT8:
      *out = F::U8;
      return true;
    case CU_AD_FORMAT_SIGNED_INT8:
      *out = F::S8;
      return true;
    case CU_AD_FORMAT_UNSIGNED_INT16:
      *out = F::U16;
      return true;
    case CU_AD_FORMAT_SIGNED_INT16:
      *out = F::S16;
      return true;
    case CU_AD_FORMAT_UNSIGNED_INT32:
      *out = F::U32;
      return true;
    case CU_AD_FORMAT_SIGNED_INT32:
      *out = F::S32;
      return true;
    case CU_AD_FORMAT_HALF:
      *out = F::F16;
      return true;
    case CU_AD_FORMAT_FLOAT:
      *out = F::F32;
      return true;
    default:
      return false;  // block-compressed, NV12, packed formats
  }
}

const char* resource_kind(CUresourcetype t) {
  switch (t) {
    case CU_RESOURCE_TYPE_MIPMAPPED_ARRAY:
      return "a mipmapped CUDA array (cudaResourceTypeMipmappedArray)";
    default:
      return "an unknown resource type";
  }
}

// A refused texture object: the message says which part of the descriptor.
CUresult tex_refused(Driver& d, CUresult code, const std::string& why) {
  d.error_line(fmt::format("cuTexObjectCreate (cudaCreateTextureObject): {}", why));
  return code;
}

CUresult tex_object_create(CUtexObject* out, const CUDA_RESOURCE_DESC* res,
                           const CUDA_TEXTURE_DESC* tex, const CUDA_RESOURCE_VIEW_DESC* view) {
  LOCKED;
  if (!out || !res || !tex) return CUDA_ERROR_INVALID_VALUE;
  if (res->resType != CU_RESOURCE_TYPE_LINEAR && res->resType != CU_RESOURCE_TYPE_PITCH2D &&
      res->resType != CU_RESOURCE_TYPE_ARRAY)
    return tex_refused(d, CUDA_ERROR_NOT_SUPPORTED,
                       fmt::format("the resource is {}; smemlab emulates texture objects over "
                                   "linear and pitch-2D memory and CUDA arrays only",
                                   resource_kind(res->resType)));
  const Array* array = nullptr;
  if (res->resType == CU_RESOURCE_TYPE_ARRAY && !(array = array_of(res->res.array.hArray)))
    return tex_refused(d, CUDA_ERROR_INVALID_HANDLE, "the resource's CUDA array does not exist");
  // A view only reinterprets arrays; an all-zero one is what "no view" means.
  static const CUDA_RESOURCE_VIEW_DESC kNoView{};
  if (view && std::memcmp(view, &kNoView, sizeof kNoView) != 0)
    return tex_refused(d, CUDA_ERROR_NOT_SUPPORTED,
                       "resource views are not supported (they apply to CUDA arrays)");
  if (tex->flags & CU_TRSF_SRGB)
    return tex_refused(d, CUDA_ERROR_NOT_SUPPORTED, "sRGB conversion is not supported");
  emu::texture::Descriptor e;
  bool linear = res->resType == CU_RESOURCE_TYPE_LINEAR;
  CUarray_format format = array    ? array->desc.Format
                          : linear ? res->res.linear.format
                                   : res->res.pitch2D.format;
  unsigned channels = array    ? array->desc.NumChannels
                      : linear ? res->res.linear.numChannels
                               : res->res.pitch2D.numChannels;
  if (!tex_format(format, &e.format))
    return tex_refused(d, CUDA_ERROR_NOT_SUPPORTED,
                       fmt::format("texel format 0x{:x} is not supported (8/16/32-bit "
                                   "integers, half and float are)",
                                   static_cast<unsigned>(format)));
  if (channels != 1 && channels != 2 && channels != 4)
    return tex_refused(d, CUDA_ERROR_INVALID_VALUE,
                       fmt::format("{} channels (1, 2 or 4)", channels));
  e.channels = channels;
  if (array) {
    // Rows packed tightly: 1-D (Height 0), 2-D, 3-D, or layered 1-D/2-D
    // with Depth layers.
    const CUDA_ARRAY3D_DESCRIPTOR& a = array->desc;
    e.base = array->base;
    e.width = static_cast<uint32_t>(a.Width);
    e.height = static_cast<uint32_t>(array->height);
    // A cubemap (layered or not) is read face by face: its 6 x N faces are
    // the layers of a layered 2-D texture that tex.cube/tex.acube address.
    e.cubemap = a.Flags & CUDA_ARRAY3D_CUBEMAP;
    e.layered = (a.Flags & CUDA_ARRAY3D_LAYERED) || e.cubemap;
    e.dims = a.Height == 0 ? 1 : (a.Depth == 0 || e.layered) ? 2 : 3;
    if (e.layered)
      e.layers = static_cast<uint32_t>(a.Depth ? a.Depth : 1);
    else if (e.dims == 3)
      e.depth = static_cast<uint32_t>(a.Depth);
  } else if (linear) {
    e.base = res->res.linear.devPtr;
    uint64_t texels = res->res.linear.sizeInBytes / e.texel_bytes();
    if (texels == 0 || texels > (uint64_t{1} << 27))
      return tex_refused(
          d, CUDA_ERROR_INVALID_VALUE,
          fmt::format("{} bytes is not 1 to 2^27 texels", res->res.linear.sizeInBytes));
    e.width = static_cast<uint32_t>(texels);
  } else {
    e.base = res->res.pitch2D.devPtr;
    e.dims = 2;
    e.width = static_cast<uint32_t>(res->res.pitch2D.width);
    e.height = static_cast<uint32_t>(res->res.pitch2D.height);
    e.pitch = res->res.pitch2D.pitchInBytes;
    // As the driver: the row pitch must be a multiple of the device's
    // CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT (cudaMallocPitch's is).
    if (e.pitch % 32 != 0)
      return tex_refused(d, CUDA_ERROR_INVALID_VALUE,
                         fmt::format("pitch {} is not a multiple of 32 bytes", e.pitch));
  }
  for (size_t a = 0; a < 3; ++a) {
    if (tex->addressMode[a] > CU_TR_ADDRESS_MODE_BORDER)
      return tex_refused(d, CUDA_ERROR_INVALID_VALUE, "unknown address mode");
    // CUaddress_mode and emu::texture::Address share cudaAddressMode's order.
    e.address[a] = static_cast<emu::texture::Address>(tex->addressMode[a]);
    e.border[a] = tex->borderColor[a];
  }
  e.border[3] = tex->borderColor[3];
  if (linear) {
    // Linear memory ignores the address mode: tex1Dfetch past the end reads
    // zero, which is the border mode with a zero border.
    e.address[0] = emu::texture::Address::Border;
    e.border = {0, 0, 0, 0};
  }
  e.filter = tex->filterMode == CU_TR_FILTER_MODE_LINEAR ? emu::texture::Filter::Linear
                                                         : emu::texture::Filter::Point;
  // Without CU_TRSF_READ_AS_INTEGER (cudaReadModeNormalizedFloat) 8- and
  // 16-bit integer texels read as floats in [0, 1] / [-1, 1].
  e.read = tex->flags & CU_TRSF_READ_AS_INTEGER ? emu::texture::Read::Element
                                                : emu::texture::Read::NormalizedFloat;
  if (e.format == emu::texture::Format::U32 || e.format == emu::texture::Format::S32 ||
      e.format == emu::texture::Format::F16 || e.format == emu::texture::Format::F32)
    e.read = emu::texture::Read::Element;  // nothing to normalize
  e.normalized_coords = tex->flags & CU_TRSF_NORMALIZED_COORDINATES;
  try {
    *out = d.device.create_texture(e);
  } catch (const std::invalid_argument& x) {
    return tex_refused(d, CUDA_ERROR_INVALID_VALUE, x.what());
  }
  g_textures[*out] = {*res, *tex};
  return CUDA_SUCCESS;
}
// Destroying a texture or surface object is stream-ordered in effect: the
// GPU keeps the descriptor for the work already submitted (programs destroy
// one right after the launch that reads it, as convolutionFFT2D does), so
// the device's copy goes once that work has run; the host forgets it at once.
// Handles are never reused, so the later removal cannot hit a newer object.
int g_object_destroy_stream;  // its address: the queue's stream key for these removals
CUresult tex_object_destroy(CUtexObject t) {
  LOCKED;
  if (!g_textures.erase(t)) return CUDA_ERROR_INVALID_VALUE;
  d.enqueue(
      reinterpret_cast<CUstream>(&g_object_destroy_stream),
      [&d, t] { d.device.destroy_texture(t); }, "cuTexObjectDestroy");
  return CUDA_SUCCESS;
}
CUresult tex_object_resource_desc(CUDA_RESOURCE_DESC* res, CUtexObject t) {
  LOCKED;
  auto it = g_textures.find(t);
  if (!res || it == g_textures.end()) return CUDA_ERROR_INVALID_VALUE;
  *res = it->second.res;
  return CUDA_SUCCESS;
}
CUresult tex_object_texture_desc(CUDA_TEXTURE_DESC* tex, CUtexObject t) {
  LOCKED;
  auto it = g_textures.find(t);
  if (!tex || it == g_textures.end()) return CUDA_ERROR_INVALID_VALUE;
  *tex = it->second.tex;
  return CUDA_SUCCESS;
}

// ---- surface objects -------------------------------------------------------

// A CUDA array with CUDA_ARRAY3D_SURFACE_LDST as the emulator's surface
// (suld/sust, ops_surface.cc): 1-D, 2-D, 3-D, layered (Depth layers) and
// cubemap (six faces as layers, as surfCubemap* address them).
auto& g_surfaces = *new std::map<CUsurfObject, CUDA_RESOURCE_DESC>;  // never destroyed

CUresult surf_object_create(CUsurfObject* out, const CUDA_RESOURCE_DESC* res) {
  LOCKED;
  if (!out || !res) return CUDA_ERROR_INVALID_VALUE;
  if (res->resType != CU_RESOURCE_TYPE_ARRAY) {
    d.error_line(
        "cuSurfObjectCreate (cudaCreateSurfaceObject): a surface's resource is a CUDA "
        "array (cudaResourceTypeArray)");
    return CUDA_ERROR_INVALID_VALUE;
  }
  const Array* array = array_of(res->res.array.hArray);
  if (!array) return CUDA_ERROR_INVALID_HANDLE;
  const CUDA_ARRAY3D_DESCRIPTOR& a = array->desc;
  // The driver's documentation asks for CUDA_ARRAY3D_SURFACE_LDST, but the
  // H100's driver (580.159.04) creates a surface over an array without it
  // (tests/data/h100_array_flags.txt), and so does the emulator.
  emu::texture::Descriptor e;
  tex_format(a.Format, &e.format);  // the array's format was checked at its creation
  e.channels = a.NumChannels;
  e.base = array->base;
  e.width = static_cast<uint32_t>(a.Width);
  e.height = static_cast<uint32_t>(array->height);
  e.layered = a.Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP);
  e.dims = a.Height == 0 ? 1 : (a.Depth == 0 || e.layered) ? 2 : 3;
  if (e.layered)
    e.layers = static_cast<uint32_t>(a.Depth ? a.Depth : 1);
  else if (e.dims == 3)
    e.depth = static_cast<uint32_t>(a.Depth);
  *out = d.device.create_surface(e);
  g_surfaces[*out] = *res;
  return CUDA_SUCCESS;
}
CUresult surf_object_destroy(CUsurfObject s) {  // ordered as tex_object_destroy
  LOCKED;
  if (!g_surfaces.erase(s)) return CUDA_ERROR_INVALID_VALUE;
  d.enqueue(
      reinterpret_cast<CUstream>(&g_object_destroy_stream),
      [&d, s] { d.device.destroy_surface(s); }, "cuSurfObjectDestroy");
  return CUDA_SUCCESS;
}
CUresult surf_object_resource_desc(CUDA_RESOURCE_DESC* res, CUsurfObject s) {
  LOCKED;
  auto it = g_surfaces.find(s);
  if (!res || it == g_surfaces.end()) return CUDA_ERROR_INVALID_VALUE;
  *res = it->second;
  return CUDA_SUCCESS;
}

// ---- launches --------------------------------------------------------------

CUresult launch_kernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                       unsigned by, unsigned bz, unsigned shared, CUstream s, void** params,
                       void** extra) {
  LOCKED;
  if (captured(s))
    return capture_kernel(s, fn(f), {gx, gy, gz}, {bx, by, bz}, shared, params, extra);
  return d.launch(fn(f), {gx, gy, gz}, {bx, by, bz}, shared, params, extra, false, {0, 0, 0}, s);
}
int blocks_per_sm(const DeviceSpec& s, const emu::Program& p, int block, size_t dyn);

// A cooperative grid must be resident at once, as the driver requires: more
// blocks than the occupancy calculator fits on all SMs are refused.
CUresult cooperative(Function* f, emu::Dim3 grid, emu::Dim3 block, unsigned shared, CUstream s,
                     void** params, void** extra, emu::Dim3 cluster = {0, 0, 0}) {
  LOCKED;
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  if (captured(s)) return capture_kernel(s, f, grid, block, shared, params, extra, true, cluster);
  CUresult refused;
  // Without a decoded kernel, d.launch refuses the launch and counts it.
  if (const emu::Program* prog = d.program(f, "", &refused)) {
    uint64_t per_sm = static_cast<uint64_t>(blocks_per_sm(
        d.spec, *prog, static_cast<int>(std::min<uint64_t>(block.count(), 1u << 30)), shared));
    uint64_t fit = per_sm * static_cast<uint64_t>(d.spec.sms);
    if (grid.count() > fit) {
      d.error_line(fmt::format(
          "cooperative launch of {}: grid ({},{},{}) has {} blocks, but at most {} fit on "
          "the {} at once ({} per SM x {} SMs for blocks of {} threads and {} bytes of shared "
          "memory, as cudaOccupancyMaxActiveBlocksPerMultiprocessor says)",
          demangle(f->name), grid.x, grid.y, grid.z, grid.count(), fit, d.spec.name, per_sm,
          d.spec.sms, block.count(), prog->static_shared + shared));
      return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
    }
  }
  return d.launch(f, grid, block, shared, params, extra, true, cluster, s);
}
CUresult launch_cooperative(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                            unsigned by, unsigned bz, unsigned shared, CUstream s, void** params) {
  return cooperative(fn(f), {gx, gy, gz}, {bx, by, bz}, shared, s, params, nullptr);
}
CUresult launch_kernel_ex(const CUlaunchConfig* c, CUfunction f, void** params, void** extra) {
  LOCKED;
  if (!c) return CUDA_ERROR_INVALID_VALUE;
  bool coop = false;
  emu::Dim3 cluster{0, 0, 0};
  for (unsigned i = 0; i < c->numAttrs; ++i) {
    const CUlaunchAttribute& a = c->attrs[i];
    switch (a.id) {
      case CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
        coop = a.value.cooperative != 0;
        break;
      case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
        cluster = {a.value.clusterDim.x, a.value.clusterDim.y, a.value.clusterDim.z};
        if (cluster.count() == 0) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
        break;
      // Programmatic dependent launch: grids run one after another in stream
      // order here, so griddepcontrol.wait never waits and an early start of
      // the dependent grid changes nothing a correct program computes.
      case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION:
      case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT:
      case CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT:
        break;
      default:
        break;  // scheduling hints (priority, access policy, ...) change no result
    }
  }
  const emu::Dim3 grid{c->gridDimX, c->gridDimY, c->gridDimZ},
      block{c->blockDimX, c->blockDimY, c->blockDimZ};
  if (captured(c->hStream))
    return capture_kernel(c->hStream, fn(f), grid, block, c->sharedMemBytes, params, extra, coop,
                          cluster);
  if (coop)
    return cooperative(fn(f), grid, block, c->sharedMemBytes, c->hStream, params, extra, cluster);
  return d.launch(fn(f), grid, block, c->sharedMemBytes, params, extra, false, cluster, c->hStream);
}
CUresult launch_host_func(CUstream s, CUhostFn f, void* user) {
  if (!f) return CUDA_ERROR_INVALID_VALUE;
  if (captured(s))
    return capture_node(s, CU_GRAPH_NODE_TYPE_HOST, [f, user] {
      f(user);
      return CUDA_SUCCESS;
    });
  Driver::get().enqueue_host(s, [f, user] { f(user); });
  return CUDA_SUCCESS;
}

// ---- streams and events ----------------------------------------------------

// Every live stream, so that a program which exits without destroying one
// leaves it reachable (like the driver's other tables, never destroyed: see
// Driver's lifetime) rather than a leak that LeakSanitizer blames on us.
std::set<Stream*>& live_streams() {
  static auto* s = new std::set<Stream*>();
  return *s;
}

CUresult stream_create(CUstream* s, unsigned flags) {
  if (!s) return CUDA_ERROR_INVALID_VALUE;
  auto* st = new Stream{flags, 0, g_stream_ids++};
  {
    LOCKED;
    live_streams().insert(st);
  }
  *s = reinterpret_cast<CUstream>(st);
  return CUDA_SUCCESS;
}
CUresult stream_create_priority(CUstream* s, unsigned flags, int priority) {
  CUresult r = stream_create(s, flags);
  if (r == CUDA_SUCCESS) reinterpret_cast<Stream*>(*s)->priority = priority;
  return r;
}
Stream* stream(CUstream s) {
  // The legacy (0, 1) and per-thread (2) default streams are not objects.
  return reinterpret_cast<uintptr_t>(s) <= 2 ? nullptr : reinterpret_cast<Stream*>(s);
}
CUresult stream_priority(CUstream s, int* p) {
  if (!p) return CUDA_ERROR_INVALID_VALUE;
  *p = stream(s) ? stream(s)->priority : 0;
  return CUDA_SUCCESS;
}
CUresult stream_flags(CUstream s, unsigned* f) {
  if (!f) return CUDA_ERROR_INVALID_VALUE;
  *f = stream(s) ? stream(s)->flags : 0;
  return CUDA_SUCCESS;
}
CUresult stream_id(CUstream s, unsigned long long* id) {
  if (!id) return CUDA_ERROR_INVALID_VALUE;
  *id = stream(s) ? stream(s)->id : reinterpret_cast<uintptr_t>(s);
  return CUDA_SUCCESS;
}
// The legacy and per-thread default streams are no objects: their
// attributes are one set for the program.
StreamAttributes& stream_attributes(CUstream s) {
  static auto* defaults = new StreamAttributes();
  return stream(s) ? stream(s)->attributes : *defaults;
}
CUresult stream_get_attribute(CUstream s, CUstreamAttrID id, CUstreamAttrValue* v) {
  if (!v) return CUDA_ERROR_INVALID_VALUE;
  LOCKED;
  const StreamAttributes& a = stream_attributes(s);
  switch (id) {
    case CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW:
      v->accessPolicyWindow = a.window;
      return CUDA_SUCCESS;
    case CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY:
      v->syncPolicy = a.sync_policy;
      return CUDA_SUCCESS;
    case CU_STREAM_ATTRIBUTE_PRIORITY:
      v->priority = stream(s) ? stream(s)->priority : 0;
      return CUDA_SUCCESS;
    case CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
      v->memSyncDomainMap = a.domain_map;
      return CUDA_SUCCESS;
    case CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN:
      v->memSyncDomain = a.domain;
      return CUDA_SUCCESS;
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
}
size_t max_window(const DeviceSpec& spec) {
  int bytes = 0;
  device_attribute(spec, CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE, &bytes);
  return static_cast<size_t>(bytes);
}
// Whether a window passes the driver's checks (docs of CUaccessPolicyWindow:
// hitRatio in [0, 1], missProp NORMAL or STREAMING, at most the device's
// maximum window).
bool valid_window(const CUaccessPolicyWindow& w, const DeviceSpec& spec) {
  auto prop_ok = [](CUaccessProperty p) {
    return p == CU_ACCESS_PROPERTY_NORMAL || p == CU_ACCESS_PROPERTY_STREAMING ||
           p == CU_ACCESS_PROPERTY_PERSISTING;
  };
  return w.hitRatio >= 0.0f && w.hitRatio <= 1.0f && prop_ok(w.hitProp) &&
         (w.missProp == CU_ACCESS_PROPERTY_NORMAL || w.missProp == CU_ACCESS_PROPERTY_STREAMING) &&
         w.num_bytes <= max_window(spec);
}
CUresult stream_set_attribute(CUstream s, CUstreamAttrID id, const CUstreamAttrValue* v) {
  if (!v) return CUDA_ERROR_INVALID_VALUE;
  LOCKED;
  StreamAttributes& a = stream_attributes(s);
  switch (id) {
    case CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW:
      if (!valid_window(v->accessPolicyWindow, d.spec)) return CUDA_ERROR_INVALID_VALUE;
      a.window = v->accessPolicyWindow;
      return CUDA_SUCCESS;
    case CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY:
      if (v->syncPolicy < CU_SYNC_POLICY_AUTO || v->syncPolicy > CU_SYNC_POLICY_BLOCKING_SYNC)
        return CUDA_ERROR_INVALID_VALUE;
      a.sync_policy = v->syncPolicy;
      return CUDA_SUCCESS;
    case CU_STREAM_ATTRIBUTE_PRIORITY:
      // Clamped to cuCtxGetStreamPriorityRange's [-5, 0], as at creation.
      if (stream(s)) stream(s)->priority = std::clamp(v->priority, -5, 0);
      return CUDA_SUCCESS;
    case CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
      a.domain_map = v->memSyncDomainMap;
      return CUDA_SUCCESS;
    case CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN:
      if (v->memSyncDomain != CU_LAUNCH_MEM_SYNC_DOMAIN_DEFAULT &&
          v->memSyncDomain != CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE)
        return CUDA_ERROR_INVALID_VALUE;
      a.domain = v->memSyncDomain;
      return CUDA_SUCCESS;
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
}
CUresult stream_copy_attributes(CUstream dst, CUstream src) {
  LOCKED;
  stream_attributes(dst) = stream_attributes(src);
  if (stream(dst)) stream(dst)->priority = stream(src) ? stream(src)->priority : 0;
  return CUDA_SUCCESS;
}
CUresult stream_ctx(CUstream, CUcontext* c) {
  if (!c) return CUDA_ERROR_INVALID_VALUE;
  *c = the_context();
  return CUDA_SUCCESS;
}
CUresult stream_device(CUstream, CUdevice* dev) { return ctx_get_device(dev); }
CUresult stream_destroy(CUstream s) {
  {
    LOCKED;
    live_streams().erase(stream(s));
  }
  delete stream(s);
  return CUDA_SUCCESS;
}
CUresult stream_wait_event(CUstream s, CUevent e, unsigned) {
  if (!e) return CUDA_ERROR_INVALID_HANDLE;
  capture_wait_event(s, e);
  return CUDA_SUCCESS;
}
CUresult stream_add_callback(CUstream s, CUstreamCallback cb, void* user, unsigned) {
  LOCKED;
  if (!cb) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = capture_forbids(s, "cuStreamAddCallback (cudaStreamAddCallback)");
      r != CUDA_SUCCESS)
    return r;
  d.enqueue_host(s, [s, cb, user, &d] { cb(s, d.sticky, user); });
  return CUDA_SUCCESS;
}
// The operation a synchronization of stream `s` waits for: its last; the
// legacy default stream waits for every blocking stream, and the one
// device worker runs everything in submission order, so for it the last
// operation of all.
uint64_t stream_tail(CUstream s) {
  Driver& d = Driver::get();
  if (s == nullptr || s == CU_STREAM_LEGACY) return d.queue.submitted();
  return d.queue.last_of(s);
}
CUresult stream_synchronize(CUstream s) {
  if (CUresult r = capture_forbids(s, "cuStreamSynchronize (cudaStreamSynchronize)");
      r != CUDA_SUCCESS)
    return r;
  Driver& d = Driver::get();
  d.synchronize(stream_tail(s));
  Lock lock(d.mu);
  pools_synchronized();
  return d.sticky;
}
CUresult stream_query(CUstream s) {
  // Without the driver's lock: a kernel the worker runs holds it, and the
  // answer then is "not ready".
  Driver& d = Driver::get();
  if (!d.queue.done(stream_tail(s))) return CUDA_ERROR_NOT_READY;
  if (CUresult r = capture_forbids(s, "cuStreamQuery (cudaStreamQuery)"); r != CUDA_SUCCESS)
    return r;
  return d.sticky;
}
CUresult stream_attach_mem(CUstream, CUdeviceptr, size_t, unsigned) { return CUDA_SUCCESS; }

CUresult event_create(CUevent* e, unsigned) {
  LOCKED;
  if (!e) return CUDA_ERROR_INVALID_VALUE;
  d.events.push_back(std::make_unique<Event>());
  *e = reinterpret_cast<CUevent>(d.events.back().get());
  return CUDA_SUCCESS;
}
CUresult event_record(CUevent e, CUstream s) {
  if (!e) return CUDA_ERROR_INVALID_HANDLE;
  if (capture_event_record(e, s)) return CUDA_SUCCESS;
  auto* ev = reinterpret_cast<Event*>(e);
  LOCKED;
  ev->recorded = true;
  // The time is taken when the device reaches the record.
  ev->seq = d.enqueue(
      s, [ev] { ev->ms = now_ms(); }, "cuEventRecord");
  return CUDA_SUCCESS;
}
CUresult event_record_flags(CUevent e, CUstream s, unsigned) { return event_record(e, s); }
CUresult event_query(CUevent e) {
  if (!e) return CUDA_ERROR_INVALID_HANDLE;
  // Without the driver's lock, as stream_query.
  return Driver::get().queue.done(reinterpret_cast<Event*>(e)->seq) ? CUDA_SUCCESS
                                                                    : CUDA_ERROR_NOT_READY;
}
CUresult event_synchronize(CUevent e) {
  if (!e) return CUDA_ERROR_INVALID_HANDLE;
  Driver& d = Driver::get();
  d.synchronize(reinterpret_cast<Event*>(e)->seq);
  Lock lock(d.mu);
  pools_synchronized();
  return d.sticky;
}
CUresult event_destroy(CUevent e) {
  // A record still queued writes the event: it goes once that has run.
  if (e) Driver::get().queue.wait(reinterpret_cast<Event*>(e)->seq);
  LOCKED;
  for (auto it = d.events.begin(); it != d.events.end(); ++it)
    if (it->get() == reinterpret_cast<Event*>(e)) {
      d.events.erase(it);
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_INVALID_HANDLE;
}
// Wall-clock time of the emulation between the two records (not GPU time).
CUresult event_elapsed(float* ms, CUevent a, CUevent b) {
  if (!ms || !a || !b) return CUDA_ERROR_INVALID_VALUE;
  auto *x = reinterpret_cast<Event*>(a), *y = reinterpret_cast<Event*>(b);
  if (!x->recorded || !y->recorded) return CUDA_ERROR_INVALID_HANDLE;
  Driver& d = Driver::get();
  if (!d.queue.done(x->seq) || !d.queue.done(y->seq)) return CUDA_ERROR_NOT_READY;
  *ms = static_cast<float>(y->ms - x->ms);
  return CUDA_SUCCESS;
}

// ---- occupancy (as the occupancy calculator, with kAssumedRegisters) ------

int blocks_per_sm(const DeviceSpec& s, const emu::Program& p, int block, size_t dyn) {
  if (block <= 0) return 0;
  int warps = (block + 31) / 32;
  int by_threads = s.threads_per_sm / (warps * 32);
  int regs_per_warp = (kAssumedRegisters * 32 + 255) / 256 * 256;
  int by_regs = s.regs_per_sm / (regs_per_warp * warps);
  size_t shared = p.static_shared + dyn + static_cast<size_t>(s.reserved_shared_per_block);
  int by_shared =
      shared ? static_cast<int>(static_cast<size_t>(s.shared_per_sm) / shared) : s.blocks_per_sm;
  return std::max(0, std::min({s.blocks_per_sm, by_threads, by_regs, by_shared}));
}
CUresult occupancy_blocks(int* n, CUfunction hf, int block, size_t dyn, unsigned) {
  LOCKED;
  Function* f = fn(hf);
  if (!n || !f) return CUDA_ERROR_INVALID_VALUE;
  CUresult r;
  const emu::Program* p = d.program(f, "cuOccupancyMaxActiveBlocksPerMultiprocessor", &r);
  if (!p) return r;
  *n = blocks_per_sm(d.spec, *p, block, dyn);
  return CUDA_SUCCESS;
}
// cuOccupancyMaxActiveClusters: the clusters of config's shape (its
// cluster dimension, else the kernel's required one) that fit on the
// device at once, counted as blocks per SM x SMs / blocks per cluster.
// The GPU also packs each cluster into one GPC, so its count can be lower
// (docs/runtime.md).
CUresult occupancy_max_active_clusters(int* n, CUfunction hf, const CUlaunchConfig* c) {
  LOCKED;
  Function* f = fn(hf);
  if (!n || !f || !c) return CUDA_ERROR_INVALID_VALUE;
  CUresult r;
  const emu::Program* p = d.program(f, "cuOccupancyMaxActiveClusters", &r);
  if (!p) return r;
  emu::Dim3 attr{0, 0, 0};
  for (unsigned i = 0; i < c->numAttrs; ++i)
    if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
      attr = {c->attrs[i].value.clusterDim.x, c->attrs[i].value.clusterDim.y,
              c->attrs[i].value.clusterDim.z};
  if (!attr.x && !compiled_cluster(*f).x && !f->required_cluster.x) {
    d.error_line("cuOccupancyMaxActiveClusters of " + demangle(f->name) +
                 ": neither the launch configuration nor the kernel gives a cluster size");
    return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  }
  emu::LaunchConfig cfg;
  cfg.block = {c->blockDimX, c->blockDimY, c->blockDimZ};
  // The grid plays no part here: one cluster's worth.
  emu::Dim3 shape = attr.x                   ? attr
                    : compiled_cluster(*f).x ? compiled_cluster(*f)
                                             : f->required_cluster;
  cfg.grid = shape;
  if (CUresult e =
          d.cluster_shape(f, attr, cfg, "cuOccupancyMaxActiveClusters of " + demangle(f->name));
      e != CUDA_SUCCESS)
    return e;
  int per_sm =
      blocks_per_sm(d.spec, *p, static_cast<int>(std::min<uint64_t>(cfg.block.count(), 1u << 30)),
                    c->sharedMemBytes);
  *n = static_cast<int>(static_cast<uint64_t>(per_sm) * static_cast<uint64_t>(d.spec.sms) /
                        cfg.cluster.count());
  return CUDA_SUCCESS;
}
CUresult occupancy_blocks_v1(int* n, CUfunction f, int block, size_t dyn) {
  return occupancy_blocks(n, f, block, dyn, 0);
}
CUresult occupancy_available_smem(size_t* dyn, CUfunction hf, int blocks, int block) {
  LOCKED;
  Function* f = fn(hf);
  if (!dyn || !f || blocks <= 0) return CUDA_ERROR_INVALID_VALUE;
  CUresult r;
  const emu::Program* k = d.program(f, "cuOccupancyAvailableDynamicSMemPerBlock", &r);
  if (!k) return r;
  const emu::Program& p = *k;
  (void)block;
  int64_t per = d.spec.shared_per_sm / blocks - d.spec.reserved_shared_per_block -
                static_cast<int64_t>(p.static_shared);
  per =
      std::min<int64_t>(per, d.spec.shared_per_block_optin - static_cast<int64_t>(p.static_shared));
  *dyn = static_cast<size_t>(std::max<int64_t>(per, 0));
  return CUDA_SUCCESS;
}
CUresult occupancy_max_block_size(int* min_grid, int* block_size, CUfunction hf,
                                  CUoccupancyB2DSize to_dyn, size_t dyn, int limit, unsigned) {
  LOCKED;
  Function* f = fn(hf);
  if (!min_grid || !block_size || !f) return CUDA_ERROR_INVALID_VALUE;
  CUresult r;
  const emu::Program* k = d.program(f, "cuOccupancyMaxPotentialBlockSize", &r);
  if (!k) return r;
  const emu::Program& p = *k;
  int best = 0, best_threads = 0;
  int top = limit > 0 ? std::min(limit, 1024) : 1024;
  for (int b = 32; b <= top; b += 32) {
    size_t s = to_dyn ? to_dyn(b) : dyn;
    int n = blocks_per_sm(d.spec, p, b, s);
    if (n * b > best_threads) best_threads = n * b, best = b;
  }
  *block_size = best;
  *min_grid = best ? best_threads / best * d.spec.sms : 0;
  return CUDA_SUCCESS;
}
CUresult occupancy_max_block_size_v1(int* g, int* b, CUfunction f, CUoccupancyB2DSize t, size_t dyn,
                                     int limit) {
  return occupancy_max_block_size(g, b, f, t, dyn, limit, 0);
}

// ---- errors, profiler ------------------------------------------------------

struct ErrorText {
  CUresult code;
  const char *name, *text;
};
const ErrorText kErrors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU",
     "no kernel image is available for execution on the device"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {CUDA_ERROR_MISALIGNED_ADDRESS, "CUDA_ERROR_MISALIGNED_ADDRESS", "misaligned address"},
    {CUDA_ERROR_ASSERT, "CUDA_ERROR_ASSERT", "device-side assert triggered"},
    {CUDA_ERROR_ILLEGAL_INSTRUCTION, "CUDA_ERROR_ILLEGAL_INSTRUCTION",
     "an illegal instruction was encountered"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {CUDA_ERROR_UNSUPPORTED_LIMIT, "CUDA_ERROR_UNSUPPORTED_LIMIT",
     "limit is not supported on this architecture"},
};
CUresult get_error_string(CUresult e, const char** s) {
  if (!s) return CUDA_ERROR_INVALID_VALUE;
  for (const auto& x : kErrors)
    if (x.code == e) {
      *s = x.text;
      return CUDA_SUCCESS;
    }
  *s = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}
CUresult get_error_name(CUresult e, const char** s) {
  if (!s) return CUDA_ERROR_INVALID_VALUE;
  for (const auto& x : kErrors)
    if (x.code == e) {
      *s = x.name;
      return CUDA_SUCCESS;
    }
  *s = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}
// Profiler ranges only bracket what a profiler would record: nothing here.
CUresult profiler_start() { return CUDA_SUCCESS; }
CUresult profiler_stop() { return CUDA_SUCCESS; }

#define E SMEMLAB_ENTRY
const EntryPoint kEntries[] = {
    E("cuInit", 2000, init),
    E("cuDriverGetVersion", 2020, driver_version),
    E("cuDeviceGet", 2000, device_get),
    E("cuDeviceGetCount", 2000, device_count),
    E("cuDeviceGetName", 2000, device_name),
    E("cuDeviceTotalMem", 3020, device_total_mem),
    E("cuDeviceGetAttribute", 2000, device_attribute_),
    E("cuDeviceGetUuid", 9020, device_uuid),
    E("cuDeviceGetUuid", 11040, device_uuid),
    E("cuDeviceGetPCIBusId", 4010, device_pci_bus_id),
    E("cuDeviceCanAccessPeer", 4000, device_can_access_peer),
    E("cuDeviceGetP2PAttribute", 8000, device_p2p_attribute),
    E("cuDeviceGetTexture1DLinearMaxWidth", 11010, device_tex1d_max_width),
    E("cuDevicePrimaryCtxRetain", 7000, primary_retain),
    E("cuDevicePrimaryCtxRelease", 7000, primary_release),
    E("cuDevicePrimaryCtxSetFlags", 7000, primary_set_flags),
    E("cuDevicePrimaryCtxGetState", 7000, primary_state),
    E("cuDevicePrimaryCtxReset", 7000, primary_reset),
    E("cuCtxGetCurrent", 4000, ctx_get_current),
    E("cuCtxSetCurrent", 4000, ctx_set_current),
    E("cuCtxPushCurrent", 4000, ctx_push),
    E("cuCtxPopCurrent", 4000, ctx_pop),
    E("cuCtxGetDevice", 2000, ctx_get_device),
    E("cuCtxGetDevice", 13000, ctx_get_device_v2),
    E("cuCtxSynchronize", 2000, ctx_synchronize),
    E("cuCtxSynchronize", 13000, ctx_synchronize_v2),
    E("cuCtxGetFlags", 7000, ctx_get_flags),
    E("cuCtxCreate", 3020, ctx_create_v2),
    E("cuCtxCreate", 11040, ctx_create_v3),
    E("cuCtxCreate", 12050, ctx_create_v4),
    E("cuCtxDestroy", 4000, ctx_destroy),
    E("cuCtxGetApiVersion", 3020, ctx_api_version),
    E("cuCtxGetLimit", 3010, ctx_get_limit),
    E("cuCtxSetLimit", 3010, ctx_set_limit),
    E("cuCtxGetCacheConfig", 3020, ctx_get_cache_config),
    E("cuCtxSetCacheConfig", 3020, ctx_set_cache_config),
    E("cuCtxGetSharedMemConfig", 4020, ctx_get_shared_config),
    E("cuCtxSetSharedMemConfig", 4020, ctx_set_shared_config),
    E("cuCtxGetStreamPriorityRange", 5050, ctx_stream_priority_range),
    E("cuCtxResetPersistingL2Cache", 11000, ctx_reset_persisting_l2),
    E("cuModuleGetLoadingMode", 11070, module_loading_mode),
    E("cuModuleLoadData", 2000, module_load_data),
    E("cuModuleLoadFatBinary", 2000, module_load_data),
    E("cuModuleUnload", 2000, module_unload),
    E("cuModuleGetFunction", 2000, module_get_function),
    E("cuModuleGetGlobal", 3020, module_get_global),
    E("cuLibraryLoadData", 12000, library_load_data),
    E("cuLibraryUnload", 12000, library_unload),
    E("cuLibraryGetKernel", 12000, library_get_kernel),
    E("cuLibraryGetModule", 12000, library_get_module),
    E("cuKernelGetFunction", 12000, kernel_get_function),
    E("cuKernelGetLibrary", 12050, kernel_get_library),
    E("cuLibraryGetGlobal", 12000, library_get_global),
    E("cuLibraryGetManaged", 12000, library_get_global),
    E("cuKernelGetAttribute", 12000, kernel_get_attribute),
    E("cuKernelSetAttribute", 12000, kernel_set_attribute),
    E("cuKernelSetCacheConfig", 12000, kernel_set_cache_config),
    E("cuKernelGetName", 12030, kernel_get_name),
    E("cuKernelGetParamInfo", 12040, kernel_param_info),
    E("cuFuncGetAttribute", 2020, func_get_attribute),
    E("cuFuncSetAttribute", 9000, func_set_attribute),
    E("cuFuncSetCacheConfig", 3000, func_set_cache_config),
    E("cuFuncSetSharedMemConfig", 4020, func_set_shared_config),
    E("cuFuncGetName", 12030, func_get_name),
    E("cuFuncGetParamInfo", 12040, func_param_info),
    E("cuMemGetInfo", 3020, mem_get_info),
    E("cuMemAlloc", 3020, mem_alloc),
    E("cuMemAllocPitch", 3020, mem_alloc_pitch),
    E("cuMemAllocManaged", 6000, mem_alloc_managed),
    E("cuMemFree", 3020, mem_free),
    E("cuMemAllocHost", 3020, mem_alloc_host),
    E("cuMemHostAlloc", 2020, mem_host_alloc),
    E("cuMemFreeHost", 2000, mem_free_host),
    E("cuMemHostGetDevicePointer", 3020, mem_host_get_device_pointer),
    E("cuMemHostGetFlags", 2030, mem_host_get_flags),
    E("cuMemHostRegister", 4000, mem_host_register),
    E("cuMemHostUnregister", 4000, mem_host_unregister),
    E("cuMemGetAddressRange", 3020, mem_get_address_range),
    E("cuPointerGetAttribute", 4000, pointer_attribute),
    E("cuPointerGetAttributes", 7000, pointer_attributes),
    E("cuMemcpy", 4000, memcpy_any),
    E("cuMemcpyAsync", 4000, memcpy_any_async),
    E("cuMemcpyPeer", 4000, memcpy_peer),
    E("cuMemcpyPeerAsync", 4000, memcpy_peer_async),
    E("cuMemcpyHtoD", 3020, memcpy_htod),
    E("cuMemcpyHtoDAsync", 3020, memcpy_htod_async),
    E("cuMemcpyDtoH", 3020, memcpy_dtoh),
    E("cuMemcpyDtoHAsync", 3020, memcpy_dtoh_async),
    E("cuMemcpyDtoD", 3020, memcpy_dtod),
    E("cuMemcpyDtoDAsync", 3020, memcpy_dtod_async),
    E("cuMemcpy2D", 3020, memcpy_2d),
    E("cuMemcpy2DUnaligned", 3020, memcpy_2d),
    E("cuMemcpy2DAsync", 3020, memcpy_2d_async),
    E("cuMemcpy3D", 3020, memcpy_3d),
    E("cuMemcpy3DAsync", 3020, memcpy_3d_async),
    E("cuMemsetD8", 3020, memset_d8),
    E("cuMemsetD8Async", 3020, memset_d8_async),
    E("cuMemsetD16", 3020, memset_d16),
    E("cuMemsetD32", 3020, memset_d32),
    E("cuMemsetD2D8", 3020, memset_d2d8),
    E("cuMemsetD2D8Async", 3020, memset_d2d8_async),
    E("cuMemsetD16Async", 3020, memset_d16_async),
    E("cuMemsetD32Async", 3020, memset_d32_async),
    E("cuMemsetD2D16", 3020, memset_d2d16),
    E("cuMemsetD2D32", 3020, memset_d2d32),
    E("cuMemsetD2D16Async", 3020, memset_d2d16_async),
    E("cuMemsetD2D32Async", 3020, memset_d2d32_async),
    E("cuMemAdvise", 8000, mem_advise_v1),
    E("cuMemAdvise", 12020, mem_advise),
    E("cuMemPrefetchAsync", 8000, mem_prefetch_v1),
    E("cuMemPrefetchAsync", 12020, mem_prefetch),
    E("cuLaunchKernel", 4000, launch_kernel),
    E("cuLaunchCooperativeKernel", 9000, launch_cooperative),
    E("cuLaunchKernelEx", 11060, launch_kernel_ex),
    E("cuTexObjectCreate", 5000, tex_object_create),
    E("cuTexObjectDestroy", 5000, tex_object_destroy),
    E("cuTexObjectGetResourceDesc", 5000, tex_object_resource_desc),
    E("cuTexObjectGetTextureDesc", 5000, tex_object_texture_desc),
    E("cuSurfObjectCreate", 5000, surf_object_create),
    E("cuSurfObjectDestroy", 5000, surf_object_destroy),
    E("cuSurfObjectGetResourceDesc", 5000, surf_object_resource_desc),
    E("cuMemcpyHtoA", 3020, memcpy_htoa),
    E("cuMemcpyAtoH", 3020, memcpy_atoh),
    E("cuMemcpyDtoA", 3020, memcpy_dtoa),
    E("cuMemcpyAtoD", 3020, memcpy_atod),
    E("cuMemcpyAtoA", 3020, memcpy_atoa),
    E("cuMemcpyHtoAAsync", 3020, memcpy_htoa_async),
    E("cuMemcpyAtoHAsync", 3020, memcpy_atoh_async),
    E("cuArrayCreate", 3020, array_create),
    E("cuArray3DCreate", 3020, array_3d_create),
    E("cuArrayDestroy", 2000, array_destroy),
    E("cuArrayGetDescriptor", 3020, array_descriptor),
    E("cuArray3DGetDescriptor", 3020, array_3d_descriptor),
    E("cuLaunchHostFunc", 10000, launch_host_func),
    E("cuStreamCreate", 2000, stream_create),
    E("cuStreamCreateWithPriority", 5050, stream_create_priority),
    E("cuStreamGetPriority", 5050, stream_priority),
    E("cuStreamGetFlags", 5050, stream_flags),
    E("cuStreamGetAttribute", 11000, stream_get_attribute),
    E("cuStreamSetAttribute", 11000, stream_set_attribute),
    E("cuStreamCopyAttributes", 11000, stream_copy_attributes),
    E("cuStreamGetId", 12000, stream_id),
    E("cuStreamGetCtx", 9020, stream_ctx),
    E("cuStreamGetDevice", 12080, stream_device),
    E("cuStreamDestroy", 4000, stream_destroy),
    E("cuStreamWaitEvent", 3020, stream_wait_event),
    E("cuStreamAddCallback", 5000, stream_add_callback),
    E("cuStreamSynchronize", 2000, stream_synchronize),
    E("cuStreamQuery", 2000, stream_query),
    E("cuStreamAttachMemAsync", 6000, stream_attach_mem),
    E("cuEventCreate", 2000, event_create),
    E("cuEventRecord", 2000, event_record),
    E("cuEventRecordWithFlags", 11010, event_record_flags),
    E("cuEventQuery", 2000, event_query),
    E("cuEventSynchronize", 2000, event_synchronize),
    E("cuEventDestroy", 4000, event_destroy),
    E("cuEventElapsedTime", 2000, event_elapsed),
    E("cuEventElapsedTime", 12080, event_elapsed),
    E("cuOccupancyMaxActiveBlocksPerMultiprocessor", 6050, occupancy_blocks_v1),
    E("cuOccupancyMaxActiveClusters", 11070, occupancy_max_active_clusters),
    E("cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", 7000, occupancy_blocks),
    E("cuOccupancyAvailableDynamicSMemPerBlock", 10020, occupancy_available_smem),
    E("cuOccupancyMaxPotentialBlockSize", 6050, occupancy_max_block_size_v1),
    E("cuOccupancyMaxPotentialBlockSizeWithFlags", 7000, occupancy_max_block_size),
    E("cuGetErrorString", 6000, get_error_string),
    E("cuGetErrorName", 6000, get_error_name),
    E("cuProfilerStart", 4000, profiler_start),
    E("cuProfilerStop", 4000, profiler_stop),
};
#undef E

}  // namespace

const EntryPoint* find_entry(const char* name, int version) {
  const EntryPoint* best = nullptr;
  auto consider = [&](const EntryPoint& e) {
    if (std::strcmp(e.name, name) == 0 && e.version <= version &&
        (!best || e.version > best->version))
      best = &e;
  };
  for (const auto& e : kEntries) consider(e);
  for (const auto& e : pool_entries()) consider(e);
  for (const auto& e : vmm_entries()) consider(e);
  for (const auto& e : graph_entries()) consider(e);
  for (const auto& e : tensor_map_entries()) consider(e);
  return best;
}

}  // namespace smemlab::runtime
