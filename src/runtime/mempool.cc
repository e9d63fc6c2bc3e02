// Memory pools over the driver's allocations. Streams run in issue order, so
// an allocation or free "in stream order" happens when it is issued; what is
// modelled is the pool's accounting: bytes in use, bytes it keeps reserved
// after frees (given back at synchronization above the release threshold,
// or by cuMemPoolTrimTo), and its limit (maxSize). The memory of a freed
// allocation is unmapped at once, so any later use of the pointer is caught
// (as use-after-free) rather than silently reading a reused block.
#include "runtime/mempool.h"

#include <cuda.h>
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

#include "runtime/driver.h"
#include "runtime/graph.h"
#include "runtime/graph_model.h"
#include "runtime/guard.h"

namespace smemlab::runtime {

struct MemPool {
  CUmemPoolProps props{};
  MemKind kind = MemKind::Device;
  bool is_default = false;
  bool destroyed = false;
  uint64_t used = 0, used_high = 0;
  uint64_t kept = 0;  // freed bytes the pool still holds (reserved - used)
  uint64_t reserved_high = 0;
  uint64_t threshold = 0;
  int follow_events = 1, opportunistic = 1, internal_deps = 1;
  std::string origin;

  uint64_t reserved() const { return used + kept; }
  void trim_to(uint64_t keep) { kept = std::min(kept, keep > used ? keep - used : 0); }
};

namespace {

using Lock = std::lock_guard<DriverMutex>;
#define LOCKED               \
  Driver& d = Driver::get(); \
  Lock lock(d.mu);           \
  (void)d

// Never destroyed: cudart's exit handler may call in after static destructors.
std::vector<std::unique_ptr<MemPool>>& pools() {
  static auto* p = new std::vector<std::unique_ptr<MemPool>>();
  return *p;
}
// (kind) -> the default pool and the current pool of that kind of memory.
std::map<MemKind, MemPool*>& defaults() {
  static auto* m = new std::map<MemKind, MemPool*>();
  return *m;
}
std::map<MemKind, MemPool*>& currents() {
  static auto* m = new std::map<MemKind, MemPool*>();
  return *m;
}

MemPool* live(CUmemoryPool h) {
  for (auto& p : pools())
    if (reinterpret_cast<CUmemoryPool>(p.get()) == h) return p->destroyed ? nullptr : p.get();
  return nullptr;
}

const char* kind_name(MemKind k) {
  return k == MemKind::Host ? "pinned host" : k == MemKind::Managed ? "managed" : "device";
}

// The kind of memory a location and allocation type name (one device: 0;
// host NUMA nodes are all the one host).
CUresult kind_of(const CUmemLocation* loc, CUmemAllocationType type, MemKind* out) {
  if (!loc) return CUDA_ERROR_INVALID_VALUE;
  if (type == CU_MEM_ALLOCATION_TYPE_MANAGED) {
    if (loc->type == CU_MEM_LOCATION_TYPE_DEVICE && loc->id != 0) return CUDA_ERROR_INVALID_DEVICE;
    *out = MemKind::Managed;
    return CUDA_SUCCESS;
  }
  if (type != CU_MEM_ALLOCATION_TYPE_PINNED) return CUDA_ERROR_INVALID_VALUE;
  switch (loc->type) {
    case CU_MEM_LOCATION_TYPE_DEVICE:
      if (loc->id != 0) return CUDA_ERROR_INVALID_DEVICE;
      *out = MemKind::Device;
      return CUDA_SUCCESS;
    case CU_MEM_LOCATION_TYPE_HOST:
    case CU_MEM_LOCATION_TYPE_HOST_NUMA:
    case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT:
      *out = MemKind::Host;
      return CUDA_SUCCESS;
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
}

MemPool* default_pool(MemKind k) {
  MemPool*& p = defaults()[k];
  if (!p) {
    pools().push_back(std::make_unique<MemPool>());
    p = pools().back().get();
    p->kind = k;
    p->is_default = true;
    p->props.allocType =
        k == MemKind::Managed ? CU_MEM_ALLOCATION_TYPE_MANAGED : CU_MEM_ALLOCATION_TYPE_PINNED;
    p->props.location.type =
        k == MemKind::Host ? CU_MEM_LOCATION_TYPE_HOST : CU_MEM_LOCATION_TYPE_DEVICE;
    p->props.location.id = 0;
    p->origin = fmt::format("the default {} memory pool", kind_name(k));
  }
  return p;
}

MemPool* current_pool(MemKind k) {
  MemPool*& p = currents()[k];
  if (!p || p->destroyed) p = default_pool(k);
  return p;
}

// A pool other than the default device pool in a capture: its graph memory
// node would need the pool's properties, which the emulator does not model.
CUresult refuse_pool_in_capture(Driver& d, CUstream s, const char* api) {
  if (!captured(s)) return CUDA_SUCCESS;
  d.error_line(
      fmt::format("{} on a stream being captured (a graph memory node from a pool) is "
                  "not supported by the emulator; cudaMallocAsync from the default pool is",
                  api));
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult alloc_from(Driver& d, MemPool* pool, CUdeviceptr* dptr, size_t bytes) {
  if (!dptr) return CUDA_ERROR_INVALID_VALUE;
  if (bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  if (pool->props.maxSize && pool->used + bytes > pool->props.maxSize)
    return CUDA_ERROR_OUT_OF_MEMORY;
  uint64_t a = 0;
  CUresult r = d.allocate(bytes, pool->kind, &a);
  if (r != CUDA_SUCCESS) return r;
  d.allocs[a].pool = pool;
  pool->kept -= std::min<uint64_t>(pool->kept, bytes);  // served from what it kept first
  pool->used += bytes;
  pool->used_high = std::max(pool->used_high, pool->used);
  pool->reserved_high = std::max(pool->reserved_high, pool->reserved());
  *dptr = a;
  return CUDA_SUCCESS;
}

// ---- entry points ----------------------------------------------------------

CUresult mem_alloc_async(CUdeviceptr* dptr, size_t bytes, CUstream s) {
  LOCKED;
  if (captured(s)) return capture_mem_alloc(s, bytes, dptr);  // a memory allocation node
  return alloc_from(d, current_pool(MemKind::Device), dptr, bytes);
}
CUresult mem_alloc_from_pool_async(CUdeviceptr* dptr, size_t bytes, CUmemoryPool h, CUstream s) {
  LOCKED;
  if (CUresult r =
          refuse_pool_in_capture(d, s, "cuMemAllocFromPoolAsync (cudaMallocFromPoolAsync)");
      r != CUDA_SUCCESS)
    return r;
  MemPool* p = live(h);
  if (!p) return CUDA_ERROR_INVALID_VALUE;
  return alloc_from(d, p, dptr, bytes);
}
// Frees any allocation, as the driver's does (cudaMalloc'd memory too).
CUresult mem_free_async(CUdeviceptr dptr, CUstream s) {
  LOCKED;
  if (captured(s)) return capture_mem_free(s, dptr);  // a memory free node
  // Freed in stream order; what is not an allocation is said now.
  // (A graph allocation is known at its address before the launch that makes it has run.)
  if (!d.allocs.count(dptr) && !graphs::is_graph_memory(dptr))
    return d.release(dptr, "cudaFreeAsync");
  d.enqueue(
      s, [dptr, &d] { d.release(dptr, "cudaFreeAsync"); }, "cudaFreeAsync");
  return CUDA_SUCCESS;
}

CUresult pool_create(CUmemoryPool* out, const CUmemPoolProps* props) {
  LOCKED;
  if (!out || !props) return CUDA_ERROR_INVALID_VALUE;
  MemKind k;
  if (CUresult r = kind_of(&props->location, props->allocType, &k); r != CUDA_SUCCESS) return r;
  if (props->handleTypes != CU_MEM_HANDLE_TYPE_NONE) {
    d.error_line(
        fmt::format("cuMemPoolCreate (cudaMemPoolCreate): exportable pools (handleTypes "
                    "0x{:x}, for IPC) are not supported by the emulator",
                    static_cast<unsigned>(props->handleTypes)));
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  if (props->usage != 0) {
    d.error_line(
        fmt::format("cuMemPoolCreate (cudaMemPoolCreate): pool usage flags 0x{:x} "
                    "(hardware decompression) are not supported by the emulator",
                    props->usage));
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  pools().push_back(std::make_unique<MemPool>());
  MemPool* p = pools().back().get();
  p->props = *props;
  p->kind = k;
  p->origin = fmt::format("memory pool 0x{:x}", reinterpret_cast<uintptr_t>(p));
  *out = reinterpret_cast<CUmemoryPool>(p);
  return CUDA_SUCCESS;
}
// Allocations still outstanding stay valid (the driver frees the pool once
// they are freed); a leak of one is still a leak.
CUresult pool_destroy(CUmemoryPool h) {
  LOCKED;
  MemPool* p = live(h);
  if (!p || p->is_default) return CUDA_ERROR_INVALID_VALUE;
  p->destroyed = true;
  return CUDA_SUCCESS;
}
CUresult pool_trim_to(CUmemoryPool h, size_t keep) {
  LOCKED;
  MemPool* p = live(h);
  if (!p) return CUDA_ERROR_INVALID_VALUE;
  p->trim_to(keep);
  return CUDA_SUCCESS;
}
CUresult pool_set_attribute(CUmemoryPool h, CUmemPool_attribute a, void* v) {
  LOCKED;
  MemPool* p = live(h);
  if (!p || !v) return CUDA_ERROR_INVALID_VALUE;
  auto u64 = [&] { return *static_cast<cuuint64_t*>(v); };
  switch (a) {
    case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
      p->follow_events = *static_cast<int*>(v);
      break;
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
      p->opportunistic = *static_cast<int*>(v);
      break;
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
      p->internal_deps = *static_cast<int*>(v);
      break;
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
      p->threshold = u64();
      break;
    // The high-water marks can only be reset (to the current value), with 0.
    case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
      if (u64() != 0) return CUDA_ERROR_INVALID_VALUE;
      p->reserved_high = p->reserved();
      break;
    case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
      if (u64() != 0) return CUDA_ERROR_INVALID_VALUE;
      p->used_high = p->used;
      break;
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}
CUresult pool_get_attribute(CUmemoryPool h, CUmemPool_attribute a, void* v) {
  LOCKED;
  MemPool* p = live(h);
  if (!p || !v) return CUDA_ERROR_INVALID_VALUE;
  auto* u64 = static_cast<cuuint64_t*>(v);
  switch (a) {
    case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
      *static_cast<int*>(v) = p->follow_events;
      break;
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
      *static_cast<int*>(v) = p->opportunistic;
      break;
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
      *static_cast<int*>(v) = p->internal_deps;
      break;
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
      *u64 = p->threshold;
      break;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT:
      *u64 = p->reserved();
      break;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
      *u64 = p->reserved_high;
      break;
    case CU_MEMPOOL_ATTR_USED_MEM_CURRENT:
      *u64 = p->used;
      break;
    case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
      *u64 = p->used_high;
      break;
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}
// One device: it can always access its own pools, and the host memory pools.
CUresult pool_set_access(CUmemoryPool h, const CUmemAccessDesc* map, size_t count) {
  LOCKED;
  MemPool* p = live(h);
  if (!p || (!map && count)) return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; i < count; ++i) {
    if (map[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE) return CUDA_ERROR_INVALID_VALUE;
    if (map[i].location.id != 0) return CUDA_ERROR_INVALID_DEVICE;
    // The owning device's access cannot be taken away.
    if (p->kind == MemKind::Device && map[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
      return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}
CUresult pool_get_access(CUmemAccess_flags* flags, CUmemoryPool h, CUmemLocation* loc) {
  LOCKED;
  if (!flags || !loc || !live(h)) return CUDA_ERROR_INVALID_VALUE;
  if (loc->type != CU_MEM_LOCATION_TYPE_DEVICE) return CUDA_ERROR_INVALID_VALUE;
  if (loc->id != 0) return CUDA_ERROR_INVALID_DEVICE;
  *flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  return CUDA_SUCCESS;
}

CUresult device_default_pool(CUmemoryPool* out, CUdevice dev) {
  LOCKED;
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  *out = reinterpret_cast<CUmemoryPool>(default_pool(MemKind::Device));
  return CUDA_SUCCESS;
}
CUresult device_get_pool(CUmemoryPool* out, CUdevice dev) {
  LOCKED;
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  *out = reinterpret_cast<CUmemoryPool>(current_pool(MemKind::Device));
  return CUDA_SUCCESS;
}
CUresult device_set_pool(CUdevice dev, CUmemoryPool h) {
  LOCKED;
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  MemPool* p = live(h);
  if (!p || p->kind != MemKind::Device) return CUDA_ERROR_INVALID_VALUE;
  currents()[MemKind::Device] = p;
  return CUDA_SUCCESS;
}
CUresult mem_default_pool(CUmemoryPool* out, CUmemLocation* loc, CUmemAllocationType type) {
  LOCKED;
  MemKind k;
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = kind_of(loc, type, &k); r != CUDA_SUCCESS) return r;
  *out = reinterpret_cast<CUmemoryPool>(default_pool(k));
  return CUDA_SUCCESS;
}
CUresult mem_get_pool(CUmemoryPool* out, CUmemLocation* loc, CUmemAllocationType type) {
  LOCKED;
  MemKind k;
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = kind_of(loc, type, &k); r != CUDA_SUCCESS) return r;
  *out = reinterpret_cast<CUmemoryPool>(current_pool(k));
  return CUDA_SUCCESS;
}
CUresult mem_set_pool(CUmemLocation* loc, CUmemAllocationType type, CUmemoryPool h) {
  LOCKED;
  MemKind k;
  if (CUresult r = kind_of(loc, type, &k); r != CUDA_SUCCESS) return r;
  MemPool* p = live(h);
  if (!p || p->kind != k) return CUDA_ERROR_INVALID_VALUE;
  currents()[k] = p;
  return CUDA_SUCCESS;
}

}  // namespace

void pool_released(MemPool* pool, uint64_t bytes) {
  pool->used -= std::min(pool->used, bytes);
  pool->kept += bytes;
}

void pools_synchronized() {
  for (auto& p : pools())
    if (p->reserved() > p->threshold) p->trim_to(p->threshold);
}

const char* pool_origin(const MemPool* pool) { return pool->origin.c_str(); }

const std::vector<EntryPoint>& pool_entries() {
#define E SMEMLAB_ENTRY
  static const std::vector<EntryPoint> entries = {
      E("cuMemAllocAsync", 11020, mem_alloc_async),
      E("cuMemAllocFromPoolAsync", 11020, mem_alloc_from_pool_async),
      E("cuMemFreeAsync", 11020, mem_free_async),
      E("cuMemPoolCreate", 11020, pool_create),
      E("cuMemPoolDestroy", 11020, pool_destroy),
      E("cuMemPoolTrimTo", 11020, pool_trim_to),
      E("cuMemPoolSetAttribute", 11020, pool_set_attribute),
      E("cuMemPoolGetAttribute", 11020, pool_get_attribute),
      E("cuMemPoolSetAccess", 11020, pool_set_access),
      E("cuMemPoolGetAccess", 11020, pool_get_access),
      E("cuDeviceGetDefaultMemPool", 11020, device_default_pool),
      E("cuDeviceGetMemPool", 11020, device_get_pool),
      E("cuDeviceSetMemPool", 11020, device_set_pool),
      E("cuMemGetDefaultMemPool", 13000, mem_default_pool),
      E("cuMemGetMemPool", 13000, mem_get_pool),
      E("cuMemSetMemPool", 13000, mem_set_pool),
  };
#undef E
  return entries;
}

}  // namespace smemlab::runtime
