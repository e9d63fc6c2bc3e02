#include "check/hopper_stats.h"

#include <bit>
#include <utility>

#include "bank/hopper.h"

namespace smemlab::check {

namespace {

struct HopperClassInfo {
  HopperFamily family;
  const char* row;
  uint8_t fields;
};
constexpr HopperClassInfo kHopperClassInfo[] = {
#define SMEMLAB_HOPPER_CLASS(id, family, row, fields) {HopperFamily::family, row, fields},
#include "check/hopper_classes.def"
#undef SMEMLAB_HOPPER_CLASS
};

}  // namespace

HopperFamily hopper_family_of(HopperClass c) {
  return kHopperClassInfo[static_cast<int>(c)].family;
}
uint8_t hopper_fields(HopperClass c) { return kHopperClassInfo[static_cast<int>(c)].fields; }
const char* hopper_row(HopperClass c) { return kHopperClassInfo[static_cast<int>(c)].row; }

const char* hopper_family(HopperClass c) {
  switch (hopper_family_of(c)) {
    case HopperFamily::Tma:
      return "tma";
    case HopperFamily::Gmma:
      return "gmma";
    case HopperFamily::Dshared:
      return "dshared";
    case HopperFamily::Ldgsts:
      return "ldgsts";
    case HopperFamily::Mbarrier:
      return "mbarrier";
  }
  return "";  // (not reached: the switch covers every family)
}

namespace {

HopperClass tma_class(emu::BulkKind k) {
  switch (k) {
    case emu::BulkKind::Load:
      return HopperClass::TmaLoad;
    case emu::BulkKind::Store:
      return HopperClass::TmaStore;
    case emu::BulkKind::Reduce:
      return HopperClass::TmaReduction;
    default:
      return HopperClass::TmaPrefetch;
  }
}

// A block's counts by pc (Hopper's events are few next to ld/st: a pc ->
// slot table and the slots, no per-event allocation once seen).
class BlockHopper final : public emu::BlockObserver {
 public:
  // An mbarrier operation (one warp instruction). Of them only mbarrier.init
  // moves Nsight Compute's op_misc wavefronts, one per distinct 8-byte
  // object its lanes name; arrive, expect_tx, test/try_wait add none
  // (scripts/hopper-rules cases4.txt, docs/bank-model.md "Hopper").
  void on_memory(const emu::MemAccess& a) override {
    if (!a.mbarrier || a.mask == 0) return;
    HopperCounts& h = at(a.instr).cls[static_cast<int>(HopperClass::Mbarrier)];
    ++h.requests;
    if (a.op != emu::MemOp::Store) return;  // (init is the one reported as a store)
    uint64_t objects[32];
    unsigned n = 0;
    for (unsigned l = 0; l < 32; ++l) {
      if (!(a.mask >> l & 1)) continue;
      const uint64_t o = a.addr[l] / 8;
      bool seen = false;
      for (unsigned i = 0; i < n && !seen; ++i) seen = objects[i] == o;
      if (!seen) objects[n++] = o;
    }
    h.wavefronts += n;
  }
  void on_bulk_copy(const emu::BulkCopy& c) override {
    // A copy counts once, at the issuer's issue (its completion and the
    // destinations' incoming events describe the same copy).
    if (c.incoming || c.phase != emu::BulkPhase::Issue) return;
    HopperCounts& h = at(c.instr).cls[static_cast<int>(tma_class(c.kind))];
    ++h.requests;
    h.shared_bytes += uint64_t{16} * c.chunks.size();
    if (c.kind == emu::BulkKind::Prefetch) return;  // no counter of its traffic
    // The global side's sectors (copy_traffic), measured on tiled boxes
    // with unit element strides and on 1-D copies; im2col or strided boxes
    // are not covered by the rule.
    if (c.tensor && (c.im2col || !c.unit_strides)) {
      ++h.unmodelled;
      return;
    }
    std::vector<bank::CopyChunk>& chunks = chunks_;
    chunks.clear();
    for (const emu::GlobalChunk& g : c.global_chunks) chunks.push_back({g.addr, g.valid});
    // A multicast load: its sectors once per destination block (run 5); the
    // groups follow the shared side's 128-byte lines.
    const bank::CopyTraffic t = bank::copy_traffic(
        c.kind == emu::BulkKind::Load    ? bank::CopyDirection::Load
        : c.kind == emu::BulkKind::Store ? bank::CopyDirection::Store
                                         : bank::CopyDirection::Reduce,
        chunks, static_cast<unsigned>(std::popcount(c.multicast)),
        c.chunks.size() == chunks.size() ? c.chunks : std::span<const uint32_t>{});
    h.sectors += t.sectors;
    h.bytes += t.bytes;
  }
  void on_wgmma(const emu::Wgmma& g) override {
    if (g.kind != emu::WgmmaKind::Mma) return;
    HopperCounts& h = at(g.instr).cls[static_cast<int>(HopperClass::Gmma)];
    ++h.requests;
    if (g.sass_only) {
      // ptxas's predicated-off HGMMA for a commit: it reads nothing, but the
      // SASS-patched counters count its shape's operands once per
      // warpgroup (bank::gmma_sass_only_cost).
      if (g.warp % 4 == 0) h.wavefronts += bank::gmma_sass_only_cost(g.n).wavefronts;
      return;
    }
    h.shared_bytes += uint64_t{16} * (g.b.chunks.size() + (g.a_shared ? g.a.chunks.size() : 0));
    // The operands' wavefronts, once per warpgroup instruction: A's 64
    // rows and B's N, as the warpgroup reads them.
    if (g.warp % 4) return;
    try {
      bank::Cost c = bank::gmma_operand_cost({g.b.desc, g.b.mn_major, g.b.elem_bytes, g.n});
      if (g.a_shared) {
        const bank::Cost a = bank::gmma_operand_cost({g.a.desc, g.a.mn_major, g.a.elem_bytes, 64});
        c.wavefronts += a.wavefronts;
        c.bank_conflicts += a.bank_conflicts;
      }
      h.wavefronts += c.wavefronts;
      h.bank_conflicts += c.bank_conflicts;
    } catch (const bank::Error&) {
      ++h.unmodelled;
    }
  }
  void on_dshared(const emu::DsharedAccess& d) override {
    // The issuer's side; the async proxy's chunks of a multicast copy are
    // the copy's (tma), not distributed-shared requests.
    const emu::MemOp op = d.access.op;
    if (d.incoming || op == emu::MemOp::BulkLoad || op == emu::MemOp::BulkStore ||
        op == emu::MemOp::BulkReduce)
      return;
    // An mbarrier operation on a peer's object (fast.cu's remote
    // mbarrier.arrive.shared::cluster after mapa): a SYNCS instruction like
    // a local one, which Nsight Compute's op_dshared counters leave out
    // (h-hop28e run 12: 0 dshared atomics where it ran 1,792); one mbarrier
    // request per instruction, whatever peers its lanes reach.
    if (d.access.mbarrier) {
      if (!same_dshared_instr(d.access))
        ++at(d.access.instr).cls[static_cast<int>(HopperClass::Mbarrier)].requests;
      return;
    }
    const HopperClass c = op == emu::MemOp::Load    ? HopperClass::DsharedLoad
                          : op == emu::MemOp::Store ? HopperClass::DsharedStore
                                                    : HopperClass::DsharedAtomic;
    // One request per instruction, whatever peers its lanes reach (ncu:
    // clusters of 4, cluster_graph/cluster_histogram); the sectors of all
    // its peers together (an atomic's lanes to different blocks share
    // output wavefronts: bank::dshared_cost), so the instruction's events
    // (one per peer, back to back) gather in pending_ until it ends.
    const bool same = same_dshared_instr(d.access);
    if (!same) flush_dshared();
    HopperCounts& h = at(d.access.instr).cls[static_cast<int>(c)];
    if (!same) {
      ++h.requests;
      pending_instr_ = d.access.instr;
      pending_class_ = c;
      pending_ = {};
      pending_.op = c == HopperClass::DsharedLoad    ? bank::Op::Load
                    : c == HopperClass::DsharedStore ? bank::Op::Store
                                                     : bank::Op::Atomic;
      pending_.width = d.access.width;
    }
    h.bytes += uint64_t{d.access.width} * static_cast<unsigned>(__builtin_popcount(d.access.mask));
    pending_.mask |= d.access.mask;
    for (unsigned l = 0; l < 32; ++l)
      if (d.access.mask >> l & 1) {
        pending_.addr[l] = d.access.addr[l] + bank::kReservedSharedBytes;
        pending_.rank[l] = d.rank;
      }
  }
  void on_block_end(emu::Dim3) override { flush_dshared(); }

  // Costs the DSMEM instruction gathered so far (if any).
  void flush_dshared() {
    if (!pending_instr_) return;
    HopperCounts& h = at(pending_instr_).cls[static_cast<int>(pending_class_)];
    pending_instr_ = nullptr;
    try {
      h.sectors += bank::dshared_cost(pending_).sectors;
    } catch (const bank::Error&) {
      ++h.unmodelled;
    }
  }

  void on_cp_async(const emu::CpAsyncCopy& c) override {
    HopperCounts& h = at(c.instr).cls[static_cast<int>(HopperClass::Ldgsts)];
    ++h.requests;
    h.bytes += uint64_t{c.width} * static_cast<unsigned>(__builtin_popcount(c.mask & ~c.no_read));
    bank::AsyncCopyRequest r;
    r.width = c.width;
    r.bypass = c.bypass;
    r.mask = c.mask;
    r.no_read = c.no_read;
    r.src_size = c.src_size;
    for (unsigned l = 0; l < 32; ++l)
      if (c.mask >> l & 1) r.shared[l] = c.shared[l], r.global[l] = c.global[l];
    // .cg with a src-size operand: ptxas emits LDGSTS.ZFILL or, where it
    // proves the size is 0 or 16 (sgemm_async's `ok ? 16 : 0`), a predicated
    // LDGSTS, which the H100 costs otherwise, and differently again with the
    // predicate operand P0 (docs/bank-model.md, runs 9 and 10). Only the
    // SASS level says which (c.form); at PTX level the request is unmodelled.
    if (c.bypass && c.src_size) {
      if (c.form == emu::LdgstsForm::Unknown) {
        ++h.unmodelled;
        return;
      }
      r.predicated = c.form != emu::LdgstsForm::Zfill;
      r.predicate_p0 = c.form == emu::LdgstsForm::PredicatedP0;
    }
    try {
      const bank::AsyncCopyCost k = bank::async_copy_cost(r);
      h.wavefronts += k.wavefronts;
      h.bank_conflicts += k.bank_conflicts;
      h.sectors += k.global_sectors;
    } catch (const bank::Error&) {
      ++h.unmodelled;
    }
  }

  std::vector<std::pair<uint32_t, HopperInstr>> entries;  // in the order first met

 private:
  HopperLine& at(const emu::InstrInfo* instr) {
    const uint32_t pc = instr->pc;
    if (pc >= slot_.size()) slot_.resize(pc + 1, 0);
    if (!slot_[pc]) {
      entries.emplace_back(pc, HopperInstr{instr, {}});
      slot_[pc] = static_cast<uint32_t>(entries.size());
    }
    return entries[slot_[pc] - 1].second.counts;
  }
  std::vector<uint32_t> slot_;  // by pc: position in entries + 1, 0 for none
  // Whether `a` continues the instruction of the last DSMEM event: the
  // emulator sends an instruction's peers back to back, lanes disjoint; the
  // same pc and warp again with a lane already seen is the next execution.
  bool same_dshared_instr(const emu::MemAccess& a) {
    const bool same = last_dshared_pc_ == a.instr->pc && last_dshared_warp_ == a.warp &&
                      (last_dshared_mask_ & a.mask) == 0;
    last_dshared_mask_ = same ? last_dshared_mask_ | a.mask : a.mask;
    last_dshared_pc_ = a.instr->pc;
    last_dshared_warp_ = a.warp;
    return same;
  }
  // The last DSMEM event's instruction, warp and the lanes it has covered.
  uint32_t last_dshared_pc_ = ~0u, last_dshared_warp_ = ~0u, last_dshared_mask_ = 0;
  // That instruction's lanes so far and where its sectors go (not a
  // pointer into entries: other events may grow it meanwhile).
  bank::DsharedRequest pending_;
  const emu::InstrInfo* pending_instr_ = nullptr;
  HopperClass pending_class_ = HopperClass::DsharedAtomic;
  std::vector<bank::CopyChunk> chunks_;
};

}  // namespace

std::unique_ptr<emu::BlockObserver> HopperAnalysis::make_block_observer(emu::Dim3) {
  return std::make_unique<BlockHopper>();
}

void HopperAnalysis::finish_block(emu::Dim3, std::unique_ptr<emu::BlockObserver> observer) {
  auto* b = static_cast<BlockHopper*>(observer.get());
  b->flush_dshared();
  by_pc_.merge(std::move(b->entries),
               [](HopperInstr& into, const HopperInstr& s) { into.counts.add(s.counts); });
}

std::map<SourceLine, HopperLine> HopperAnalysis::lines() const {
  std::map<SourceLine, HopperLine> out;
  for (const auto& [pc, s] : by_pc_)
    for (const auto& where : lines_of(kernel_.lines, s.instr->loc)) out[where].add(s.counts);
  return out;
}

HopperLine HopperAnalysis::totals() const {
  HopperLine all;
  for (const auto& [pc, s] : by_pc_) all.add(s.counts);
  return all;
}

void HopperAnalysis::scale(double f) {
  for (auto& [pc, s] : by_pc_)
    for (auto& c : s.counts.cls) c.scale(f);
}

}  // namespace smemlab::check
