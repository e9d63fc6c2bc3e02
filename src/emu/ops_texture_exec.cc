// tex through texture objects: the handle names a Device texture; texels
// are read through the checked global-memory translation (an object whose
// memory was freed faults like any out-of-bounds read).
#include <fmt/format.h>

#include <bit>
#include <cstring>

#include "emu/exec.h"
#include "emu/launch.h"
#include "emu/ops_texture.h"

namespace smemlab::emu {

void exec_tex(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t exec) {
  if (exec == 0) return;  // a false guard: no lane, and op.imm need not name a TexOp
  const TexOp& t = b.prog->tex_ops[static_cast<size_t>(op.imm)];
  uint64_t out[4][32];
  // The fetch reaches its lane through one pointer, so that the
  // std::function holds it in place: a capture of the five references
  // cost a heap allocation per lane and texel. Within this one
  // warp-instruction it keeps the allocation of its last texel: a texel
  // aligned and inside it is read without a search; anything else goes
  // through the checked translation (its faults and messages).
  struct FetchAt {
    BlockCtx& b;
    Warp& w;
    const Op& op;
    uint32_t pc;
    unsigned lane;
    const GlobalMemory::Allocation* last;
  } at{b, w, op, pc, 0, nullptr};
  const texture::Fetch fetch = [f = &at](uint64_t addr, void* dst, unsigned bytes) {
    const GlobalMemory::Allocation* a = f->last;
    const uint64_t align = bytes > 16 ? 16 : bytes;
    if (a && align && (addr & (align - 1)) == 0 && addr - a->base < a->size &&
        bytes <= a->size - (addr - a->base)) {
      std::memcpy(dst, a->data + (addr - a->base), bytes);
      return;
    }
    Space sp;
    uint64_t shown;
    std::memcpy(
        dst,
        mem_translate(f->b, f->w, f->op, f->pc, f->lane, MSpace::Global, addr, bytes, &sp, &shown),
        bytes);
    f->last = f->b.env->global->find(addr);
  };
  uint64_t last_handle = 0;
  const texture::Descriptor* last_d = nullptr;
  SMEMLAB_FOR_LANES(exec, {
    at.lane = l;
    uint64_t handle = reg(w, op.r[4])[l];
    // (One object for the whole warp, as a rule: looked up once.)
    const texture::Descriptor* d = last_d && handle == last_handle ? last_d
                                   : b.env->device                 ? b.env->device->texture(handle)
                                                                   : nullptr;
    last_handle = handle;
    last_d = d;
    if (!d)
      fault(w, pc, static_cast<int>(l), FaultKind::Texture,
            fmt::format("0x{:x} is not a texture object of this device", handle));
    if (d->dims != t.dims || d->layered != t.layered)
      fault(
          w, pc, static_cast<int>(l), FaultKind::Texture,
          fmt::format("texture object 0x{:x} is {}{}D, the instruction reads it as {}{}D", handle,
                      d->layered ? "layered " : "", d->dims, t.layered ? "layered " : "", t.dims));
    unsigned first = t.layered ? 1 : 0;
    int layer = t.layered ? static_cast<int32_t>(reg(w, t.coord[0])[l]) : 0;
    texture::Texel x;
    if (t.int_coords) {
      int32_t c[3] = {0, 0, 0};
      for (unsigned a = 0; a < t.dims; ++a)
        c[a] = static_cast<int32_t>(reg(w, t.coord[first + a])[l]);
      x = texture::fetch_texel(*d, fetch, c[0], c[1], c[2], layer);
    } else {
      float c[3] = {0, 0, 0};
      for (unsigned a = 0; a < t.dims; ++a)
        c[a] = std::bit_cast<float>(static_cast<uint32_t>(reg(w, t.coord[first + a])[l]));
      try {
        x = texture::sample(*d, fetch, c[0], c[1], c[2], layer);
      } catch (const std::invalid_argument& e) {
        fault(w, pc, static_cast<int>(l), FaultKind::Texture, e.what());
      }
    }
    for (int ch = 0; ch < 4; ++ch) {
      auto k = static_cast<size_t>(ch);
      if (t.dtype == F32)
        out[ch][l] = std::bit_cast<uint32_t>(x.integer ? static_cast<float>(x.i[k]) : x.f[k]);
      else
        out[ch][l] = static_cast<uint32_t>(x.integer ? static_cast<int32_t>(x.i[k])
                                                     : static_cast<int32_t>(x.f[k]));
    }
  });
  for (int ch = 0; ch < 4; ++ch) {
    uint64_t* D = regw(w, op.r[ch]);
    SMEMLAB_FOR_LANES(exec, D[l] = out[ch][l]);
  }
}

}  // namespace smemlab::emu
