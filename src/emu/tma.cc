#include "emu/tma.h"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstring>

#include "emu/half.h"

namespace smemlab::emu::tma {
namespace {

constexpr uint32_t kMagic = 0x4d544d53;  // "SMTM"
constexpr uint8_t kVersion = 1;
constexpr uint32_t kHashAt = 124;

uint32_t fnv1a(const uint8_t* p, uint32_t n) {
  uint32_t h = 2166136261u;
  for (uint32_t i = 0; i < n; ++i) h = (h ^ p[i]) * 16777619u;
  return h;
}

template <class V>
void put(uint8_t* out, uint32_t at, V v) {
  std::memcpy(out + at, &v, sizeof v);
}
template <class V>
V get(const uint8_t* in, uint32_t at) {
  V v;
  std::memcpy(&v, in + at, sizeof v);
  return v;
}

}  // namespace

void encode(const TensorMap& m, uint8_t out[kMapBytes]) {
  std::memset(out, 0, kMapBytes);
  put(out, 0, kMagic);
  out[4] = kVersion;
  out[5] = static_cast<uint8_t>(m.mode);
  out[6] = static_cast<uint8_t>(m.type);
  out[7] = static_cast<uint8_t>(m.rank);
  out[8] = static_cast<uint8_t>(m.interleave);
  out[9] = static_cast<uint8_t>(m.swizzle);
  out[10] = m.l2_promotion;
  out[11] = m.oob_fill;
  put(out, 12, static_cast<uint16_t>(m.channels));
  put(out, 14, static_cast<uint16_t>(m.pixels));
  put(out, 16, m.address);
  for (uint32_t i = 0; i < kMaxRank; ++i) {
    put(out, 24 + 4 * i, static_cast<uint32_t>(m.dim[i] - 1));
    out[64 + i] = static_cast<uint8_t>(m.box[i] - 1);
    out[69 + i] = static_cast<uint8_t>(m.elem_stride[i] - 1);
  }
  for (uint32_t i = 0; i < kMaxRank - 1; ++i)
    for (uint32_t b = 0; b < 5; ++b)
      out[44 + 5 * i + b] = static_cast<uint8_t>(m.stride[i] >> 8 * b);
  for (uint32_t i = 0; i < 3; ++i) {
    put(out, 74 + 2 * i, static_cast<int16_t>(m.lower[i]));
    put(out, 80 + 2 * i, static_cast<int16_t>(m.upper[i]));
  }
  put(out, kHashAt, fnv1a(out, kHashAt));
}

bool decode(const uint8_t in[kMapBytes], TensorMap* m, std::string* why) {
  if (get<uint32_t>(in, 0) != kMagic || in[4] != kVersion) {
    *why = "it was not made by cuTensorMapEncodeTiled/Im2col (no smemlab tensor map there)";
    return false;
  }
  if (get<uint32_t>(in, kHashAt) != fnv1a(in, kHashAt)) {
    *why = "its bytes were changed after cuTensorMapEncode* made it";
    return false;
  }
  TensorMap t;
  t.mode = static_cast<Mode>(in[5]);
  t.type = static_cast<DataType>(in[6]);
  t.rank = in[7];
  t.interleave = static_cast<Interleave>(in[8]);
  t.swizzle = static_cast<Swizzle>(in[9]);
  t.l2_promotion = in[10];
  t.oob_fill = in[11];
  t.channels = get<uint16_t>(in, 12);
  t.pixels = get<uint16_t>(in, 14);
  t.address = get<uint64_t>(in, 16);
  for (uint32_t i = 0; i < kMaxRank; ++i) {
    t.dim[i] = uint64_t{get<uint32_t>(in, 24 + 4 * i)} + 1;
    t.box[i] = uint32_t{in[64 + i]} + 1;
    t.elem_stride[i] = uint32_t{in[69 + i]} + 1;
  }
  for (uint32_t i = 0; i < kMaxRank - 1; ++i) {
    uint64_t s = 0;
    for (uint32_t b = 0; b < 5; ++b) s |= uint64_t{in[44 + 5 * i + b]} << 8 * b;
    t.stride[i] = s;
  }
  for (uint32_t i = 0; i < 3; ++i) {
    t.lower[i] = get<int16_t>(in, 74 + 2 * i);
    t.upper[i] = get<int16_t>(in, 80 + 2 * i);
  }
  if (t.rank < 1 || t.rank > kMaxRank || t.type >= DataType::kCount ||
      t.swizzle >= Swizzle::kCount || t.interleave >= Interleave::kCount) {
    *why = "its fields are out of range";
    return false;
  }
  *m = t;
  return true;
}

uint32_t element_bytes(DataType t) {
  static const uint8_t bytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4, 0, 0, 0};
  return t < DataType::kCount ? bytes[static_cast<int>(t)] : 0;
}

bool is_float(DataType t) {
  return t == DataType::F16 || t == DataType::F32 || t == DataType::F64 || t == DataType::BF16 ||
         t == DataType::F32_FTZ || t == DataType::TF32 || t == DataType::TF32_FTZ;
}

const char* type_name(DataType t) {
  static const char* const names[] = {
      "UINT8",        "UINT16",       "UINT32",        "INT32",        "UINT64",      "INT64",
      "FLOAT16",      "FLOAT32",      "FLOAT64",       "BFLOAT16",     "FLOAT32_FTZ", "TFLOAT32",
      "TFLOAT32_FTZ", "16U4_ALIGN8B", "16U4_ALIGN16B", "16U6_ALIGN16B"};
  static thread_local std::string s;
  s = t < DataType::kCount ? std::string("CU_TENSOR_MAP_DATA_TYPE_") + names[static_cast<int>(t)]
                           : fmt::format("data type {}", static_cast<int>(t));
  return s.c_str();
}

const char* swizzle_name(Swizzle s) {
  static const char* const names[] = {
      "CU_TENSOR_MAP_SWIZZLE_NONE",          "CU_TENSOR_MAP_SWIZZLE_32B",
      "CU_TENSOR_MAP_SWIZZLE_64B",           "CU_TENSOR_MAP_SWIZZLE_128B",
      "CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B", "CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B_FLIP_8B",
      "CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B"};
  return s < Swizzle::kCount ? names[static_cast<int>(s)] : "an unknown swizzle";
}

const char* interleave_name(Interleave i) {
  static const char* const names[] = {"CU_TENSOR_MAP_INTERLEAVE_NONE",
                                      "CU_TENSOR_MAP_INTERLEAVE_16B",
                                      "CU_TENSOR_MAP_INTERLEAVE_32B"};
  return i < Interleave::kCount ? names[static_cast<int>(i)] : "an unknown interleave";
}

uint32_t swizzle(Swizzle s, uint32_t addr) {
  uint32_t mask = s == Swizzle::B32 ? 1 : s == Swizzle::B64 ? 3 : s == Swizzle::B128 ? 7 : 0;
  return addr ^ (((addr >> 7) & mask) << 4);
}

uint32_t swizzle_repeat(Swizzle s) {
  return s == Swizzle::B32 ? 256 : s == Swizzle::B64 ? 512 : s == Swizzle::B128 ? 1024 : 0;
}

uint32_t swizzle_span(Swizzle s) {
  return s == Swizzle::B32 ? 32 : s == Swizzle::B64 ? 64 : s == Swizzle::B128 ? 128 : 0;
}

namespace {

// A swizzled box's rows are a span apart (the encode functions keep a row
// within its span).
uint32_t row_pitch(const TensorMap& m, const Box& b) {
  const uint32_t span = swizzle_span(m.swizzle), row = b.row_elems * b.esize;
  return span && row < span ? span : row;
}

}  // namespace

Box tile_box(const TensorMap& m) {
  Box b;
  b.esize = element_bytes(m.type);
  b.row_elems = m.box[0];
  b.rows = 1;
  for (uint32_t i = 1; i < m.rank; ++i)
    b.rows *= (m.box[i] + m.elem_stride[i] - 1) / m.elem_stride[i];
  b.pitch = row_pitch(m, b);
  return b;
}

Box im2col_box(const TensorMap& m) {
  Box b;
  b.esize = element_bytes(m.type);
  b.row_elems = m.channels;
  b.rows = m.pixels;
  b.pitch = row_pitch(m, b);
  return b;
}

void tile_row(const TensorMap& m, const int32_t c[kMaxRank], uint32_t r, int64_t g[kMaxRank]) {
  g[0] = c[0];
  for (uint32_t i = 1; i < m.rank; ++i) {
    uint32_t n = (m.box[i] + m.elem_stride[i] - 1) / m.elem_stride[i];
    g[i] = int64_t{c[i]} + int64_t{r % n} * m.elem_stride[i];
    r /= n;
  }
}

// im2col's walk over pixels (PTX ISA, "im2col mode"): dimension 0 is the
// channel (C), 1 .. rank-2 the spatial ones (W, H, D), rank-1 the batch
// (N). Pixel positions run through the bounding box, W fastest: along a
// spatial dimension s from the copy's coordinate c[s] in steps of
// elementStrides[s] up to dim[s] + upper - 1; past that the position starts
// again at the box's lower corner and the next dimension takes a step. N
// steps by 1 and does not wrap. The loaded pixel is the position plus the
// instruction's im2col offsets (W, H, D).
void im2col_row(const TensorMap& m, const int32_t c[kMaxRank], const uint16_t off[3], uint32_t r,
                int64_t g[kMaxRank]) {
  g[0] = c[0];
  int64_t carry = r;
  const uint32_t n = m.rank - 1;
  for (uint32_t s = 1; s < n; ++s) {
    const int64_t lo = m.lower[s - 1], hi = static_cast<int64_t>(m.dim[s]) + m.upper[s - 1] - 1;
    const int64_t es = m.elem_stride[s], start = c[s];
    const int64_t first = start <= hi ? (hi - start) / es + 1 : 1;  // positions left on this line
    const int64_t full = hi >= lo ? (hi - lo) / es + 1 : 1;
    int64_t pos;
    if (carry < first) {
      pos = start + carry * es;
      carry = 0;
    } else {
      carry -= first;
      pos = lo + (carry % full) * es;
      carry = 1 + carry / full;
    }
    g[s] = pos + off[s - 1];
  }
  g[n] = int64_t{c[n]} + carry;
}

bool element_address(const TensorMap& m, const int64_t g[kMaxRank], uint64_t* addr) {
  uint64_t a = m.address;
  for (uint32_t i = 0; i < m.rank; ++i) {
    if (g[i] < 0 || static_cast<uint64_t>(g[i]) >= m.dim[i]) return false;
    a += static_cast<uint64_t>(g[i]) * (i == 0 ? element_bytes(m.type) : m.stride[i - 1]);
  }
  *addr = a;
  return true;
}

bool reduce_defined(Red r, DataType t) {
  using D = DataType;
  const bool u32 = t == D::U32, s32 = t == D::S32, u64 = t == D::U64, s64 = t == D::S64;
  const bool half = t == D::F16 || t == D::BF16;
  switch (r) {
    case Red::Add:
      return u32 || s32 || u64 || half || t == D::F32 || t == D::F32_FTZ;
    case Red::Min:
    case Red::Max:
      return u32 || s32 || u64 || s64 || half;
    case Red::Inc:
    case Red::Dec:
      return u32;
    default:
      return u32 || s32 || u64 || s64;
  }
}

namespace {

float to_f32(DataType t, uint64_t v) {
  auto h = static_cast<uint16_t>(v);
  if (t == DataType::F16) return half_to_float(h);
  if (t == DataType::BF16) return bf16_to_float(h);
  return std::bit_cast<float>(static_cast<uint32_t>(v));
}
uint64_t from_f32(DataType t, float f) {
  if (t == DataType::F16) return float_to_half(f);
  if (t == DataType::BF16) return float_to_bf16(f);
  return std::bit_cast<uint32_t>(f);
}
float flush(float f) { return std::fpclassify(f) == FP_SUBNORMAL ? std::copysign(0.0f, f) : f; }

}  // namespace

uint64_t reduce(Red r, DataType t, uint64_t old, uint64_t v) {
  const bool fl = is_float(t), sgn = t == DataType::S32 || t == DataType::S64;
  const uint32_t bits = 8 * element_bytes(t);
  const uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
  auto sx = [&](uint64_t x) {
    return bits == 64 ? static_cast<int64_t>(x)
                      : static_cast<int64_t>(x << (64 - bits)) >> (64 - bits);
  };
  switch (r) {
    case Red::Add:
      if (fl) {
        const bool ftz = t == DataType::F32_FTZ;
        float a = to_f32(t, old), b = to_f32(t, v);
        float s = ftz ? flush(flush(a) + flush(b)) : a + b;
        return from_f32(t, s);
      }
      return (old + v) & mask;
    case Red::Min:
    case Red::Max: {
      const bool mx = r == Red::Max;
      if (fl) {
        float a = to_f32(t, old), b = to_f32(t, v);
        return from_f32(t, mx ? std::fmax(a, b) : std::fmin(a, b));
      }
      bool less = sgn ? sx(old) < sx(v) : old < v;
      return mx ? (less ? v : old) : (less ? old : v);
    }
    case Red::Inc:
      return old >= v ? 0 : (old + 1) & mask;
    case Red::Dec:
      return (old == 0 || old > v) ? v : old - 1;
    case Red::And:
      return old & v;
    case Red::Or:
      return old | v;
    default:
      return old ^ v;
  }
}

uint64_t nan_fill(DataType t) {
  const uint32_t bytes = element_bytes(t);
  return bytes < 2 ? 0 : 0x7ff77ff77ff77ff7ull >> (64 - 8 * bytes);
}

std::string coordinate_error(const TensorMap& m, const int32_t c[kMaxRank], bool store) {
  const int64_t at = int64_t{c[0]} * element_bytes(m.type);
  if (at % 16)
    return fmt::format(
        "tensor coordinate 0 ({}) is {} bytes into dimension 0 ({}), not a multiple of 16", c[0],
        at, type_name(m.type));
  if (store)
    for (uint32_t i = 0; i < m.rank; ++i)
      if (c[i] < 0)
        return fmt::format(
            "tensor coordinate {} is {}: a store or reduction takes no negative coordinate", i,
            c[i]);
  return "";
}

}  // namespace smemlab::emu::tma
