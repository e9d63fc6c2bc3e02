// Tensor maps for Hopper's TMA: the driver's documented constraints on
// cuTensorMapEncodeTiled / cuTensorMapEncodeIm2col arguments (cuda.h, "Tensor
// Map Object Management"), checked in the order the documentation lists
// them; a refused map is CUDA_ERROR_INVALID_VALUE with a ==smemlab== line
// naming the field. A valid one is written into the 128-byte CUtensorMap in
// smemlab's encoding (emu/tma.h), which the emulator's cp.async.bulk.tensor
// reads back from the address the kernel gives.
#include "runtime/tensor_map.h"

#include <cuda.h>
#include <fmt/format.h>

#include <mutex>

#include "runtime/driver.h"
#include "runtime/fix_hooks.h"
#include "runtime/guard.h"

namespace smemlab::runtime {

using emu::tma::DataType;
using emu::tma::Interleave;
using MapMode = emu::tma::Mode;
using emu::tma::Swizzle;
using emu::tma::TensorMap;

namespace {

bool packed16(DataType t) { return t == DataType::U4x16_ALIGN16B || t == DataType::U6x16_ALIGN16B; }

// Bytes of `n` elements of dimension 0 in shared memory.
uint64_t inner_bytes(DataType t, uint64_t n) {
  if (t == DataType::U4x16_ALIGN8B) return n / 2;
  if (packed16(t)) return n;  // 16 values in 16 bytes
  return n * emu::tma::element_bytes(t);
}

std::string address_error(const TensorMap& m) {
  const uint64_t align = m.interleave == Interleave::B32 || packed16(m.type) ? 32 : 16;
  if (m.address % align)
    return fmt::format("globalAddress: 0x{:x} is not {}-byte aligned", m.address, align);
  return "";
}

std::string dims_error(const TensorMap& m) {
  for (uint32_t i = 0; i < m.rank; ++i)
    if (m.dim[i] == 0 || m.dim[i] > (uint64_t{1} << 32))
      return fmt::format("globalDim[{}]: {} is not in 1 .. 2^32", i, m.dim[i]);
  if (packed16(m.type) && m.dim[0] % 128)
    return fmt::format("globalDim[0]: {} is not a multiple of 128 for {}", m.dim[0],
                       emu::tma::type_name(m.type));
  if (m.type == DataType::U4x16_ALIGN8B && m.dim[0] % 2)
    return fmt::format("globalDim[0]: {} is not a multiple of 2 for {}", m.dim[0],
                       emu::tma::type_name(m.type));
  const uint64_t salign = m.interleave == Interleave::B32 || packed16(m.type) ? 32 : 16;
  for (uint32_t i = 0; i + 1 < m.rank; ++i) {
    if (m.stride[i] % salign)
      return fmt::format("globalStrides[{}]: {} is not a multiple of {}", i, m.stride[i], salign);
    if (m.stride[i] >= (uint64_t{1} << 40))
      return fmt::format("globalStrides[{}]: {} is not below 2^40", i, m.stride[i]);
  }
  return "";
}

std::string box_error(const TensorMap& m) {
  for (uint32_t i = 0; i < m.rank; ++i)
    if (m.box[i] == 0 || m.box[i] > 256)
      return fmt::format("boxDim[{}]: {} is not in 1 .. 256", i, m.box[i]);
  if (m.interleave == Interleave::None && inner_bytes(m.type, m.box[0]) % 16)
    return fmt::format("boxDim[0]: {} elements of {} are {} bytes, not a multiple of 16", m.box[0],
                       emu::tma::type_name(m.type), inner_bytes(m.type, m.box[0]));
  if (packed16(m.type) && m.box[0] != 128)
    return fmt::format("boxDim[0]: {} is not 128 for {}", m.box[0], emu::tma::type_name(m.type));
  return "";
}

std::string im2col_error(const TensorMap& m) {
  const int32_t limit = m.rank == 3 ? 32768 : m.rank == 4 ? 128 : 16;
  for (uint32_t i = 0; i + 2 < m.rank; ++i) {
    if (m.lower[i] < -limit || m.lower[i] >= limit)
      return fmt::format("pixelBoxLowerCorner[{}]: {} is not in {} .. {} for rank {}", i,
                         m.lower[i], -limit, limit - 1, m.rank);
    if (m.upper[i] < -limit || m.upper[i] >= limit)
      return fmt::format("pixelBoxUpperCorner[{}]: {} is not in {} .. {} for rank {}", i,
                         m.upper[i], -limit, limit - 1, m.rank);
    if (static_cast<int64_t>(m.dim[i + 1]) + m.upper[i] - m.lower[i] <= 0)
      return fmt::format(
          "pixelBoxLowerCorner/pixelBoxUpperCorner[{}]: the bounding box has no "
          "area (globalDim[{}] {} + upper {} - lower {})",
          i, i + 1, m.dim[i + 1], m.upper[i], m.lower[i]);
  }
  if (m.channels == 0 || m.channels > 256)
    return fmt::format("channelsPerPixel: {} is not in 1 .. 256", m.channels);
  // Measured on an H100 (the documentation names only boxDim[0]'s rule).
  if (m.interleave == Interleave::None && inner_bytes(m.type, m.channels) % 16)
    return fmt::format("channelsPerPixel: {} elements of {} are {} bytes, not a multiple of 16",
                       m.channels, emu::tma::type_name(m.type), inner_bytes(m.type, m.channels));
  if (packed16(m.type) && m.channels != 128)
    return fmt::format("channelsPerPixel: {} is not 128 for {}", m.channels,
                       emu::tma::type_name(m.type));
  if (m.pixels == 0 || m.pixels > 1024)
    return fmt::format("pixelsPerColumn: {} is not in 1 .. 1024", m.pixels);
  return "";
}

std::string modes_error(const TensorMap& m) {
  const uint64_t inner =
      inner_bytes(m.type, m.mode == MapMode::Im2col ? uint64_t{m.channels} : uint64_t{m.box[0]});
  // The 128B_ATOM modes' span is 128 bytes too.
  const uint32_t span = m.swizzle > Swizzle::B128 ? 128 : emu::tma::swizzle_span(m.swizzle);
  if (m.interleave == Interleave::None && span && inner > span)
    return fmt::format(
        "swizzle: {} needs the box's inner dimension to be at most {} bytes, it is {}",
        emu::tma::swizzle_name(m.swizzle), span, inner);
  if (m.interleave == Interleave::B32 && m.swizzle != Swizzle::B32)
    return fmt::format(
        "swizzle: CU_TENSOR_MAP_INTERLEAVE_32B needs CU_TENSOR_MAP_SWIZZLE_32B, not {}",
        emu::tma::swizzle_name(m.swizzle));
  if (m.type == DataType::U6x16_ALIGN16B && m.interleave != Interleave::None)
    return "interleave: CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B needs CU_TENSOR_MAP_INTERLEAVE_NONE";
  if (packed16(m.type) && m.swizzle != Swizzle::None && m.swizzle != Swizzle::B128 &&
      m.swizzle != Swizzle::B128_ATOM_32B &&
      !(m.type == DataType::U6x16_ALIGN16B && m.swizzle == Swizzle::B128_ATOM_64B))
    return fmt::format("swizzle: {} is not allowed for {}", emu::tma::swizzle_name(m.swizzle),
                       emu::tma::type_name(m.type));
  if (m.oob_fill && (!emu::tma::is_float(m.type)))
    return fmt::format(
        "oobFill: CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA needs a "
        "floating-point data type, not {}",
        emu::tma::type_name(m.type));
  return "";
}

Driver& refuse(const char* api, const std::string& why) {
  Driver& d = Driver::get();
  d.error_line(fmt::format("{}: {}", api, why));
  return d;
}

// Reads the enum arguments into m; false (and *why) when one is out of range.
bool enums(TensorMap* m, CUtensorMapDataType type, CUtensorMapInterleave il, CUtensorMapSwizzle sw,
           CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob, std::string* why) {
  if (type < 0 || type >= static_cast<int>(DataType::kCount))
    *why = fmt::format("tensorDataType: {} is not a CUtensorMapDataType", static_cast<int>(type));
  else if (il < 0 || il >= static_cast<int>(Interleave::kCount))
    *why = fmt::format("interleave: {} is not a CUtensorMapInterleave", static_cast<int>(il));
  else if (sw < 0 || sw >= static_cast<int>(Swizzle::kCount))
    *why = fmt::format("swizzle: {} is not a CUtensorMapSwizzle", static_cast<int>(sw));
  else if (l2 < 0 || l2 > CU_TENSOR_MAP_L2_PROMOTION_L2_256B)
    *why = fmt::format("l2Promotion: {} is not a CUtensorMapL2promotion", static_cast<int>(l2));
  else if (oob < 0 || oob > CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA)
    *why = fmt::format("oobFill: {} is not a CUtensorMapFloatOOBfill", static_cast<int>(oob));
  else {
    m->type = static_cast<DataType>(type);
    m->interleave = static_cast<Interleave>(il);
    m->swizzle = static_cast<Swizzle>(sw);
    m->l2_promotion = static_cast<uint8_t>(l2);
    m->oob_fill = static_cast<uint8_t>(oob);
    return true;
  }
  return false;
}

// The checks both encode functions share, then the encoding.
CUresult finish(const char* api, CUtensorMap* out, TensorMap& m, std::string why) {
  Driver& d = Driver::get();
  std::lock_guard<DriverMutex> lock(d.mu);
  if (why.empty()) why = tensor_map_error(m);
  if (!why.empty()) {
    refuse(api, why);
    return CUDA_ERROR_INVALID_VALUE;
  }
  emu::tma::encode(m, reinterpret_cast<uint8_t*>(out));
  return CUDA_SUCCESS;
}

// The pointer arguments: tensorMap (64-byte aligned) and the arrays.
std::string pointers_error(const CUtensorMap* map, uint32_t rank, const void* dims,
                           const void* strides, const void* box_or_corner, const void* es) {
  if (!map) return "tensorMap: null";
  if (reinterpret_cast<uintptr_t>(map) % 64)
    return fmt::format("tensorMap: {} is not 64-byte aligned", static_cast<const void*>(map));
  if (rank == 0 || rank > emu::tma::kMaxRank) return "";  // tensor_map_error names it
  if (!dims) return "globalDim: null";
  if (rank > 1 && !strides) return "globalStrides: null";
  if (!box_or_corner) return "boxDim (or pixelBoxLowerCorner/UpperCorner): null";
  if (!es) return "elementStrides: null";
  return "";
}

CUresult encode_tiled(CUtensorMap* map, CUtensorMapDataType type, cuuint32_t rank, void* address,
                      const cuuint64_t* dims, const cuuint64_t* strides, const cuuint32_t* box,
                      const cuuint32_t* es, CUtensorMapInterleave il, CUtensorMapSwizzle sw,
                      CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob) {
  TensorMap m;
  m.mode = MapMode::Tiled;
  m.rank = rank;
  // `smemlab fix`'s proof of a TMA tile's swizzle: the encode's field as rewritten.
  sw = static_cast<CUtensorMapSwizzle>(FixHooks::get().tensor_map_swizzle(sw));
  m.address = reinterpret_cast<uint64_t>(address);
  std::string why = pointers_error(map, rank, dims, strides, box, es);
  if (why.empty() && enums(&m, type, il, sw, l2, oob, &why) && rank >= 1 &&
      rank <= emu::tma::kMaxRank)
    for (uint32_t i = 0; i < rank; ++i) {
      m.dim[i] = dims[i];
      if (i + 1 < rank) m.stride[i] = strides[i];
      m.box[i] = box[i];
      m.elem_stride[i] = es[i];
    }
  return finish("cuTensorMapEncodeTiled", map, m, why);
}

CUresult encode_im2col(CUtensorMap* map, CUtensorMapDataType type, cuuint32_t rank, void* address,
                       const cuuint64_t* dims, const cuuint64_t* strides, const int* lower,
                       const int* upper, cuuint32_t channels, cuuint32_t pixels,
                       const cuuint32_t* es, CUtensorMapInterleave il, CUtensorMapSwizzle sw,
                       CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob) {
  TensorMap m;
  m.mode = MapMode::Im2col;
  m.rank = rank;
  m.address = reinterpret_cast<uint64_t>(address);
  m.channels = channels;
  m.pixels = pixels;
  std::string why = pointers_error(map, rank, dims, strides, lower, es);
  if (why.empty() && !upper) why = "pixelBoxUpperCorner: null";
  if (why.empty() && enums(&m, type, il, sw, l2, oob, &why) && rank >= 3 &&
      rank <= emu::tma::kMaxRank)
    for (uint32_t i = 0; i < rank; ++i) {
      m.dim[i] = dims[i];
      if (i + 1 < rank) m.stride[i] = strides[i];
      m.elem_stride[i] = es[i];
      if (i + 2 < rank) m.lower[i] = lower[i], m.upper[i] = upper[i];
    }
  return finish("cuTensorMapEncodeIm2col", map, m, why);
}

CUresult replace_address(CUtensorMap* map, void* address) {
  Driver& d = Driver::get();
  std::lock_guard<DriverMutex> lock(d.mu);
  const char* api = "cuTensorMapReplaceAddress";
  TensorMap m;
  std::string why;
  if (!map) {
    refuse(api, "tensorMap: null");
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (!emu::tma::decode(reinterpret_cast<const uint8_t*>(map), &m, &why)) {
    refuse(api, "tensorMap: " + why);
    return CUDA_ERROR_INVALID_VALUE;
  }
  m.address = reinterpret_cast<uint64_t>(address);
  return finish(api, map, m, address_error(m));
}

}  // namespace

std::string tensor_map_error(const TensorMap& m) {
  if (m.mode == MapMode::Tiled && (m.rank < 1 || m.rank > emu::tma::kMaxRank))
    return fmt::format("tensorRank: {} is not in 1 .. 5", m.rank);
  if (m.mode == MapMode::Im2col && (m.rank < 3 || m.rank > emu::tma::kMaxRank))
    return fmt::format("tensorRank: {} is not 3, 4 or 5 (im2col)", m.rank);
  if (m.interleave != Interleave::None && m.rank < 3)
    return fmt::format("tensorRank: {} is below 3 with {}", m.rank,
                       emu::tma::interleave_name(m.interleave));
  for (auto f : {address_error, dims_error}) {
    std::string e = f(m);
    if (!e.empty()) return e;
  }
  std::string e = m.mode == MapMode::Tiled ? box_error(m) : im2col_error(m);
  if (!e.empty()) return e;
  for (uint32_t i = 0; i < m.rank; ++i)
    if (m.elem_stride[i] == 0 || m.elem_stride[i] > 8)
      return fmt::format("elementStrides[{}]: {} is not in 1 .. 8", i, m.elem_stride[i]);
  return modes_error(m);
}

const std::vector<EntryPoint>& tensor_map_entries() {
  static const std::vector<EntryPoint> entries = {
      // Guarded like every entry point (guard.h): nothing throws out of them.
      SMEMLAB_ENTRY("cuTensorMapEncodeTiled", 12000, encode_tiled),
      SMEMLAB_ENTRY("cuTensorMapEncodeIm2col", 12000, encode_im2col),
      SMEMLAB_ENTRY("cuTensorMapReplaceAddress", 12000, replace_address),
  };
  return entries;
}

}  // namespace smemlab::runtime
