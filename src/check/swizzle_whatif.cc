#include "check/swizzle_whatif.h"

#include <fmt/format.h>

#include <algorithm>

#include "bank/hopper.h"
#include "bank/ldmatrix.h"
#include "emu/tma.h"

namespace smemlab::check {

const char* swizzle_mode_name(int mode) {
  static const char* const names[] = {"none", "32B", "64B", "128B"};
  return mode >= 0 && mode < kSwizzleModes ? names[mode] : "?";
}

int best_swizzle(const SwizzleBuffer& b) {
  int best = b.swizzle;
  for (int m = 0; m < kSwizzleModes; ++m)
    if (b.wavefronts[m] && (!b.wavefronts[best] || *b.wavefronts[m] < *b.wavefronts[best]))
      best = m;
  return best;
}

SwizzleProposal swizzle_proposal(const SwizzleBuffer& b, int to) {
  static const char* const fields[] = {"CU_TENSOR_MAP_SWIZZLE_NONE", "CU_TENSOR_MAP_SWIZZLE_32B",
                                       "CU_TENSOR_MAP_SWIZZLE_64B", "CU_TENSOR_MAP_SWIZZLE_128B"};
  SwizzleProposal p;
  p.tensor_map_swizzle = fields[to];
  if (to == 0) {
    p.row_pitch = b.row_bytes;
    p.alignment = 16;
    return p;
  }
  // Mode m XORs the 16-byte chunk index (address bits 4..) with the m bits
  // from bit 7 up: CuTe's Swizzle<BBits = m, MBase = 4, SShift = 3> on bytes,
  // a pattern that repeats every 128 << m bytes.
  p.cute_swizzle = fmt::format("Swizzle<{},4,3>", to);
  p.reader_xor = fmt::format("o ^ ((o >> 7 & {}) << 4)", (1u << to) - 1);
  p.row_pitch = 16u << to;
  p.alignment = 128u << to;
  return p;
}

uint64_t descriptor_under(uint32_t start, int to) {
  // The descriptor's 2-bit layout field: 0 none, 1 128B, 2 64B, 3 32B.
  static constexpr uint64_t kField[kSwizzleModes] = {0, 3, 2, 1};
  const uint32_t span = to == 0 ? 0 : 16u << to;
  const uint32_t lbo = to == 0 ? 128 : 16, sbo = to == 0 ? 256 : 8 * span;
  return uint64_t{(start & 0x3ffff) >> 4} | uint64_t{lbo >> 4} << 16 | uint64_t{sbo >> 4} << 32 |
         kField[to] << 62;
}

namespace {

using emu::tma::Swizzle;

Swizzle mode_of(int m) { return static_cast<Swizzle>(m); }

// Bytes from one box row to the next under mode m (the H100's layout,
// emu/tma.h); 0 when the mode's span cannot hold a row.
uint32_t pitch_of(int m, uint32_t row_bytes) {
  const uint32_t span = emu::tma::swizzle_span(mode_of(m));
  if (!span) return row_bytes;
  return row_bytes <= span ? span : 0;
}

}  // namespace

bool SwizzleWhatIf::remap(uint32_t base, uint32_t row_bytes, int from, int to, uint64_t addr,
                          uint64_t* out) {
  const uint32_t from_pitch = pitch_of(from, row_bytes), to_pitch = pitch_of(to, row_bytes);
  if (!from_pitch || !to_pitch || addr < base || addr >= uint64_t{1} << 32) return false;
  // The swizzles XOR address bits 4..6 with bits 7..9: their own inverse.
  const uint32_t logical = emu::tma::swizzle(mode_of(from), static_cast<uint32_t>(addr)) - base;
  const uint32_t row = logical / from_pitch, byte = logical % from_pitch;
  if (byte >= row_bytes) return false;  // the padding of a narrow row
  *out = emu::tma::swizzle(mode_of(to), base + row * to_pitch + byte);
  return true;
}

namespace {

struct Box {
  SwizzleBuffer* key = nullptr;  // the block's buffer entry
  uint32_t base = 0, end = 0;
};

class BlockSwizzle final : public emu::BlockObserver {
 public:
  explicit BlockSwizzle(const bank::Model* model) : model_(model) {}

  void on_bulk_copy(const emu::BulkCopy& c) override {
    if (!c.tensor || c.kind != emu::BulkKind::Load || c.phase != emu::BulkPhase::Issue) return;
    // This block's shared memory: an incoming copy, or the issuer's own
    // destination (a multicast including it).
    const bool here =
        c.incoming || (c.multicast ? (c.multicast >> c.issuer_rank & 1) : c.rank == c.issuer_rank);
    if (!here || c.swizzle >= kSwizzleModes) return;
    SwizzleBuffer& b = buffers[{c.instr->pc, c.shared_base}];
    b.load = c.instr;
    b.shared_base = c.shared_base;
    b.swizzle = c.swizzle;
    b.row_bytes = c.row_bytes;
    b.rows = c.rows;
    // The latest load over an offset owns it (pipeline stages refill theirs).
    const uint32_t end = c.shared_base + c.rows * c.pitch;
    std::erase_if(boxes_, [&](const Box& x) { return x.base < end && c.shared_base < x.end; });
    boxes_.push_back({&b, c.shared_base, end});
  }

  void on_memory(const emu::MemAccess& a) override {
    if (a.space != emu::Space::Shared || a.op != emu::MemOp::Load || !a.mask || boxes_.empty())
      return;
    uint32_t mask = a.mask;
    if (a.matrices && a.matrices < 4) mask &= (1u << (8 * a.matrices)) - 1u;
    const unsigned width = a.matrices ? 16 : a.width;
    const uint64_t first = a.addr[__builtin_ctz(mask)];
    const Box* box = nullptr;
    for (const Box& x : boxes_)
      if (first >= x.base && first < x.end) box = &x;
    if (!box) return;
    for (uint32_t m = mask; m; m &= m - 1) {
      const uint64_t ad = a.addr[__builtin_ctz(m)];
      if (ad < box->base || ad + width > box->end) return;  // not all inside: not this buffer's
    }
    SwizzleBuffer& b = *box->key;
    ++b.reads;
    b.readers.insert(a.instr);
    for (int to = 0; to < kSwizzleModes; ++to) cost_under(a, mask, b, to);
  }

  // A wgmma operand read from a TMA-filled buffer (its first chunk inside):
  // 1 wavefront per core matrix (8 chunks) under every swizzle mode and
  // descriptor layout (docs/bank-model.md, "wgmma operand reads"), so the
  // what-if shows the same number in every mode. Counted once per
  // warpgroup instruction (its first warp), as HopperAnalysis counts gmma.
  void on_wgmma(const emu::Wgmma& g) override {
    if (g.kind != emu::WgmmaKind::Mma || g.sass_only || g.warp % 4) return;
    auto read = [&](const emu::WgmmaOperand& op, bool is_a) {
      if (op.chunks.empty()) return;
      for (const Box& x : boxes_)
        if (op.chunks.front() >= x.base && op.chunks.front() < x.end) {
          ++x.key->gmma_reads;
          x.key->gmma_wavefronts += (op.chunks.size() + 7) / 8;
          return;
        }
      read_descriptor_only(g, op, is_a);
    };
    read(g.b, false);
    if (g.a_shared) read(g.a, true);
  }

  std::map<std::pair<uint32_t, uint32_t>, SwizzleBuffer> buffers;
  std::map<SwizzleWhatIf::DescriptorKey, DescriptorBuffer> descriptors;

 private:
  void cost_under(const emu::MemAccess& a, uint32_t mask, SwizzleBuffer& b, int to) {
    std::array<uint64_t, 32> addr{};
    for (uint32_t m = mask; m; m &= m - 1) {
      const unsigned l = static_cast<unsigned>(__builtin_ctz(m));
      // A 16-byte access stays inside its chunk, so its first byte's new
      // place carries the rest (4- and 8-byte ones likewise).
      if (!SwizzleWhatIf::remap(b.shared_base, b.row_bytes, b.swizzle, to, a.addr[l], &addr[l])) {
        if (pitch_of(to, b.row_bytes) == 0) return;  // the mode cannot hold the box
        addr[l] = a.addr[l];                         // padding: read where it was
      }
    }
    try {
      unsigned wf;
      if (a.matrices) {
        bank::MatrixRequest r;
        r.matrices = a.matrices;
        r.mask = mask;
        r.addr = addr;
        wf = model_->evaluate_matrix(r).wavefronts;
      } else {
        bank::Request r;
        r.width = a.width;
        r.mask = mask;
        r.addr = addr;
        wf = model_->cost(r).wavefronts;
      }
      b.wavefronts[to] = b.wavefronts[to].value_or(0) + wf;
    } catch (const bank::Error&) {
      if (to == 0) ++b.unmodelled;
    }
  }

  // An operand outside every TMA box: a descriptor-only buffer, its read
  // costed under each layout the descriptor could name.
  void read_descriptor_only(const emu::Wgmma& g, const emu::WgmmaOperand& op, bool is_a) {
    static constexpr uint8_t kModeOfField[4] = {0, 3, 2, 1};  // field -> none, 32B, 64B, 128B
    DescriptorBuffer& d = descriptors[{g.instr->pc, is_a, op.chunks.front() & ~1023u}];
    d.wgmma = g.instr;
    d.operand_a = is_a;
    d.shared_base = op.chunks.front() & ~1023u;
    d.swizzle = kModeOfField[op.swizzle & 3];
    d.mn_major = op.mn_major;
    d.rows = op.mn;
    d.elem_bytes = op.elem_bytes;
    ++d.reads;
    for (int to = 0; to < kSwizzleModes; ++to) {
      // The descriptor's own layout as it is; the others canonical.
      const uint64_t desc = to == d.swizzle ? op.desc : descriptor_under(op.start, to);
      try {
        const bank::Cost c =
            bank::gmma_operand_cost({desc, op.mn_major, op.elem_bytes, op.mn, op.mn0});
        d.wavefronts[to] = d.wavefronts[to].value_or(0) + c.wavefronts;
      } catch (const bank::Error&) {
        if (to == d.swizzle) ++d.unmodelled;
      }
    }
  }

  const bank::Model* model_;
  std::vector<Box> boxes_;
};

}  // namespace

std::unique_ptr<emu::BlockObserver> SwizzleWhatIf::make_block_observer(emu::Dim3) {
  return std::make_unique<BlockSwizzle>(model_);
}

void SwizzleWhatIf::finish_block(emu::Dim3, std::unique_ptr<emu::BlockObserver> observer) {
  for (auto& [key, d] : static_cast<BlockSwizzle*>(observer.get())->descriptors) {
    auto [it, fresh] = descriptors_.try_emplace(key, d);
    if (fresh) continue;
    it->second.reads += d.reads;
    it->second.unmodelled += d.unmodelled;
    for (int m = 0; m < kSwizzleModes; ++m)
      if (d.wavefronts[m])
        it->second.wavefronts[m] = it->second.wavefronts[m].value_or(0) + *d.wavefronts[m];
  }
  for (auto& [key, b] : static_cast<BlockSwizzle*>(observer.get())->buffers) {
    auto [it, fresh] = buffers_.try_emplace(key, b);
    if (fresh) continue;
    SwizzleBuffer& into = it->second;
    into.reads += b.reads;
    into.gmma_reads += b.gmma_reads;
    into.gmma_wavefronts += b.gmma_wavefronts;
    into.unmodelled += b.unmodelled;
    into.readers.insert(b.readers.begin(), b.readers.end());
    for (int m = 0; m < kSwizzleModes; ++m)
      if (b.wavefronts[m]) into.wavefronts[m] = into.wavefronts[m].value_or(0) + *b.wavefronts[m];
  }
}

void SwizzleWhatIf::scale(double f) {
  auto s = [f](uint64_t v) { return static_cast<uint64_t>(static_cast<double>(v) * f + 0.5); };
  for (auto& [key, b] : buffers_) {
    b.reads = s(b.reads);
    b.gmma_reads = s(b.gmma_reads);
    b.gmma_wavefronts = s(b.gmma_wavefronts);
    b.unmodelled = s(b.unmodelled);
    for (auto& w : b.wavefronts)
      if (w) w = s(*w);
  }
  for (auto& [key, d] : descriptors_) {
    d.reads = s(d.reads);
    d.unmodelled = s(d.unmodelled);
    for (auto& w : d.wavefronts)
      if (w) w = s(*w);
  }
}

}  // namespace smemlab::check
