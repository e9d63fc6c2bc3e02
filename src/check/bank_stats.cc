#include "check/bank_stats.h"

#include <algorithm>

namespace smemlab::check {

const char* shared_op_name(SharedOp op) {
  switch (op) {
    case SharedOp::Load:
      return "load";
    case SharedOp::Store:
      return "store";
    case SharedOp::Atomic:
      return "atomic";
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
}

void BankCounts::scale(double f) {
  for (uint64_t* c :
       {&requests, &wavefronts, &ideal, &bank_conflicts, &worst_wavefronts, &unmodelled})
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
  return op == SharedOp::Load    ? bank::Op::Load
         : op == SharedOp::Store ? bank::Op::Store
                                 : bank::Op::Atomic;
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

// Adds one request's cost to `c`; false when the model refused it.
bool add_cost(BankCounts& c, const BankCost& k) {
  ++c.requests;
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

// A block's costliest request of one pc under one model, kept without its
// full bank::Result: that is built in BankAnalysis::finish_block, and only
// if the request is the costliest of the kernel so far.
struct PendingWorst {
  bool set = false;
  unsigned excess = 0;
  unsigned matrices = 0;
  bank::Request request;
  uint32_t warp = 0;
};

class BlockBank final : public emu::BlockObserver {
 public:
  BlockBank(const std::vector<std::unique_ptr<bank::Model>>& models, BankCostCachePool& pool,
            emu::Dim3 block)
      : models_(models),
        block(block),
        pool_(pool),
        cache_(pool.take(models)),
        scratch_(models.size()) {}
  ~BlockBank() override { pool_.give(std::move(cache_)); }

  void on_memory(const emu::MemAccess& a) override {
    if (a.space != emu::Space::Shared || a.mask == 0) return;
    if (a.op == emu::MemOp::CpAsyncLoad || a.op == emu::MemOp::CpAsyncStore) {
      ++cp_async;  // LDGSTS follows other rules: not modelled (docs/bank-model.md)
      return;
    }
    const uint32_t pc = a.instr->pc;
    PcState& p = state_of(pc);
    if (!p.stats) init(p, pc, a);
    InstrStats& s = *p.stats;
    const bank::Op op = bank_op(s.op);
    // ldmatrix/stmatrix: only the row lanes take part (bank::as_request).
    uint32_t mask = a.mask;
    if (a.matrices && a.matrices < 4) mask &= (1u << (8 * a.matrices)) - 1u;

    const unsigned width = a.matrices ? 16 : a.width;
    const uint64_t period = cache_ ? cache_->period(width, models_) : 0;
    const uint8_t op_code = static_cast<uint8_t>(op);
    const BankCost* costs = cache_ && mask ? cache_->same_as_last(pc, op_code, a.width, a.matrices,
                                                                  mask, a.addr, period)
                                           : nullptr;
    if (!costs) {
      AddressPattern key;
      const bool keyed =
          cache_ && mask && key.make(op_code, a.width, a.matrices, mask, a.addr, period);
      if (keyed) costs = cache_->find(pc, key, a.addr);
      if (!costs) {
        bank::Request r = request_of(a, op);
        for (size_t m = 0; m < models_.size(); ++m)
          scratch_[m] = cost_of(*models_[m], r, a.matrices, nullptr);
        if (keyed) cache_->store(pc, key, a.addr, scratch_.data());
        costs = scratch_.data();
      }
    }
    for (size_t m = 0; m < models_.size(); ++m) {
      const BankCost& k = costs[m];
      if (!add_cost(s.models[m].op[static_cast<int>(s.op)], k)) continue;
      PendingWorst& w = p.worst[m];
      if (w.set && k.wavefronts - k.ideal <= w.excess) continue;
      w.set = true;
      w.excess = k.wavefronts - k.ideal;
      w.matrices = a.matrices;
      w.request = request_of(a, op);
      w.warp = a.warp;
    }
  }

  // The block is done: its cache goes back for the next block on this worker.
  void on_block_end(emu::Dim3) override { pool_.give(std::move(cache_)); }

  // This block's costliest request of `pc` under model m (none: nullptr).
  const PendingWorst* worst(uint32_t pc, size_t m) const {
    if (pc >= index_.size() || !index_[pc].stats || !index_[pc].worst[m].set) return nullptr;
    return &index_[pc].worst[m];
  }

  const std::vector<std::unique_ptr<bank::Model>>& models_;
  const emu::Dim3 block;
  std::map<uint32_t, InstrStats> by_pc;
  uint64_t cp_async = 0;

 private:
  struct PcState {
    InstrStats* stats = nullptr;      // by_pc's entry (std::map nodes do not move)
    std::vector<PendingWorst> worst;  // per model
  };
  PcState& state_of(uint32_t pc) {
    if (pc >= index_.size()) index_.resize(std::max<size_t>(pc + 1, 2 * index_.size()));
    return index_[pc];
  }
  void init(PcState& p, uint32_t pc, const emu::MemAccess& a) {
    InstrStats& s = by_pc[pc];
    s.instr = a.instr;
    s.op = a.op == emu::MemOp::Load    ? SharedOp::Load
           : a.op == emu::MemOp::Store ? SharedOp::Store
                                       : SharedOp::Atomic;
    s.width = a.width;
    s.models.resize(models_.size());
    p.stats = &s;
    p.worst.resize(models_.size());
  }
  // The request as the models take it; an ldmatrix/stmatrix in its plain
  // form (bank::as_request).
  static bank::Request request_of(const emu::MemAccess& a, bank::Op op) {
    bank::Request r;
    r.op = op;
    r.width = a.width;
    r.mask = a.mask;
    std::copy(std::begin(a.addr), std::end(a.addr), r.addr.begin());
    if (a.matrices) {
      bank::MatrixRequest m;
      m.store = op == bank::Op::Store;
      m.matrices = a.matrices;
      m.mask = a.mask;
      m.addr = r.addr;
      return bank::as_request(m);
    }
    return r;
  }

  BankCostCachePool& pool_;
  std::unique_ptr<BankCostCache> cache_;
  std::vector<BankCost> scratch_;  // costs of a request the cache did not know
  std::vector<PcState> index_;
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
    if (!add_cost(stats.models[m].op[static_cast<int>(stats.op)], k)) continue;
    auto& worst = stats.models[m].worst;
    if (!worst || k.wavefronts - k.ideal > excess(worst->result))
      worst = WorstRequest{plain, std::move(res), matrices, block, warp};
  }
}

std::unique_ptr<emu::BlockObserver> BankAnalysis::make_block_observer(emu::Dim3 block) {
  return std::make_unique<BlockBank>(models_, caches_, block);
}

void BankAnalysis::finish_block(emu::Dim3, std::unique_ptr<emu::BlockObserver> observer) {
  auto* b = static_cast<BlockBank*>(observer.get());
  ++blocks_;
  cp_async_ += b->cp_async;
  for (auto& [pc, s] : b->by_pc) {
    auto [it, fresh] = by_pc_.try_emplace(pc, s);
    for (size_t m = 0; m < models_.size(); ++m) {
      ModelCounts& into = it->second.models[m];
      if (!fresh)
        for (int i = 0; i < kSharedOps; ++i) into.op[i].add(s.models[m].op[i]);
      // The block's costliest request replaces the kernel's only when
      // strictly costlier (earlier blocks win ties): only then is its full
      // result (the bank map shown) built.
      const PendingWorst* w = b->worst(pc, m);
      if (!w || (into.worst && w->excess <= excess(into.worst->result))) continue;
      bank::Result res;
      cost_of(*models_[m], w->request, w->matrices, &res);
      into.worst = WorstRequest{w->request, std::move(res), w->matrices, b->block, w->warp};
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
