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

// One model's cost of a request (ldmatrix/stmatrix when `matrix` is set);
// the full result too when `full` is given. A refusal is `unmodelled`.
BankCost cost_of(const bank::Model& model, const bank::Request& request,
                 const bank::MatrixRequest* matrix, bank::Result* full) {
  if (!matrix) return BankCostCache::evaluate(model, request, full);
  BankCost c;
  try {
    bank::Result res = model.evaluate_matrix(*matrix);
    c = {res.wavefronts, res.ideal, res.bank_conflicts, res.worst_wavefronts, res.ways, false};
    if (full) *full = std::move(res);
  } catch (const bank::Error&) {
    c.unmodelled = true;
  }
  return c;
}

// Adds one request to `stats`, given each model's cost of it (nullptr:
// evaluate here). The full result is computed only for a new worst request.
void add_request(const std::vector<std::unique_ptr<bank::Model>>& models, InstrStats& stats,
                 const bank::Request& request, const BankCost* costs, emu::Dim3 block,
                 uint32_t warp, const bank::MatrixRequest* matrix = nullptr) {
  for (size_t m = 0; m < models.size(); ++m) {
    BankCounts& c = stats.models[m].op[static_cast<int>(stats.op)];
    ++c.requests;
    // Misalignment is reported by `check`; unmodelled operations (atomics
    // before sm_70, ldmatrix before sm_75) are counted as such instead of
    // guessed.
    BankCost k = costs ? costs[m] : cost_of(*models[m], request, matrix, nullptr);
    if (k.unmodelled) {
      ++c.unmodelled;
      continue;
    }
    c.wavefronts += k.wavefronts;
    c.ideal += k.ideal;
    c.bank_conflicts += k.bank_conflicts;
    c.worst_wavefronts += k.worst_wavefronts;
    c.max_ways = std::max(c.max_ways, k.ways);
    auto& worst = stats.models[m].worst;
    if (!worst || k.wavefronts - k.ideal > excess(worst->result)) {
      bank::Result res;
      cost_of(*models[m], request, matrix, &res);
      worst = WorstRequest{request, std::move(res), block, warp};
    }
  }
}

class BlockBank final : public emu::BlockObserver {
 public:
  BlockBank(const std::vector<std::unique_ptr<bank::Model>>& models, BankCostCachePool& pool)
      : models_(models), pool_(pool), cache_(pool.take(models.size())) {}
  ~BlockBank() override { pool_.give(std::move(cache_)); }

  void on_memory(const emu::MemAccess& a) override {
    if (a.space != emu::Space::Shared || a.mask == 0) return;
    if (a.op == emu::MemOp::CpAsyncLoad || a.op == emu::MemOp::CpAsyncStore) {
      ++cp_async;  // LDGSTS follows other rules: not modelled (docs/bank-model.md)
      return;
    }
    InstrStats& s = stats_of(a.instr->pc);
    if (!s.instr) {
      s.instr = a.instr;
      s.op = a.op == emu::MemOp::Load    ? SharedOp::Load
             : a.op == emu::MemOp::Store ? SharedOp::Store
                                         : SharedOp::Atomic;
      s.width = a.width;
      s.models.resize(models_.size());
    }
    bank::Request r;
    r.op = s.op == SharedOp::Load    ? bank::Op::Load
           : s.op == SharedOp::Store ? bank::Op::Store
                                     : bank::Op::Atomic;
    r.width = a.width;
    r.mask = a.mask;
    std::copy(std::begin(a.addr), std::end(a.addr), r.addr.begin());
    if (a.matrices) {
      bank::MatrixRequest m;
      m.store = s.op == SharedOp::Store;
      m.matrices = a.matrices;
      m.mask = a.mask;
      m.addr = r.addr;
      BankAnalysis::record(models_, s, bank::as_request(m), a.block, a.warp, &m);
      return;
    }
    add_request(models_, s, r, cache_ ? cache_->costs(models_, r) : nullptr, a.block, a.warp);
  }

  // The block is done: its cache goes back for the next block on this worker.
  void on_block_end(emu::Dim3) override { pool_.give(std::move(cache_)); }

  const std::vector<std::unique_ptr<bank::Model>>& models_;
  std::map<uint32_t, InstrStats> by_pc;
  uint64_t cp_async = 0;

 private:
  // by_pc's entry, through a pc-indexed table (std::map nodes do not move).
  InstrStats& stats_of(uint32_t pc) {
    if (pc >= index_.size()) index_.resize(pc + 1, nullptr);
    if (!index_[pc]) index_[pc] = &by_pc[pc];
    return *index_[pc];
  }
  BankCostCachePool& pool_;
  std::unique_ptr<BankCostCache> cache_;
  std::vector<InstrStats*> index_;
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
  add_request(models, stats, request, nullptr, block, warp, matrix);
}

std::unique_ptr<emu::BlockObserver> BankAnalysis::make_block_observer(emu::Dim3) {
  return std::make_unique<BlockBank>(models_, caches_);
}

void BankAnalysis::finish_block(emu::Dim3, std::unique_ptr<emu::BlockObserver> observer) {
  auto* b = static_cast<BlockBank*>(observer.get());
  ++blocks_;
  cp_async_ += b->cp_async;
  for (auto& [pc, s] : b->by_pc) {
    auto [it, fresh] = by_pc_.try_emplace(pc, s);
    if (fresh) continue;
    for (size_t m = 0; m < models_.size(); ++m) merge(it->second.models[m], s.models[m]);
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
