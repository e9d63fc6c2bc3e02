// Texture sampling as a pure function (CUDA texture objects, PTX `tex`):
// addressing modes, point and linear filtering with the hardware's 1.8
// fixed-point weights, normalized coordinates, element and normalized-float
// reads. The interpreter's executor resolves the handle to a Descriptor and
// calls sample(); texels are read through a callback so that bounds are
// checked by the caller's memory model.
#pragma once

#include <array>
#include <cstdint>
#include <functional>

namespace smemlab::emu::texture {

enum class Address : uint8_t { Wrap, Clamp, Mirror, Border };  // cudaAddressMode order
enum class Filter : uint8_t { Point, Linear };
enum class Format : uint8_t { U8, S8, U16, S16, U32, S32, F16, F32 };
enum class Read : uint8_t { Element, NormalizedFloat };

unsigned format_bytes(Format f);

struct Descriptor {
  uint64_t base = 0;  // device address of texel (0, 0, 0) of layer 0
  Format format = Format::F32;
  unsigned channels = 1;  // 1, 2 or 4
  unsigned dims = 1;      // 1, 2 or 3
  bool layered = false;   // a1d / a2d (a cubemap: its faces are layers)
  bool cubemap = false;   // 6 square faces per cube (layers = 6 x cubes), read by tex.cube/acube
  uint32_t width = 1, height = 1, depth = 1, layers = 1;
  uint64_t pitch = 0;  // bytes per row (0: width * texel bytes)
  std::array<Address, 3> address{Address::Clamp, Address::Clamp, Address::Clamp};
  Filter filter = Filter::Point;
  Read read = Read::Element;
  bool normalized_coords = false;
  std::array<float, 4> border{0, 0, 0, 0};
  uint64_t texel_bytes() const { return uint64_t{format_bytes(format)} * channels; }
  uint64_t row_bytes() const { return pitch ? pitch : width * texel_bytes(); }
};

// Reads `bytes` at device address `addr` into `out`.
using Fetch = std::function<void(uint64_t addr, void* out, unsigned bytes)>;

// Four channels (missing channels: 0, alpha 1 as CUDA returns them). For an
// element read of an integer format the values are the integers (as float
// bit patterns are not used: `i` holds them); otherwise `f`.
struct Texel {
  std::array<float, 4> f{0, 0, 0, 0};
  std::array<int64_t, 4> i{0, 0, 0, 0};
  bool integer = false;
};

// Samples at (x, y, z) — unused coordinates are ignored — in `layer`.
// Throws std::invalid_argument for linear filtering of an integer element
// read (CUDA rejects that descriptor).
Texel sample(const Descriptor& d, const Fetch& fetch, float x, float y, float z, int layer);

// A cubemap read (tex.cube, tex.acube; texCubemap, texCubemapLayered): the
// face the direction (x, y, z) points at and the normalized coordinates on
// it, per the CUDA programming guide's cubemap table (the major axis picks
// the face; of equal magnitudes x, then y, wins).
struct CubeFace {
  int face = 0;  // +x, -x, +y, -y, +z, -z
  float u = 0, v = 0;
};
CubeFace cube_face(float x, float y, float z);

// Integer texel coordinates (tex with .s32 coordinates, tex1Dfetch): no
// filtering, no normalization; out-of-range coordinates are clamped (border
// mode: the border color).
Texel fetch_texel(const Descriptor& d, const Fetch& fetch, int32_t x, int32_t y, int32_t z,
                  int layer);

}  // namespace smemlab::emu::texture
