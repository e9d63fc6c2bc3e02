#include "check/padding_whatif.h"

#include <algorithm>
#include <bit>
#include <map>

#include "bank/ldmatrix.h"
#include "check/spare_pool.h"
#include "emu/memory.h"

namespace smemlab::check {

// A request's lanes are 32-bit shared offsets: the emulator's shared
// window is 2^32 bytes (an access past it faults before its event), and
// half the bytes per request are half to build, hash, copy and compare.
static_assert(emu::kWindowSize <= uint64_t{1} << 32);

// (Not in the anonymous namespace: PaddingWhatIf::Recorded, a class with
// linkage, holds them.)
struct PadRequest {
  uint64_t hash;  // hash_of(*this), computed once where the request is made
  uint64_t count;
  const emu::InstrInfo* instr;
  uint32_t mask;
  bank::Op op;
  uint8_t width, matrices;
  std::array<uint32_t, 32> addr;  // 0 in inactive lanes
  bool same(const PadRequest& o) const {
    return op == o.op && width == o.width && matrices == o.matrices && mask == o.mask &&
           addr == o.addr;
  }
};

namespace {

constexpr size_t kMaxDistinct = size_t{1} << 15;  // per buffer: bounds the memory kept
constexpr uint32_t kMaxPadWords = 32;  // k and k + 32 words put every word in the same bank

// (Inactive lanes' addresses are 0 in a PadRequest, so all 32 lanes are
// hashed: four independent multiply chains instead of one through every
// lane, which was most of analyze's time on a shared-memory sweep. Only
// where a request sits in the index depends on the hash, never what is
// kept or counted.)
uint64_t hash_of(const PadRequest& r) {
  constexpr uint64_t kPrime = 1099511628211ull;
  uint64_t h[4] = {1469598103934665603ull ^ r.mask,
                   static_cast<uint64_t>(r.op) << 16 | uint64_t{r.width} << 8 | r.matrices, 0, 0};
  for (unsigned l = 0; l < 32; l += 4)
    for (unsigned j = 0; j < 4; ++j) h[j] = (h[j] ^ r.addr[l + j]) * kPrime;
  return ((h[0] * kPrime ^ h[1]) * kPrime ^ h[2]) * kPrime ^ h[3];
}

// A request's cost with the lanes inside [base, base + bytes) moved by
// `pad` bytes per `pitch`-byte row (pad 0: as recorded); nullopt when the
// model refuses it.
std::optional<std::pair<unsigned, unsigned>> pad_cost(const bank::Model& model, const PadRequest& r,
                                                      uint32_t base, uint32_t bytes, uint32_t pitch,
                                                      uint32_t pad) {
  std::array<uint64_t, 32> addr;
  std::copy(r.addr.begin(), r.addr.end(), addr.begin());
  if (pad)
    for (uint32_t m = r.mask; m; m &= m - 1) {
      uint64_t& a = addr[__builtin_ctz(m)];
      if (a >= base && a < uint64_t{base} + bytes)
        a = base + PaddingWhatIf::padded(a - base, pitch, pad);
    }
  try {
    bank::Result res;
    if (r.matrices) {
      bank::MatrixRequest q;
      q.store = r.op == bank::Op::Store;
      q.matrices = r.matrices;
      q.mask = r.mask;
      q.addr = addr;
      res = model.evaluate_matrix(q);
    } else {
      bank::Request q;
      q.op = r.op;
      q.width = r.width;
      q.mask = r.mask;
      q.addr = addr;
      res = model.evaluate(q);
    }
    return std::pair{res.wavefronts, res.ideal};
  } catch (const bank::Error&) {
    return std::nullopt;
  }
}

}  // namespace

// A buffer's distinct requests, merged with a count. The index is open
// addressing over `requests` (a slot holds the hash's top 32 bits over an
// index + 1, 0 empty, so that a probe mostly reads no request), at most
// half full: no allocation per request, as a node-based map made (malloc
// and free were a tenth of analyze's time on mergeSort). Requests are kept
// once each, in the order first added; the index only finds them.
struct PaddingWhatIf::Recorded {
  std::vector<uint64_t> slots;
  std::vector<PadRequest> requests;
  bool bulk_filled = false;  // a TMA or bulk copy wrote it: the swizzle what-if's, or neither's
  bool incomplete = false;

  // Adds `r`; its index in `requests`, or kDropped (the buffer is full).
  static constexpr size_t kDropped = SIZE_MAX;
  size_t add(const PadRequest& r) {
    if (slots.empty()) slots.assign(kFirstSlots, 0);
    size_t s = find(r);
    if (slots[s]) {
      const size_t i = static_cast<uint32_t>(slots[s]) - 1;
      requests[i].count += r.count;
      return i;
    }
    if (requests.size() >= kMaxDistinct) {
      incomplete = true;
      return kDropped;
    }
    if (2 * (requests.size() + 1) > slots.size()) {
      grow();
      s = find(r);
    }
    requests.push_back(r);
    slots[s] = slot(r.hash, requests.size() - 1);
    return requests.size() - 1;
  }
  // (Blocks of a launch mostly make the same requests in the same order:
  // the entry after the last one found is tried first, without the index.
  // Requests are kept once each, so it is the entry add() would find.)
  void merge(const Recorded& o) {
    bulk_filled |= o.bulk_filled;
    incomplete |= o.incomplete;
    size_t next = 0;
    for (const PadRequest& r : o.requests) {
      if (next < requests.size() && requests[next].hash == r.hash && requests[next].same(r)) {
        requests[next++].count += r.count;
        continue;
      }
      const size_t i = add(r);
      if (i != kDropped) next = i + 1;
    }
  }
  // Empty, its storage kept (a pooled block's).
  void clear() {
    requests.clear();
    std::fill(slots.begin(), slots.end(), 0);
    bulk_filled = incomplete = false;
  }
  size_t bytes() const {
    return slots.capacity() * sizeof(uint64_t) + requests.capacity() * sizeof(PadRequest);
  }

 private:
  static constexpr size_t kFirstSlots = 64;
  // The slot of the request equal to `r`, else the empty slot that ends its
  // probe (slots.size() is a power of two, the top bits of a mix of the
  // hash pick the first).
  size_t find(const PadRequest& r) const {
    const size_t mask = slots.size() - 1;
    const int shift = 64 - std::countr_zero(slots.size());
    for (size_t s = (r.hash * 0x9E3779B97F4A7C15ull) >> shift;; s = (s + 1) & mask) {
      const uint64_t v = slots[s];
      if (!v) return s;
      if (v >> 32 != r.hash >> 32) continue;
      const PadRequest& q = requests[static_cast<uint32_t>(v) - 1];
      if (q.hash == r.hash && q.same(r)) return s;
    }
  }
  static uint64_t slot(uint64_t hash, size_t i) { return (hash >> 32) << 32 | (i + 1); }
  void grow() {
    slots.assign(2 * slots.size(), 0);
    const size_t mask = slots.size() - 1;
    const int shift = 64 - std::countr_zero(slots.size());
    for (size_t i = 0; i < requests.size(); ++i) {
      size_t s = (requests[i].hash * 0x9E3779B97F4A7C15ull) >> shift;
      while (slots[s]) s = (s + 1) & mask;
      slots[s] = slot(requests[i].hash, i);
    }
  }
};

namespace {

// Each (warp, instruction)'s last two requests, by a small hash of both.
struct Last {
  const emu::InstrInfo* instr = nullptr;
  uint32_t warp = 0;
  std::array<uint32_t, 2> buffer{};
  std::array<size_t, 2> index{};
  unsigned n = 0;  // requests kept: the latest first
};
constexpr size_t kLast = 256;

// A block's records, one per buffer, and its memo of last requests: taken
// from a process-wide pool and given back emptied, so that a block does
// not allocate its tables afresh (their growth, copies and frees were
// about a tenth of analyze's time on mergeSort's thousands of blocks).
struct BlockTables {
  std::vector<PaddingWhatIf::Recorded> recorded;
  std::array<Last, kLast> last{};
  void clear() {
    for (PaddingWhatIf::Recorded& r : recorded) r.clear();
    last.fill(Last{});
  }
  size_t bytes() const {
    size_t n = sizeof(*this);
    for (const PaddingWhatIf::Recorded& r : recorded) n += r.bytes();
    return n;
  }
};

// (Never destroyed: a launch on another thread may end while the process
// exits.)
SparePool<BlockTables>& spare_tables() {
  constexpr size_t kMaxEach = size_t{16} << 20, kMaxTotal = size_t{128} << 20;
  static auto* pool = new SparePool<BlockTables>(32, kMaxEach, kMaxTotal);
  return *pool;
}

class BlockPadding final : public emu::BlockObserver {
 public:
  explicit BlockPadding(const std::vector<PaddingBuffer>* spans)
      : spans_(spans), t_(spare_tables().take()), recorded_(t_->recorded), last_(t_->last) {
    recorded_.resize(spans->size());
  }
  ~BlockPadding() override {
    t_->clear();
    spare_tables().give(std::move(t_));
  }
  BlockPadding(const BlockPadding&) = delete;
  BlockPadding& operator=(const BlockPadding&) = delete;

  void on_bulk_copy(const emu::BulkCopy& c) override {
    if (c.kind != emu::BulkKind::Load || c.phase != emu::BulkPhase::Issue) return;
    const bool here =
        c.incoming || (c.multicast ? (c.multicast >> c.issuer_rank & 1) : c.rank == c.issuer_rank);
    if (!here) return;
    if (int b = buffer_of(c.shared_base); b >= 0) recorded_[b].bulk_filled = true;
  }

  void on_memory(const emu::MemAccess& a) override {
    // What BankAnalysis costs: ld/st/atom and ldmatrix/stmatrix, not the
    // mbarrier operations, cp.async or the async proxy's chunks.
    if (a.space != emu::Space::Shared || !a.mask || a.mbarrier) return;
    if (a.op != emu::MemOp::Load && a.op != emu::MemOp::Store && a.op != emu::MemOp::Atomic &&
        a.op != emu::MemOp::Reduction)
      return;
    uint32_t mask = a.mask;
    if (a.matrices && a.matrices < 4) mask &= (1u << (8 * a.matrices)) - 1u;
    if (!mask) return;
    // A warp's instruction mostly repeats one of its last two requests (a
    // loop's sweeps; two for a double buffer's halves): then that request's
    // count goes up, without building and hashing it. (Requests are kept
    // once each, so this is the entry add() would find; the same addresses
    // are in the same buffer.)
    Last& last = last_[(a.warp * 31 + (reinterpret_cast<uintptr_t>(a.instr) >> 3)) % kLast];
    const bool known = last.instr == a.instr && last.warp == a.warp && a.instr;
    for (unsigned k = 0; known && k < last.n; ++k) {
      PadRequest& q = recorded_[last.buffer[k]].requests[last.index[k]];
      if (same_request(q, a, mask)) {
        ++q.count;
        return;
      }
    }
    const int b = buffer_of(a.addr[__builtin_ctz(mask)]);
    if (b < 0) return;
    PadRequest r;
    r.op = a.op == emu::MemOp::Load    ? bank::Op::Load
           : a.op == emu::MemOp::Store ? bank::Op::Store
                                       : bank::Op::Atomic;
    r.width = static_cast<uint8_t>(a.width);
    r.matrices = a.matrices;
    r.mask = mask;
    for (unsigned l = 0; l < 32; ++l)
      r.addr[l] = (mask >> l & 1) ? static_cast<uint32_t>(a.addr[l]) : 0;
    r.count = 1;
    r.instr = a.instr;
    r.hash = hash_of(r);
    const size_t i = recorded_[b].add(r);
    if (i == PaddingWhatIf::Recorded::kDropped) return;
    if (!known) last = {a.instr, a.warp, {}, {}, 0};
    last.buffer[1] = last.buffer[0];
    last.index[1] = last.index[0];
    last.buffer[0] = static_cast<uint32_t>(b);
    last.index[0] = i;
    last.n = std::min(last.n + 1, 2u);
  }

  // By buffer (the pooled tables').
  const std::vector<PaddingWhatIf::Recorded>& recorded() const { return recorded_; }

 private:
  int buffer_of(uint64_t addr) const {
    for (size_t i = 0; i < spans_->size(); ++i) {
      const PaddingBuffer& s = (*spans_)[i];
      if (addr >= s.base && addr < uint64_t{s.base} + s.bytes) return static_cast<int>(i);
    }
    return -1;
  }
  // `q` is the request `a` (lanes `mask`) makes, as on_memory would build it.
  static bool same_request(const PadRequest& q, const emu::MemAccess& a, uint32_t mask) {
    const bank::Op op = a.op == emu::MemOp::Load    ? bank::Op::Load
                        : a.op == emu::MemOp::Store ? bank::Op::Store
                                                    : bank::Op::Atomic;
    if (q.op != op || q.width != static_cast<uint8_t>(a.width) || q.matrices != a.matrices ||
        q.mask != mask)
      return false;
    uint64_t differ = 0;  // (no branch per lane: these loops vectorize)
    if (mask == UINT32_MAX) {
      for (unsigned l = 0; l < 32; ++l) differ |= uint64_t{q.addr[l]} ^ a.addr[l];
    } else {  // (inactive lanes are 0 in `q`)
      for (unsigned l = 0; l < 32; ++l)
        differ |= uint64_t{q.addr[l]} ^ ((mask >> l & 1) ? a.addr[l] : 0);
    }
    return differ == 0;
  }
  const std::vector<PaddingBuffer>* spans_;
  std::unique_ptr<BlockTables> t_;
  std::vector<PaddingWhatIf::Recorded>& recorded_;
  std::array<Last, kLast>& last_;
};

}  // namespace

PaddingWhatIf::PaddingWhatIf(const bank::Model* model, std::vector<PaddingBuffer> spans)
    : model_(model), spans_(std::move(spans)) {
  std::erase_if(spans_, [](const PaddingBuffer& b) { return b.bytes == 0; });
  for (size_t i = 0; i < spans_.size(); ++i) recorded_.push_back(std::make_unique<Recorded>());
}

PaddingWhatIf::~PaddingWhatIf() = default;

std::unique_ptr<emu::BlockObserver> PaddingWhatIf::make_block_observer(emu::Dim3) {
  if (spans_.empty()) return nullptr;
  return std::make_unique<BlockPadding>(&spans_);
}

void PaddingWhatIf::finish_block(emu::Dim3, std::unique_ptr<emu::BlockObserver> observer) {
  auto* b = static_cast<BlockPadding*>(observer.get());
  for (size_t i = 0; i < recorded_.size(); ++i) recorded_[i]->merge(b->recorded()[i]);
}

uint32_t PaddingWhatIf::row_pitch(const std::vector<Step>& requests) {
  std::map<uint64_t, uint64_t> steps;
  for (const Step& s : requests) {
    int prev = -1;
    for (uint32_t m = s.mask; m; m &= m - 1) {
      const int l = __builtin_ctz(m);
      if (prev >= 0 && s.addr[l] > s.addr[prev]) steps[s.addr[l] - s.addr[prev]] += s.count;
      prev = l;
    }
  }
  uint64_t best = 0, n = 0;
  for (const auto& [step, count] : steps)
    if (count > n) best = step, n = count;
  return best < (uint64_t{1} << 31) ? static_cast<uint32_t>(best) : 0;
}

namespace {

int op_index(bank::Op op) { return op == bank::Op::Load ? 0 : op == bank::Op::Store ? 1 : 2; }

// The wavefronts of all of `reqs` with `pad` bytes per row (nullopt when a
// request the model took as recorded is refused: the padding misaligns it).
std::optional<std::array<uint64_t, 3>> padded_total(const bank::Model& model,
                                                    const std::vector<PadRequest>& reqs,
                                                    const std::vector<bool>& modelled,
                                                    const PaddingBuffer& b, uint32_t pad,
                                                    uint64_t* ideal) {
  std::array<uint64_t, 3> wf{};
  *ideal = 0;
  for (size_t i = 0; i < reqs.size(); ++i) {
    if (!modelled[i]) continue;
    auto c = pad_cost(model, reqs[i], b.base, b.bytes, b.pitch, pad);
    if (!c) return std::nullopt;
    wf[op_index(reqs[i].op)] += uint64_t{c->first} * reqs[i].count;
    *ideal += uint64_t{c->second} * reqs[i].count;
  }
  return wf;
}

// Fills `b` (its before counts known) with the smallest padding that
// removes the conflicts, else the smallest of the fewest wavefronts.
void choose_padding(const bank::Model& model, const std::vector<PadRequest>& reqs,
                    const std::vector<bool>& modelled, PaddingBuffer& b) {
  unsigned widest = 4;
  for (const PadRequest& r : reqs) widest = std::max<unsigned>(widest, r.matrices ? 16 : r.width);
  uint64_t before = 0;
  for (const PadOpCounts& o : b.ops) before += o.wavefronts;
  uint64_t best = before;
  // Multiples of the widest access keep every access aligned.
  for (uint32_t k = widest / 4; k <= kMaxPadWords; k += widest / 4) {
    uint64_t ideal = 0;
    auto wf = padded_total(model, reqs, modelled, b, 4 * k, &ideal);
    if (!wf) continue;
    const uint64_t total = (*wf)[0] + (*wf)[1] + (*wf)[2];
    if (total >= best) continue;
    best = total;
    b.pad_words = k;
    b.removes = total <= ideal;
    for (int o = 0; o < 3; ++o) b.ops[o].padded_wavefronts = (*wf)[o];
    if (b.removes) break;
  }
  if (b.pad_words) {
    const uint64_t rows = b.bytes / b.pitch, rest = b.bytes % b.pitch;
    b.padded_bytes = rows * (b.pitch + 4 * b.pad_words) + rest;
  }
}

}  // namespace

const std::vector<PaddingBuffer>& PaddingWhatIf::buffers() const {
  if (results_) return *results_;
  results_.emplace();
  auto s = [this](uint64_t v) {
    return static_cast<uint64_t>(static_cast<double>(v) * scale_ + 0.5);
  };
  for (size_t i = 0; i < spans_.size(); ++i) {
    const Recorded& rec = *recorded_[i];
    if (rec.bulk_filled || rec.requests.empty()) continue;
    PaddingBuffer b = spans_[i];
    b.incomplete = rec.incomplete;
    std::vector<bool> modelled(rec.requests.size(), true);
    std::vector<Step> conflicted;
    uint64_t worst = 0;
    for (size_t r = 0; r < rec.requests.size(); ++r) {
      const PadRequest& q = rec.requests[r];
      auto c = pad_cost(*model_, q, b.base, b.bytes, 1, 0);
      if (!c) {
        modelled[r] = false;
        b.unmodelled += q.count;
        continue;
      }
      PadOpCounts& o = b.ops[op_index(q.op)];
      o.requests += q.count;
      o.wavefronts += uint64_t{c->first} * q.count;
      o.ideal += uint64_t{c->second} * q.count;
      if (c->first > c->second) {
        conflicted.push_back({q.mask, q.addr.data(), q.count});
        if ((c->first - c->second) * q.count > worst)
          worst = (c->first - c->second) * q.count, b.worst = q.instr;
      }
    }
    if (conflicted.empty()) continue;  // no conflict: nothing to pad
    b.pitch = rec.incomplete ? 0 : row_pitch(conflicted);
    if (b.pitch) choose_padding(*model_, rec.requests, modelled, b);
    for (PadOpCounts& o : b.ops) {
      if (!b.pad_words) o.padded_wavefronts = o.wavefronts;
      o = {s(o.requests), s(o.wavefronts), s(o.ideal), s(o.padded_wavefronts)};
    }
    b.unmodelled = s(b.unmodelled);
    results_->push_back(std::move(b));
  }
  return *results_;
}

}  // namespace smemlab::check
