// Hopper's Tensor Memory Accelerator as pure functions, no interpreter
// state: the tensor map (what cuTensorMapEncodeTiled / cuTensorMapEncodeIm2col
// describe) and its encoding in the 128-byte opaque CUtensorMap, the box a
// cp.async.bulk.tensor copies (which global element lands at which shared
// byte, out-of-bounds elements included) and the swizzle of shared
// addresses. The runtime (src/runtime/tensor_map.cc) validates the driver's
// arguments and encodes; the executors (ops_tma_exec.cc) decode the map
// from the address a kernel gives and walk the box with these.
//
// Encoding of a CUtensorMap (128 bytes, little endian; the driver's own is
// undocumented, so this one is smemlab's):
//   0  u32  magic "SMTM" (0x4d544d53)
//   4  u8   version (1)
//   5  u8   mode: 0 tiled, 1 im2col
//   6  u8   CUtensorMapDataType
//   7  u8   rank (1..5)
//   8  u8   CUtensorMapInterleave   9 u8 CUtensorMapSwizzle
//  10  u8   CUtensorMapL2promotion 11 u8 CUtensorMapFloatOOBfill
//  12  u16  im2col channelsPerPixel 14 u16 im2col pixelsPerColumn
//  16  u64  global address
//  24  u32  globalDim[i] - 1, i = 0..4 (a dimension may be 2^32)
//  44  u40  globalStrides[i] in bytes, i = 0..3 (5 bytes each; < 2^40)
//  64  u8   boxDim[i] - 1, i = 0..4 (tiled)
//  69  u8   elementStrides[i] - 1, i = 0..4
//  74  s16  im2col pixelBoxLowerCorner[i], i = 0..2 (W, H, D)
//  80  s16  im2col pixelBoxUpperCorner[i], i = 0..2
//  86  zero
// 124  u32  FNV-1a hash of bytes 0..123: a map not made by the encode
//           functions (uninitialized, overwritten) is refused by the copy.
#pragma once

#include <cstdint>
#include <string>

namespace smemlab::emu::tma {

// CUtensorMapDataType, in its order.
enum class DataType : uint8_t {
  U8,
  U16,
  U32,
  S32,
  U64,
  S64,
  F16,
  F32,
  F64,
  BF16,
  F32_FTZ,
  TF32,
  TF32_FTZ,
  U4x16_ALIGN8B,
  U4x16_ALIGN16B,
  U6x16_ALIGN16B,
  kCount
};
enum class Interleave : uint8_t { None, B16, B32, kCount };  // CUtensorMapInterleave
// CUtensorMapSwizzle; the 128B_ATOM modes are CC 10.0 ones.
enum class Swizzle : uint8_t {
  None,
  B32,
  B64,
  B128,
  B128_ATOM_32B,
  B128_ATOM_32B_FLIP_8B,
  B128_ATOM_64B,
  kCount
};
enum class Mode : uint8_t { Tiled, Im2col };

constexpr uint32_t kMapBytes = 128;
constexpr uint32_t kMaxRank = 5;

struct TensorMap {
  Mode mode = Mode::Tiled;
  DataType type = DataType::U8;
  uint32_t rank = 1;
  Interleave interleave = Interleave::None;
  Swizzle swizzle = Swizzle::None;
  uint8_t l2_promotion = 0;
  uint8_t oob_fill = 0;  // 1: NaN (CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA)
  uint64_t address = 0;
  uint64_t dim[kMaxRank] = {1, 1, 1, 1, 1};
  uint64_t stride[kMaxRank - 1] = {};  // bytes, of dimensions 1..rank-1
  uint32_t box[kMaxRank] = {1, 1, 1, 1, 1};
  uint32_t elem_stride[kMaxRank] = {1, 1, 1, 1, 1};
  // im2col
  uint32_t channels = 0, pixels = 0;
  int32_t lower[3] = {}, upper[3] = {};
};

void encode(const TensorMap& m, uint8_t out[kMapBytes]);
// False when the bytes are not a map encode() wrote; *why says what differs.
bool decode(const uint8_t in[kMapBytes], TensorMap* m, std::string* why);

// Bytes per element; 0 for the packed types (16U4, 16U6).
uint32_t element_bytes(DataType t);
bool is_float(DataType t);
const char* type_name(DataType t);    // "CU_TENSOR_MAP_DATA_TYPE_FLOAT16", ...
const char* swizzle_name(Swizzle s);  // "CU_TENSOR_MAP_SWIZZLE_128B", ...
const char* interleave_name(Interleave i);

// The shared-memory byte a 16-byte-granular swizzle moves `addr` to
// (32B/64B/128B: the 16-byte chunk index, address bits 4..6, XORed with
// bits 7..9, 1/2/3 bits of them: CuTe's Swizzle<1,4,3>, <2,4,3>, <3,4,3>).
// None: addr. The ATOM modes are not modelled (the caller refuses them).
uint32_t swizzle(Swizzle s, uint32_t addr);
// Bytes after which the swizzle pattern repeats: 256, 512, 1024 (0: none).
uint32_t swizzle_repeat(Swizzle s);
// The swizzle's span: 32, 64, 128 bytes (0: none).
uint32_t swizzle_span(Swizzle s);

// The box one copy moves, as rows of dimension 0: `row_elems` consecutive
// elements of dimension 0 per row, row r at r * pitch in shared memory
// before the swizzle. The pitch is the row's bytes without a swizzle and
// the swizzle's span with one (a narrower row leaves the rest of its span
// untouched: measured on an H100, docs/emulator.md). bytes() is what the
// copy moves and signals to the mbarrier: the rows without padding.
struct Box {
  uint32_t row_elems = 0;
  uint32_t rows = 0;
  uint32_t esize = 0;
  uint32_t pitch = 0;
  uint64_t bytes() const { return uint64_t{row_elems} * rows * esize; }
};
// The tile box of a tiled map: boxDim[0] elements of dimension 0 per row
// (its element stride is ignored), ceil(boxDim[i] / elementStrides[i])
// along the others.
Box tile_box(const TensorMap& m);
// The im2col box: pixelsPerColumn rows of channelsPerPixel elements.
Box im2col_box(const TensorMap& m);

// Tensor coordinates of element 0 of box row `r` (dimension 0 ... rank-1):
// tile mode from the copy's coordinates `c`; im2col mode from `c` and the
// instruction's im2col offsets `off` (W, H, D). See tma.cc for im2col's walk.
void tile_row(const TensorMap& m, const int32_t c[kMaxRank], uint32_t r, int64_t g[kMaxRank]);
void im2col_row(const TensorMap& m, const int32_t c[kMaxRank], const uint16_t off[3], uint32_t r,
                int64_t g[kMaxRank]);
// Whether the element at tensor coordinates g lies inside the tensor, and
// its global address when it does.
bool element_address(const TensorMap& m, const int64_t g[kMaxRank], uint64_t* addr);

// cp.reduce.async.bulk.tensor's operations, and whether the ISA defines
// one for a map's element type (add: u32, s32, u64, f32, f16, bf16;
// min/max: u32, s32, u64, s64, f16, bf16; inc/dec: u32; and/or/xor: u32,
// s32, u64, s64; the FTZ f32 type counts as f32).
enum class Red : uint8_t { Add, Min, Max, Inc, Dec, And, Or, Xor };
bool reduce_defined(Red r, DataType t);
// old OP v for one element (bits of the element type, zero-extended): float
// adds round to nearest even (f16/bf16 through f32, rounded once; the FTZ
// type flushes subnormal inputs and result), float min/max return the
// non-NaN operand, inc/dec wrap as atom.inc/dec do.
uint64_t reduce(Red r, DataType t, uint64_t old, uint64_t v);

// The value a NaN-filled out-of-bounds element holds: the 16-bit pattern
// 0x7ff7 repeated over the element, for every float type (f16/bf16
// 0x7ff7, f32/tf32 0x7ff77ff7, f64 0x7ff77ff77ff77ff7; a NaN in each;
// measured on an H100).
uint64_t nan_fill(DataType t);

// Why the GPU refuses a copy's coordinates `c` (empty: it does not). Every
// copy traps (an illegal-instruction error) when c[0] is not a multiple of
// 16 bytes into dimension 0; a store or reduction (`store`) also when any
// coordinate is negative. Loads and prefetches take negative coordinates
// (out-of-bounds elements). Measured on an H100 (docs/emulator.md).
std::string coordinate_error(const TensorMap& m, const int32_t c[kMaxRank], bool store);

}  // namespace smemlab::emu::tma
