// Virtual memory management (cuMemCreate, cuMemAddressReserve, cuMemMap,
// cuMemSetAccess ...). A physical allocation is a memfd of its size; a
// reservation is an inaccessible anonymous mapping; cuMemMap maps the memfd
// over part of a reservation (MAP_SHARED, so two mappings of one allocation
// alias as on the GPU), still without access; cuMemSetAccess opens it. Each
// maximal run of accessible, contiguous mappings of a reservation is one
// ordinary device allocation of the driver and the emulator, so kernels,
// copies, check and analyze see it as cudaMalloc's memory; an address that
// is reserved but not mapped or not accessible is in no allocation, and an
// access there faults as any unmapped address does.
#include "runtime/vmm.h"

#include <cuda.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

#include "runtime/driver.h"
#include "runtime/guard.h"

namespace smemlab::runtime {
namespace {

// The H100's answer for both granularities (minimum and recommended).
constexpr uint64_t kVmmGranularity = 2ull << 20;

struct Physical {
  CUmemAllocationProp props{};
  uint64_t size = 0;
  int fd = -1;
  int refs = 1;      // the handle's own reference (cuMemCreate, cuMemRetainAllocationHandle)
  int mappings = 0;  // live cuMemMap ranges of it
};
struct Mapping {
  uint64_t size = 0;
  Physical* phys = nullptr;
  CUmemAccess_flags access = CU_MEM_ACCESS_FLAGS_PROT_NONE;
};
struct Reservation {
  uint64_t size = 0;
  std::map<uint64_t, Mapping> maps;  // by base
  std::vector<uint64_t> runs;        // bases of the device allocations made of its runs
};

using Lock = std::lock_guard<DriverMutex>;
#define VMM_LOCKED           \
  Driver& d = Driver::get(); \
  Lock lock(d.mu);           \
  (void)d

// Never destroyed: cudart's exit handler may call in after static destructors.
std::map<uint64_t, std::unique_ptr<Physical>>& physicals() {
  static auto* m = new std::map<uint64_t, std::unique_ptr<Physical>>();
  return *m;
}
std::map<uint64_t, Reservation>& reservations() {
  static auto* m = new std::map<uint64_t, Reservation>();
  return *m;
}

Physical* physical(CUmemGenericAllocationHandle h) {
  auto it = physicals().find(h);
  return it == physicals().end() || it->second->refs == 0 ? nullptr : it->second.get();
}
void drop_if_unused(Physical* p) {
  if (p->refs > 0 || p->mappings > 0) return;
  ::close(p->fd);
  physicals().erase(reinterpret_cast<uint64_t>(p));
}

// The reservation holding [addr, addr+size), or null.
Reservation* reservation_of(uint64_t addr, uint64_t size, uint64_t* base) {
  auto it = reservations().upper_bound(addr);
  if (it == reservations().begin()) return nullptr;
  --it;
  if (addr - it->first >= it->second.size || size > it->second.size - (addr - it->first))
    return nullptr;
  *base = it->first;
  return &it->second;
}

// Remakes the device allocations of reservation `r`: one per maximal run of
// contiguous mappings that the device may read and write.
void remake_runs(Driver& d, Reservation& r) {
  for (uint64_t b : r.runs) d.unmap_vmm_run(b);
  r.runs.clear();
  uint64_t start = 0, end = 0;
  auto flush = [&] {
    if (end > start && d.map_vmm_run(start, end - start) == CUDA_SUCCESS) r.runs.push_back(start);
    start = end = 0;
  };
  for (const auto& [b, m] : r.maps) {
    if (m.access != CU_MEM_ACCESS_FLAGS_PROT_READWRITE) {
      flush();
      continue;
    }
    if (b != end) flush();
    if (!start) start = b;
    end = b + m.size;
  }
  flush();
}

CUresult granularity(size_t* out, const CUmemAllocationProp* prop,
                     CUmemAllocationGranularity_flags option) {
  if (!out || !prop || option > CU_MEM_ALLOC_GRANULARITY_RECOMMENDED)
    return CUDA_ERROR_INVALID_VALUE;
  if (prop->type != CU_MEM_ALLOCATION_TYPE_PINNED) return CUDA_ERROR_INVALID_VALUE;
  if (prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE) return CUDA_ERROR_INVALID_VALUE;
  if (prop->location.id != 0) return CUDA_ERROR_INVALID_DEVICE;
  *out = kVmmGranularity;
  return CUDA_SUCCESS;
}

CUresult create(CUmemGenericAllocationHandle* h, size_t size, const CUmemAllocationProp* prop,
                unsigned long long flags) {
  VMM_LOCKED;
  if (!h || !prop || flags || size == 0 || size % kVmmGranularity) return CUDA_ERROR_INVALID_VALUE;
  if (prop->type != CU_MEM_ALLOCATION_TYPE_PINNED || prop->win32HandleMetaData)
    return CUDA_ERROR_INVALID_VALUE;
  if (prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE) {
    d.note(
        fmt::format("cuMemCreate: location type {} (host memory through cuMemCreate) is not "
                    "supported by smemlab's emulated driver (device memory is); it returned "
                    "CUDA_ERROR_NOT_SUPPORTED",
                    static_cast<int>(prop->location.type)));
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  if (prop->location.id != 0) return CUDA_ERROR_INVALID_DEVICE;
  uint64_t used = 0;
  for (const auto& [b, a] : d.allocs) used += a.size;
  if (used + size > d.spec.total_memory) return CUDA_ERROR_OUT_OF_MEMORY;
  int fd = ::memfd_create("smemlab-cuMemCreate", MFD_CLOEXEC);
  if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(size)) != 0) {
    if (fd >= 0) ::close(fd);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  auto p = std::make_unique<Physical>();
  p->props = *prop;
  p->props.allocFlags.compressionType = 0;  // not compressible: what the properties then report
  p->size = size;
  p->fd = fd;
  *h = reinterpret_cast<uint64_t>(p.get());
  physicals()[*h] = std::move(p);
  return CUDA_SUCCESS;
}

CUresult release(CUmemGenericAllocationHandle h) {
  VMM_LOCKED;
  Physical* p = physical(h);
  if (!p) return CUDA_ERROR_INVALID_VALUE;
  --p->refs;
  drop_if_unused(p);
  return CUDA_SUCCESS;
}

CUresult address_reserve(CUdeviceptr* out, size_t size, size_t align, CUdeviceptr hint,
                         unsigned long long flags) {
  VMM_LOCKED;
  if (!out || size == 0 || size % kVmmGranularity || (align & (align - 1)) || flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  align = std::max<uint64_t>(align, kVmmGranularity);
  // Over-reserve by the alignment, then give back what lies outside the aligned range.
  uint64_t len = size + align;
  void* at = ::mmap(reinterpret_cast<void*>(hint), len, PROT_NONE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (at == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
  uint64_t raw = reinterpret_cast<uint64_t>(at), base = (raw + align - 1) & ~(align - 1);
  if (base > raw) ::munmap(at, base - raw);
  if (raw + len > base + size)
    ::munmap(reinterpret_cast<void*>(base + size), raw + len - base - size);
  if (!emu::is_global_address(base) || !emu::is_global_address(base + size - 1)) {
    ::munmap(reinterpret_cast<void*>(base), size);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  reservations()[base] = Reservation{size, {}, {}};
  d.reserve_vmm_range(base, size);
  *out = base;
  return CUDA_SUCCESS;
}

CUresult address_free(CUdeviceptr ptr, size_t size) {
  VMM_LOCKED;
  auto it = reservations().find(ptr);
  if (it == reservations().end() || it->second.size != size) return CUDA_ERROR_INVALID_VALUE;
  if (!it->second.maps.empty()) {
    d.note(
        fmt::format("cuMemAddressFree(0x{:x}, {}): {} range(s) of it are still mapped "
                    "(cuMemUnmap them first)",
                    ptr, size, it->second.maps.size()));
    return CUDA_ERROR_INVALID_VALUE;
  }
  ::munmap(reinterpret_cast<void*>(ptr), size);
  d.free_vmm_range(ptr);
  reservations().erase(it);
  return CUDA_SUCCESS;
}

// The mappings of `r` inside [ptr, ptr+size): they must cover it exactly,
// whole and without holes (cuMemUnmap's and cuMemSetAccess's range).
bool covering(Reservation& r, uint64_t ptr, uint64_t size, std::vector<Mapping*>* out) {
  uint64_t at = ptr;
  for (auto it = r.maps.find(ptr); it != r.maps.end() && at < ptr + size; ++it) {
    if (it->first != at || it->second.size > ptr + size - at) return false;
    out->push_back(&it->second);
    at += it->second.size;
  }
  return at == ptr + size && !out->empty();
}

CUresult map(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle h,
             unsigned long long flags) {
  VMM_LOCKED;
  Physical* p = physical(h);
  uint64_t base;
  Reservation* r = reservation_of(ptr, size, &base);
  if (!p || !r || flags || size == 0 || (ptr | size | offset) % kVmmGranularity ||
      offset > p->size || size > p->size - offset)
    return CUDA_ERROR_INVALID_VALUE;
  auto next = r->maps.lower_bound(ptr);
  if (next != r->maps.end() && next->first < ptr + size) return CUDA_ERROR_INVALID_VALUE;
  if (next != r->maps.begin() && std::prev(next)->first + std::prev(next)->second.size > ptr)
    return CUDA_ERROR_INVALID_VALUE;
  void* at = ::mmap(reinterpret_cast<void*>(ptr), size, PROT_NONE, MAP_SHARED | MAP_FIXED, p->fd,
                    static_cast<off_t>(offset));
  if (at == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
  r->maps[ptr] = Mapping{size, p, CU_MEM_ACCESS_FLAGS_PROT_NONE};
  ++p->mappings;
  return CUDA_SUCCESS;
}

CUresult unmap(CUdeviceptr ptr, size_t size) {
  VMM_LOCKED;
  uint64_t base;
  Reservation* r = reservation_of(ptr, size, &base);
  std::vector<Mapping*> ms;
  if (!r || size == 0 || !covering(*r, ptr, size, &ms)) return CUDA_ERROR_INVALID_VALUE;
  d.synchronize_all();  // work in flight may still use the range
  for (auto it = r->maps.find(ptr); it != r->maps.end() && it->first < ptr + size;) {
    Physical* p = it->second.phys;
    --p->mappings;
    drop_if_unused(p);
    it = r->maps.erase(it);
  }
  // Back to reserved and inaccessible, the physical pages let go.
  ::mmap(reinterpret_cast<void*>(ptr), size, PROT_NONE,
         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
  remake_runs(d, *r);
  return CUDA_SUCCESS;
}

CUresult set_access(CUdeviceptr ptr, size_t size, const CUmemAccessDesc* desc, size_t count) {
  VMM_LOCKED;
  uint64_t base;
  Reservation* r = reservation_of(ptr, size, &base);
  std::vector<Mapping*> ms;
  if (!r || !desc || count == 0 || !covering(*r, ptr, size, &ms)) return CUDA_ERROR_INVALID_VALUE;
  CUmemAccess_flags access = CU_MEM_ACCESS_FLAGS_PROT_NONE;
  for (size_t i = 0; i < count; ++i) {
    if (desc[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE) return CUDA_ERROR_INVALID_VALUE;
    if (desc[i].location.id != 0) return CUDA_ERROR_INVALID_DEVICE;
    if (desc[i].flags == CU_MEM_ACCESS_FLAGS_PROT_READ) {
      // The emulator has no read-only global memory: a store there could not fault as the GPU's.
      d.note(
          "cuMemSetAccess: read-only access (CU_MEM_ACCESS_FLAGS_PROT_READ) is not supported "
          "by smemlab's emulated driver; it returned CUDA_ERROR_NOT_SUPPORTED");
      return CUDA_ERROR_NOT_SUPPORTED;
    }
    if (desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_NONE &&
        desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
      return CUDA_ERROR_INVALID_VALUE;
    access = desc[i].flags;
  }
  d.synchronize_all();
  int prot = access == CU_MEM_ACCESS_FLAGS_PROT_READWRITE ? PROT_READ | PROT_WRITE : PROT_NONE;
  if (::mprotect(reinterpret_cast<void*>(ptr), size, prot) != 0) return CUDA_ERROR_INVALID_VALUE;
  for (Mapping* m : ms) m->access = access;
  remake_runs(d, *r);
  return CUDA_SUCCESS;
}

// The mapping holding `ptr`, or null.
Mapping* mapping_at(uint64_t ptr) {
  uint64_t base;
  Reservation* r = reservation_of(ptr, 1, &base);
  if (!r) return nullptr;
  auto it = r->maps.upper_bound(ptr);
  if (it == r->maps.begin()) return nullptr;
  --it;
  return ptr - it->first < it->second.size ? &it->second : nullptr;
}

CUresult get_access(unsigned long long* flags, const CUmemLocation* loc, CUdeviceptr ptr) {
  VMM_LOCKED;
  Mapping* m = mapping_at(ptr);
  if (!flags || !loc || !m) return CUDA_ERROR_INVALID_VALUE;
  if (loc->type != CU_MEM_LOCATION_TYPE_DEVICE) return CUDA_ERROR_INVALID_VALUE;
  if (loc->id != 0) return CUDA_ERROR_INVALID_DEVICE;
  *flags = m->access;
  return CUDA_SUCCESS;
}

CUresult properties(CUmemAllocationProp* prop, CUmemGenericAllocationHandle h) {
  VMM_LOCKED;
  Physical* p = physical(h);
  if (!prop || !p) return CUDA_ERROR_INVALID_VALUE;
  *prop = p->props;
  return CUDA_SUCCESS;
}

CUresult retain(CUmemGenericAllocationHandle* h, void* addr) {
  VMM_LOCKED;
  Mapping* m = mapping_at(reinterpret_cast<uint64_t>(addr));
  if (!h || !m) return CUDA_ERROR_INVALID_VALUE;
  ++m->phys->refs;
  *h = reinterpret_cast<uint64_t>(m->phys);
  return CUDA_SUCCESS;
}

}  // namespace

std::vector<std::pair<uint64_t, uint64_t>> vmm_unreleased() {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const auto& [h, p] : physicals())
    if (p->refs > 0) out.emplace_back(h, p->size);
  return out;
}

const std::vector<EntryPoint>& vmm_entries() {
#define E SMEMLAB_ENTRY
  static const std::vector<EntryPoint> entries = {
      E("cuMemGetAllocationGranularity", 10020, granularity),
      E("cuMemCreate", 10020, create),
      E("cuMemRelease", 10020, release),
      E("cuMemAddressReserve", 10020, address_reserve),
      E("cuMemAddressFree", 10020, address_free),
      E("cuMemMap", 10020, map),
      E("cuMemUnmap", 10020, unmap),
      E("cuMemSetAccess", 10020, set_access),
      E("cuMemGetAccess", 10020, get_access),
      E("cuMemGetAllocationPropertiesFromHandle", 10020, properties),
      E("cuMemRetainAllocationHandle", 11000, retain),
  };
#undef E
  return entries;
}

}  // namespace smemlab::runtime
