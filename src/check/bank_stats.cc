#include "check/bank_stats.h"

#include <algorithm>
#include <cstdint>
#include <typeindex>
#include <typeinfo>

#include "check/spare_pool.h"

namespace smemlab::check {

const char* shared_op_name(SharedOp op) {
  switch (op) {
    case SharedOp::Load:
      return "load";
    case SharedOp::Store:
      return "store";
    case SharedOp::Atomic:
      return "atomic";
    case SharedOp::LdMatrix:
      return "ldmatrix";
    case SharedOp::StMatrix:
      return "stmatrix";
  }
  return "?";
}

void BankCounts::add(const BankCounts& o) {
  requests += o.requests;
  wavefronts += o.wavefronts;
  ideal += o.ideal;
  bank_conflicts += o.bank_conflicts;
  worst_wavefronts += o.worst_wavefronts;
  unmodelled += o.unmodelled;
  max_ways = std::max(max_ways, o.max_ways);
  lane_bytes += o.lane_bytes;
}

void BankCounts::scale(double f) {
  for (uint64_t* c : {&requests, &wavefronts, &ideal, &bank_conflicts, &worst_wavefronts,
                      &unmodelled, &lane_bytes})
    *c = static_cast<uint64_t>(static_cast<double>(*c) * f + 0.5);
}

namespace {

unsigned excess(const bank::Result& r) { return r.wavefronts - r.ideal; }

// Keeps `into` the costlier one; ties keep the earlier (already stored) one.
void keep_worst(std::optional<WorstRequest>& into, const std::optional<WorstRequest>& from) {
  if (!from) return;
  if (!into || excess(from->result) > excess(into->result)) into = from;
}

bank::Op bank_op(SharedOp op) {
  switch (op) {
    case SharedOp::Load:
    case SharedOp::LdMatrix:
      return bank::Op::Load;
    case SharedOp::Store:
    case SharedOp::StMatrix:
      return bank::Op::Store;
    default:
      return bank::Op::Atomic;
  }
}

bank::MatrixRequest matrix_of(const bank::Request& plain, unsigned matrices) {
  bank::MatrixRequest m;
  m.store = plain.op == bank::Op::Store;
  m.matrices = matrices;
  m.mask = plain.mask;
  m.addr = plain.addr;
  return m;
}

// One model's cost of a request (an ldmatrix/stmatrix of `matrices` when
// nonzero, `request` then in its plain form); the full result too when
// `full` is given. A refusal is `unmodelled`.
BankCost cost_of(const bank::Model& model, const bank::Request& request, unsigned matrices,
                 bank::Result* full) {
  if (!matrices) return BankCostCache::evaluate(model, request, full);
  BankCost c;
  try {
    bank::Result res = model.evaluate_matrix(matrix_of(request, matrices));
    c = {res.wavefronts, res.ideal, res.bank_conflicts, res.worst_wavefronts, res.ways, false};
    if (full) *full = std::move(res);
  } catch (const bank::Error&) {
    c.unmodelled = true;
  }
  return c;
}

// Adds one request's cost to `c` (`lane_bytes`: its active lanes x bytes
// per lane); false when the model refused it.
bool add_cost(BankCounts& c, const BankCost& k, uint64_t lane_bytes) {
  ++c.requests;
  c.lane_bytes += lane_bytes;
  // Misalignment is reported by `check`; unmodelled operations (atomics
  // before sm_70, ldmatrix before sm_75) are counted as such instead of
  // guessed.
  if (k.unmodelled) {
    ++c.unmodelled;
    return false;
  }
  c.wavefronts += k.wavefronts;
  c.ideal += k.ideal;
  c.bank_conflicts += k.bank_conflicts;
  c.worst_wavefronts += k.worst_wavefronts;
  c.max_ways = std::max(c.max_ways, k.ways);
  return true;
}

// Makes `r` the request as the models take it (every field and lane
// written, into a Request the caller has: one is 264 bytes); an
// ldmatrix/stmatrix of `matrices` in its plain form (bank::as_request).
void set_request(bank::Request& r, bank::Op op, unsigned width, uint32_t mask, unsigned matrices,
                 const uint64_t* addr) {
  r.op = op;
  r.width = width;
  r.mask = mask;
  std::copy(addr, addr + 32, r.addr.begin());
  if (matrices) r = bank::as_request(matrix_of(r, matrices));
}

// A block's costliest request of one pc under one model, kept as it came:
// the request and its full bank::Result are built in
// BankAnalysis::finish_block, and only if it is the costliest of the kernel
// so far; `full` holds that result when it was built on the way (see
// BlockBank::on_memory).
struct PendingWorst {
  bool set = false;
  uint8_t matrices = 0;
  uint8_t width = 0;
  unsigned excess = 0;
  uint32_t mask = 0;
  uint32_t warp = 0;
  uint64_t addr[32];
  std::optional<bank::Result> full;

  void request_into(bank::Op op, bank::Request& r) const {
    set_request(r, op, width, mask, matrices, addr);
  }
};

// A shared-memory instruction a block ran, in the order first met.
struct Site {
  uint32_t pc;
  SharedOp op;
  unsigned width;
  const emu::InstrInfo* instr;
};

// A block's arrays (BlockBank's), kept between blocks and launches: a short
// launch's block would otherwise allocate and free each of them. Handed
// over empty, with site_at all zero.
struct BlockArrays {
  std::vector<Site> sites;
  std::vector<uint32_t> site_at;    // by pc: site + 1, 0 for none yet
  std::vector<BankCounts> counts;   // site x model
  std::vector<PendingWorst> worst;  // site x model
  std::vector<BankCost> scratch;    // costs of a request the cache did not know
  std::vector<bank::Result> full;   // its full results, where built (by model)

  size_t bytes() const {
    return sites.capacity() * sizeof(Site) + site_at.capacity() * sizeof(uint32_t) +
           counts.capacity() * sizeof(BankCounts) + worst.capacity() * sizeof(PendingWorst);
  }
  void clear() {
    for (const Site& s : sites) site_at[s.pc] = 0;
    sites.clear();
    counts.clear();
    worst.clear();
  }
};

// Emptied BlockArrays for the next block, of any launch (never destroyed: a
// launch on another thread may end while the process exits).
SparePool<BlockArrays>& spare_arrays() {
  static auto* pool = new SparePool<BlockArrays>(64, size_t{1} << 20, SIZE_MAX);
  return *pool;
}

// A block's counts, kept per shared-memory instruction it ran (a site, in
// the order first met; pc -> site through a table of 4 bytes per pc) in
// flat arrays of site x model: no allocation per instruction and block
// beyond the arrays' growth (the arrays themselves are reused), and no tree
// on the per-event path.
class BlockBank final : public emu::BlockObserver {
 public:
  BlockBank(const std::vector<std::unique_ptr<bank::Model>>& models, BankCostCachePool& pool,
            emu::Dim3 block)
      : models_(models),
        block(block),
        pool_(pool),
        cache_(pool.take(models)),
        a_(spare_arrays().take()) {
    a_->scratch.resize(models.size());
    a_->full.resize(models.size());
  }
  ~BlockBank() override {
    pool_.give(std::move(cache_));
    a_->clear();
    spare_arrays().give(std::move(a_));
  }

  void on_memory(const emu::MemAccess& a) override {
    if (a.space != emu::Space::Shared || a.mask == 0) return;
    // mbarrier operations are SYNCS instructions, not ld/st/atom requests
    // (Nsight Compute: op_misc); HopperAnalysis counts them.
    if (a.mbarrier) return;
    if (a.op == emu::MemOp::CpAsyncLoad || a.op == emu::MemOp::CpAsyncStore) {
      ++cp_async;  // LDGSTS follows other rules: not modelled (docs/bank-model.md)
      return;
    }
    // The async proxy's chunks (TMA, bulk copies): HopperAnalysis counts
    // the copies; their shared-side rules are not modelled yet.
    if (a.op == emu::MemOp::BulkLoad || a.op == emu::MemOp::BulkStore ||
        a.op == emu::MemOp::BulkReduce)
      return;
    const uint32_t pc = a.instr->pc;
    const size_t site = site_of(pc, a);
    const SharedOp sop = a_->sites[site].op;
    const bank::Op op = bank_op(sop);
    // ldmatrix/stmatrix: only the row lanes take part (bank::as_request).
    uint32_t mask = a.mask;
    if (a.matrices && a.matrices < 4) mask &= (1u << (8 * a.matrices)) - 1u;

    const unsigned width = a.matrices ? 16 : a.width;
    const uint64_t lane_bytes = uint64_t(__builtin_popcount(mask)) * width;
    const uint64_t period = cache_ ? cache_->period(width, models_) : 0;
    const uint8_t op_code = static_cast<uint8_t>(op);
    const BankCost* costs = cache_ && mask ? cache_->same_as_last(pc, op_code, a.width, a.matrices,
                                                                  mask, a.addr, period)
                                           : nullptr;
    // A pc this worker's cache has never met (the process's first block of
    // the kernel on the worker) has its first request costed in full: it
    // becomes the block's costliest one at the pc, whose bank map
    // finish_block would otherwise build in a second evaluation (a short
    // launch's largest cost).
    bool mapped = false;
    if (!costs) {
      AddressPattern key;
      const bool keyed =
          cache_ && mask && key.make(op_code, a.width, a.matrices, mask, a.addr, period);
      const uint64_t hash = keyed ? key.hash() : 0;
      if (keyed) costs = cache_->find(pc, key, hash, a.addr);
      if (!costs) {
        bank::Request req;
        set_request(req, op, a.width, a.mask, a.matrices, a.addr);
        mapped = cache_ && !cache_->knows(pc);
        BankCost* scratch = a_->scratch.data();
        for (size_t m = 0; m < models_.size(); ++m)
          scratch[m] = cost_of(*models_[m], req, a.matrices, mapped ? &a_->full[m] : nullptr);
        if (keyed) cache_->store(pc, key, hash, a.addr, scratch);
        costs = scratch;
      }
    }
    const size_t n = models_.size();
    BankCounts* counts = &a_->counts[site * n];
    PendingWorst* worst = &a_->worst[site * n];
    for (size_t m = 0; m < n; ++m) {
      const BankCost& k = costs[m];
      if (!add_cost(counts[m], k, lane_bytes)) continue;
      PendingWorst& w = worst[m];
      if (w.set && k.wavefronts - k.ideal <= w.excess) continue;
      fill(w, a);
      w.set = true;
      w.excess = k.wavefronts - k.ideal;
      if (mapped)
        w.full = std::move(a_->full[m]);
      else
        w.full.reset();
    }
  }

  // The block is done: its cache goes back for the next block on this worker.
  void on_block_end(emu::Dim3) override { pool_.give(std::move(cache_)); }

  // This block's counts and costliest request of a site under model m.
  const BankCounts& counts(size_t site, size_t m) const {
    return a_->counts[site * models_.size() + m];
  }
  PendingWorst* worst(size_t site, size_t m) {
    PendingWorst& w = a_->worst[site * models_.size() + m];
    return w.set ? &w : nullptr;
  }

  const std::vector<Site>& sites() const { return a_->sites; }

  const std::vector<std::unique_ptr<bank::Model>>& models_;
  const emu::Dim3 block;
  uint64_t cp_async = 0;

 private:
  size_t site_of(uint32_t pc, const emu::MemAccess& a) {
    std::vector<uint32_t>& site_at = a_->site_at;
    if (pc < site_at.size() && site_at[pc]) return site_at[pc] - 1;
    if (pc >= site_at.size()) site_at.resize(std::max<size_t>(pc + 1, 2 * site_at.size()), 0);
    // The first access of a pc fixes its op and width (as InstrStats keeps
    // them); ldmatrix/stmatrix are their own classes, as in Nsight Compute.
    const bool matrix = a.matrices != 0;
    const SharedOp op = a.op == emu::MemOp::Load ? (matrix ? SharedOp::LdMatrix : SharedOp::Load)
                        : a.op == emu::MemOp::Store
                            ? (matrix ? SharedOp::StMatrix : SharedOp::Store)
                            : SharedOp::Atomic;
    a_->sites.push_back({pc, op, a.width, a.instr});
    const size_t sites = a_->sites.size();
    a_->counts.resize(sites * models_.size());
    a_->worst.resize(sites * models_.size());
    site_at[pc] = static_cast<uint32_t>(sites);
    return sites - 1;
  }
  static void fill(PendingWorst& w, const emu::MemAccess& a) {
    w.matrices = a.matrices;
    w.width = a.width;
    w.mask = a.mask;
    w.warp = a.warp;
    std::copy(std::begin(a.addr), std::end(a.addr), w.addr);
  }

  BankCostCachePool& pool_;
  std::unique_ptr<BankCostCache> cache_;
  std::unique_ptr<BlockArrays> a_;
};

}  // namespace

void merge(ModelCounts& into, const ModelCounts& from) {
  for (int i = 0; i < kSharedOps; ++i) into.op[i].add(from.op[i]);
  keep_worst(into.worst, from.worst);
}

BankAnalysis::BankAnalysis(std::vector<std::unique_ptr<bank::Model>> models)
    : models_(std::move(models)) {}

void BankAnalysis::record(const std::vector<std::unique_ptr<bank::Model>>& models,
                          InstrStats& stats, const bank::Request& request, emu::Dim3 block,
                          uint32_t warp, const bank::MatrixRequest* matrix) {
  unsigned matrices = matrix ? matrix->matrices : 0;
  bank::Request plain = matrix ? bank::as_request(*matrix) : request;
  for (size_t m = 0; m < models.size(); ++m) {
    bank::Result res;
    BankCost k = cost_of(*models[m], plain, matrices, &res);
    const uint64_t lane_bytes = uint64_t(__builtin_popcount(plain.mask)) * plain.width;
    if (!add_cost(stats.models[m].op[static_cast<int>(stats.op)], k, lane_bytes)) continue;
    auto& worst = stats.models[m].worst;
    if (!worst || k.wavefronts - k.ideal > excess(worst->result))
      worst = WorstRequest{plain, std::move(res), matrices, block, warp};
  }
}

std::shared_ptr<BankMemo> BankMemo::of(const std::vector<std::unique_ptr<bank::Model>>& models) {
  // A set of models by each one's type and name (the name holds what a
  // type is made with: "sm_35:8").
  struct Set {
    std::vector<std::type_index> types;
    std::vector<std::string> names;
    std::shared_ptr<BankMemo> memo;
    bool holds(const std::vector<std::unique_ptr<bank::Model>>& models) const {
      if (models.size() != types.size()) return false;
      for (size_t i = 0; i < models.size(); ++i) {
        const bank::Model& m = *models[i];
        if (types[i] != typeid(m) || names[i] != m.name()) return false;
      }
      return true;
    }
  };
  // Never destroyed (see SpareArrays). The sets used last are at the back.
  static auto* mu = new std::mutex;
  static auto* sets = new std::vector<Set>;
  constexpr size_t kMaxSets = 4;
  std::lock_guard<std::mutex> lock(*mu);
  auto it =
      std::find_if(sets->rbegin(), sets->rend(), [&](const Set& s) { return s.holds(models); });
  if (it == sets->rend()) {
    if (sets->size() == kMaxSets) sets->erase(sets->begin());  // the least recently used
    Set set;
    for (const auto& model : models) {
      const bank::Model& m = *model;
      set.types.emplace_back(typeid(m));
      set.names.push_back(m.name());
    }
    set.memo = std::make_shared<BankMemo>();
    sets->push_back(std::move(set));
  } else if (it != sets->rbegin()) {
    std::rotate(std::prev(it.base()), it.base(), sets->end());
  }
  return sets->back().memo;
}

std::unique_ptr<emu::BlockObserver> BankAnalysis::make_block_observer(emu::Dim3 block) {
  std::call_once(memo_once_, [this] { memo_ = BankMemo::of(models_); });
  return std::make_unique<BlockBank>(models_, memo_->caches, block);
}

void BankAnalysis::finish_block(emu::Dim3, std::unique_ptr<emu::BlockObserver> observer) {
  auto* b = static_cast<BlockBank*>(observer.get());
  ++blocks_;
  cp_async_ += b->cp_async;
  for (size_t site = 0; site < b->sites().size(); ++site) {
    const auto& st = b->sites()[site];
    auto [it, fresh] = by_pc_.try_emplace(st.pc);
    InstrStats& s = it->second;
    if (fresh) {
      s.instr = st.instr;
      s.op = st.op;
      s.width = st.width;
      s.models.resize(models_.size());
    }
    const int op = static_cast<int>(s.op);
    for (size_t m = 0; m < models_.size(); ++m) {
      ModelCounts& into = s.models[m];
      into.op[op].add(b->counts(site, m));
      // The block's costliest request replaces the kernel's only when
      // strictly costlier (earlier blocks win ties): only then is its full
      // result (the bank map shown) built.
      PendingWorst* w = b->worst(site, m);
      if (!w || (into.worst && w->excess <= excess(into.worst->result))) continue;
      // Built in place: no copy of the request.
      WorstRequest& worst = into.worst.emplace();
      w->request_into(bank_op(s.op), worst.request);
      worst.matrices = w->matrices;
      worst.block = b->block;
      worst.warp = w->warp;
      WorstResults& memo = memo_->worsts;
      if (w->full) {
        worst.result = std::move(*w->full);
        memo.store(st.pc, m, worst.request, w->matrices, worst.result);
      } else if (!memo.find(st.pc, m, worst.request, w->matrices, &worst.result)) {
        cost_of(*models_[m], worst.request, w->matrices, &worst.result);
        memo.store(st.pc, m, worst.request, w->matrices, worst.result);
      }
    }
  }
}

std::vector<LineStats> BankAnalysis::lines() const {
  std::map<SourceLine, LineStats> by_line;
  for (const auto& [pc, s] : by_pc_) {
    for (const SourceLine& where : lines_of(kernel_.lines, s.instr->loc)) {
      LineStats& l = by_line[where];
      if (l.models.empty()) {
        l.where = where;
        l.models.resize(models_.size());
      }
      l.pcs.push_back(pc);
      for (size_t m = 0; m < models_.size(); ++m) merge(l.models[m], s.models[m]);
    }
  }
  std::vector<LineStats> out;
  for (auto& [k, v] : by_line) out.push_back(std::move(v));
  return out;
}

void BankAnalysis::scale(double f) {
  for (auto& [pc, s] : by_pc_)
    for (auto& m : s.models)
      for (auto& c : m.op) c.scale(f);
}

std::vector<ModelCounts> BankAnalysis::totals() const {
  std::vector<ModelCounts> t(models_.size());
  for (const auto& [pc, s] : by_pc_)
    for (size_t m = 0; m < models_.size(); ++m) merge(t[m], s.models[m]);
  return t;
}

}  // namespace smemlab::check
