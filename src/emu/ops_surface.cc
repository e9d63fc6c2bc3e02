// Surfaces through surface objects (cudaSurfaceObject_t; surf1Dread,
// surf2Dwrite, ... in CUDA): suld.b / sust.b, the "unformatted" forms nvcc
// emits for every surface intrinsic. The handle names a Device surface (a
// texture::Descriptor without sampling state); x is a byte offset in the
// row, y/z/layer are element indices (the PTX ISA's rule for .b). Accesses
// go through the checked global translation and are reported to observers
// as global loads/stores, so check sees races on surface memory.
#include <fmt/format.h>

#include <cstring>

#include "emu/decode_context.h"
#include "emu/exec.h"
#include "emu/launch.h"

namespace smemlab::emu {

using K = ptx::Operand::Kind;

// suld.b.{1d,2d,3d,a1d,a2d}{.v2,.v4}.{b8,b16,b32,b64}{.trap,.clamp,.zero} d, [s, {coords}]
// sust.b.{...}                                                   [s, {coords}], d
void decode_surface(Insn& d) {
  const ptx::Instruction& in = d.in;
  DecodeContext& c = d.c;
  bool store = d.opcode() == "sust";
  if (!in.has_mod("b"))
    d.c.fail(in.pos, fmt::format("unsupported instruction '{}': only the unformatted (.b) surface "
                                 "forms; formatted .p access is not supported",
                                 in.text()));
  TexOp t;
  static const struct {
    const char* name;
    uint8_t dims;
    bool layered;
    uint8_t ncoord;
  } geoms[] = {{"1d", 1, false, 1},
               {"2d", 2, false, 2},
               {"3d", 3, false, 4},
               {"a1d", 1, true, 2},
               {"a2d", 2, true, 4}};
  bool found = false;
  for (const auto& g : geoms)
    if (in.has_mod(g.name))
      t.dims = g.dims, t.layered = g.layered, t.ncoord = g.ncoord, found = true;
  if (!found) d.unsupported();
  uint8_t width = in.has_mod("b8")    ? 1
                  : in.has_mod("b16") ? 2
                  : in.has_mod("b32") ? 4
                  : in.has_mod("b64") ? 8
                                      : 0;
  uint8_t vec = in.has_mod("v4") ? 4 : in.has_mod("v2") ? 2 : 1;
  if (!width) d.unsupported();
  // Out-of-range handling: .trap (the default of the CUDA intrinsics) faults,
  // .clamp moves to the nearest element, .zero reads 0 / drops the store.
  uint8_t mode = in.has_mod("clamp") ? 1 : in.has_mod("zero") ? 2 : 0;
  d.need(2);
  const auto& a = in.operands[store ? 0 : 1];
  const auto& data = in.operands[store ? 1 : 0];
  if (a.kind != K::Addr || a.elems.size() != 1 || a.elems[0].kind != K::Vector)
    c.fail(a.pos, "expected [surface, {coordinates}] (surface references are not supported)");
  const auto& coords = a.elems[0].elems;
  if (coords.size() != t.ncoord)
    c.fail(a.pos, fmt::format("'{}' expects {} coordinates, found {}", in.text(), t.ncoord,
                              coords.size()));
  for (size_t i = 0; i < coords.size(); ++i) t.coord[i] = c.src(coords[i], S32);
  std::vector<const ptx::Operand*> regs;
  if (data.kind == K::Vector)
    for (const auto& e : data.elems) regs.push_back(&e);
  else
    regs.push_back(&data);
  if (regs.size() != vec)
    c.fail(data.pos,
           fmt::format("'{}' expects {} data registers, found {}", in.text(), vec, regs.size()));
  auto& fr = c.frames.back();
  auto r = fr.regs.find(a.name);
  if (r == fr.regs.end())
    c.fail(a.pos,
           "a surface object handle register is needed (surface references are not "
           "supported)");
  T rt = width == 8 ? U64 : U32;
  d.op.code = code(store ? SUST : SULD, U32);
  for (size_t i = 0; i < regs.size(); ++i)
    d.op.r[i] = store ? c.src(*regs[i], rt) : c.dst(*regs[i]);
  d.op.r[4] = r->second;
  d.op.width = width;
  d.op.vec = vec;
  d.op.aux = mode;
  d.op.imm = static_cast<int64_t>(c.prog->tex_ops.size());
  c.prog->tex_ops.push_back(t);
  d.push();
}

namespace {

// The byte address of each lane's access, or 0 for a dropped (.zero) one.
void surface_addresses(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t exec,
                       uint64_t* addr) {
  const TexOp& t = b.prog->tex_ops[static_cast<size_t>(op.imm)];
  const uint32_t size = uint32_t{op.width} * op.vec;
  SMEMLAB_FOR_LANES(exec, {
    uint64_t handle = reg(w, op.r[4])[l];
    const texture::Descriptor* d = b.env->device ? b.env->device->surface(handle) : nullptr;
    if (!d)
      fault(w, pc, static_cast<int>(l), FaultKind::Surface,
            fmt::format("0x{:x} is not a surface object of this device", handle));
    if (d->dims != t.dims || d->layered != t.layered)
      fault(w, pc, static_cast<int>(l), FaultKind::Surface,
            fmt::format("surface object 0x{:x} is {}{}D, the instruction accesses it as {}{}D",
                        handle, d->layered ? "layered " : "", d->dims, t.layered ? "layered " : "",
                        t.dims));
    unsigned first = t.layered ? 1 : 0;
    int64_t c[4] = {0, 0, 0, 0};  // x (bytes), y, z, layer
    for (unsigned k = 0; k < t.dims; ++k)
      c[k] = static_cast<int32_t>(reg(w, t.coord[first + k])[l]);
    c[3] = t.layered ? static_cast<int32_t>(reg(w, t.coord[0])[l]) : 0;
    const int64_t row = static_cast<int64_t>(d->width * d->texel_bytes());
    const int64_t ext[4] = {row - size + 1, d->height, d->depth, d->layers};
    if (c[0] % size != 0)
      fault(w, pc, static_cast<int>(l), FaultKind::Misaligned,
            fmt::format("surface x offset {} bytes is not a multiple of the {}-byte access", c[0],
                        size));
    bool out = false;
    for (int k = 0; k < 4; ++k) {
      if (c[k] >= 0 && c[k] < ext[k]) continue;
      if (op.aux == 1) {
        c[k] = c[k] < 0 ? 0 : (k == 0 ? (row / size - 1) * size : ext[k] - 1);
      } else {
        out = true;
      }
    }
    if (out && op.aux == 0)
      fault(w, pc, static_cast<int>(l), FaultKind::Surface,
            fmt::format("surface access at x = {} bytes, y = {}, z = {}, layer = {} is outside the "
                        "{}x{}x{} surface ({} layers; .trap)",
                        c[0], c[1], c[2], c[3], d->width, d->height, d->depth, d->layers));
    addr[l] = out ? 0
                  : d->base +
                        static_cast<uint64_t>((c[3] * d->depth + c[2]) * d->height + c[1]) *
                            d->row_bytes() +
                        static_cast<uint64_t>(c[0]);
  });
}

void access(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t exec, bool store) {
  if (exec == 0) return;
  uint64_t addr[32] = {};
  surface_addresses(b, w, op, pc, exec, addr);
  const uint32_t size = uint32_t{op.width} * op.vec;
  Space spaces[32] = {};
  uint64_t shown[32] = {};
  uint32_t live = 0;
  uint64_t values[4][32] = {};
  // Lanes whose .zero access fell outside keep address 0 and are skipped.
  SMEMLAB_FOR_LANES(exec, {
    if (addr[l]) {
      live |= 1u << l;
      uint8_t* p = mem_translate(b, w, op, pc, l, MSpace::Global, addr[l], size, &spaces[l],
                                 &shown[l]);
      for (unsigned e = 0; e < op.vec; ++e) {
        if (store) {
          uint64_t v = reg(w, op.r[e])[l];
          std::memcpy(p + e * op.width, &v, op.width);  // little-endian: the low bytes
        } else {
          uint64_t v = 0;
          std::memcpy(&v, p + e * op.width, op.width);
          values[e][l] = v;
        }
      }
    }
  });
  if (!store)
    for (unsigned e = 0; e < op.vec; ++e) {
      uint64_t* D = regw(w, op.r[e]);
      SMEMLAB_FOR_LANES(exec, D[l] = values[e][l]);
    }
  if (live && b.obs)
    mem_emit(b, w, op, store ? MemOp::Store : MemOp::Load, size, live, spaces, shown, 0);
}

}  // namespace

void exec_suld(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t exec) {
  access(b, w, op, pc, exec, false);
}
void exec_sust(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t exec) {
  access(b, w, op, pc, exec, true);
}

namespace {
// Tagged like texture handles, with another tag, so that passing one kind of
// object where the other is expected is reported.
constexpr uint64_t kSurfaceTag = 0x5f78000000000000ull;
}  // namespace

uint64_t Device::create_surface(const texture::Descriptor& d) {
  if (d.channels != 1 && d.channels != 2 && d.channels != 4)
    throw std::invalid_argument("surface: 1, 2 or 4 channels");
  if (d.dims < 1 || d.dims > 3 || (d.layered && d.dims == 3))
    throw std::invalid_argument("surface: 1D, 2D or 3D, layered only 1D or 2D");
  if (!d.width || !d.height || !d.depth || !d.layers)
    throw std::invalid_argument("surface: zero extent");
  if (d.pitch && d.pitch < d.width * d.texel_bytes())
    throw std::invalid_argument("surface: pitch smaller than a row");
  uint64_t rows = uint64_t{d.height} * d.depth * d.layers;
  uint64_t bytes = (rows - 1) * d.row_bytes() + d.width * d.texel_bytes();
  if (!mem_.translate(d.base, bytes))
    throw std::invalid_argument(fmt::format(
        "surface: {} bytes at 0x{:x} are not inside one device allocation", bytes, d.base));
  surfaces_.push_back(d);
  return kSurfaceTag | surfaces_.size();
}

bool Device::destroy_surface(uint64_t handle) {
  if (!surface(handle)) return false;
  surfaces_[(handle & ~kSurfaceTag) - 1].reset();
  return true;
}

const texture::Descriptor* Device::surface(uint64_t handle) const {
  uint64_t i = handle & ~kSurfaceTag;
  if ((handle & kSurfaceTag) != kSurfaceTag || i == 0 || i > surfaces_.size() || !surfaces_[i - 1])
    return nullptr;
  return &*surfaces_[i - 1];
}

}  // namespace smemlab::emu
