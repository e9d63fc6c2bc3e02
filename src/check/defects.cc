// DefectCheck, the facade of the defect checkers (defects.h): a block's
// events are dispatched to the checkers (shared_hazards, global_hazards and
// global_streams, barrier_check, bounds_check) over their shared state
// (defect_state.h); finished blocks are merged here (global_owners for
// global-race) and their records kept for the next blocks.
#include "check/defects.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "check/async_proxy.h"
#include "check/barrier_check.h"
#include "check/bounds_check.h"
#include "check/cluster_exit_order.h"
#include "check/defect_state.h"
#include "check/dshared_race.h"
#include "check/global_hazards.h"
#include "check/global_owners.h"
#include "check/global_records.h"
#include "check/global_streams.h"
#include "check/hazards.h"
#include "check/shared_hazards.h"
#include "check/spare_pool.h"
#include "check/tx_balance.h"

namespace smemlab::check {

using namespace detail;

struct BlockRecords {
  GlobalRecords global;
  SharedRecords shared;

  // The memory held, roughly (the larger parts).
  size_t bytes() const { return global.bytes() + shared.bytes(); }
  // Empty, keeping the memory.
  void clear() {
    global.clear();
    shared.clear();
  }
};

// One block's checkers and their shared state.
class BlockDefects final : public emu::BlockObserver {
 public:
  // `records`: emptied records to fill (DefectCheck::spare_ or new).
  BlockDefects(DefectCheck& owner, emu::Dim3 block, std::unique_ptr<BlockRecords> records)
      : records(std::move(records)),
        state_(owner.layout_, owner.kernel_, block, owner.fast_paths_),
        out(state_),
        hazards_(state_, out),
        shared_(state_, hazards_, this->records->shared),
        global_(state_, hazards_, this->records->global),
        streams_(state_, this->records->global),
        barriers_(state_, out),
        bounds_(state_, out),
        async_(state_, out),
        dshared_(state_, out),
        cluster_exit_(state_, out),
        tx_(state_, out) {}

  void on_block_begin(emu::Dim3, emu::Dim3 dim, uint32_t shared_bytes) override {
    state_.threads = static_cast<uint32_t>(dim.count());
    state_.wepoch.assign((state_.threads + 31) / 32, 0);
    shared_.on_block_begin(shared_bytes);
    async_.on_block_begin(static_cast<uint32_t>(state_.wepoch.size()), shared_bytes);
    dshared_.on_block_begin();
    cluster_exit_.on_block_begin();
    tx_.on_block_begin();
  }

  void on_memory(const emu::MemAccess& a) override;

  void on_barrier(const emu::BarrierArrive& b) override {
    barriers_.on_barrier(b);
    async_.on_barrier(b);
  }

  void on_barrier_release(const emu::BarrierRelease& r) override {
    shared_.on_barrier_release();
    hazards_.on_barrier_release();
    ++state_.epoch;
    barriers_.on_barrier_release(r);
    async_.on_barrier_release(r);
    dshared_.on_barrier_release(r);
    cluster_exit_.on_barrier_release(r);
  }

  // Hopper's events: the async proxy, mbarriers, distributed shared memory.
  void on_bulk_copy(const emu::BulkCopy& c) override { async_.on_bulk_copy(c); }
  void on_wgmma(const emu::Wgmma& g) override { async_.on_wgmma(g); }
  void on_mbarrier(const emu::Mbarrier& m) override {
    async_.on_mbarrier(m);
    dshared_.on_mbarrier(m);
    cluster_exit_.on_mbarrier(m);
    tx_.on_mbarrier(m);
  }
  void on_fence(const emu::Fence& f) override { async_.on_fence(f); }
  void on_dshared(const emu::DsharedAccess& d) override;

  void on_warp_sync(const emu::WarpSync& w) override {
    ++state_.event;
    barriers_.on_warp_sync(w);
    // __syncwarp orders memory between its lanes; other collectives do not.
    if (w.instr->trait == emu::InstrTrait::WarpMemoryOrder && w.warp < state_.wepoch.size()) {
      shared_.replay_loads();  // (they read in the warp-sync epoch before this one)
      ++state_.wepoch[w.warp];
    }
  }

  // (Held-back loads are dropped with the records: BlockRecords::clear.)
  void on_block_end(emu::Dim3) override {
    hazards_.flush_uninitialized();
    cluster_exit_.on_block_end();
    tx_.on_block_end();
  }

  void on_exit(const emu::Exit& e) override {
    state_.exited += static_cast<uint32_t>(__builtin_popcount(e.mask));
  }

  // The lowest and highest address of a's lanes; `bits`: their OR.
  static void lanes_range(const emu::MemAccess& a, uint64_t bits, uint64_t* lo, uint64_t* hi);

  // Handed back to the DefectCheck when the block is finished.
  std::unique_ptr<BlockRecords> records;

 private:
  BlockState state_;

 public:
  BlockFindings out;  // (DefectCheck::finish_block takes them)

 private:
  Hazards hazards_;
  SharedHazards shared_;
  GlobalHazards global_;
  GlobalStreams streams_;
  BarrierCheck barriers_;
  BoundsCheck bounds_;
  AsyncProxy async_;
  DsharedRace dshared_;
  ClusterExitOrder cluster_exit_;
  TxBalance tx_;
};

void BlockDefects::on_dshared(const emu::DsharedAccess& d) {
  dshared_.on_dshared(d);
  cluster_exit_.on_dshared(d);
  const emu::MemAccess& a = d.access;
  if (!d.incoming || a.op == emu::MemOp::Load || a.op == emu::MemOp::BulkLoad) return;
  for (uint32_t m = a.mask; m; m &= m - 1) {
    const uint64_t addr = a.addr[__builtin_ctz(m)];
    shared_.remote_write(addr, a.width);
  }
}

void BlockDefects::on_memory(const emu::MemAccess& a) {
  ++state_.event;
  if (a.mask == 0) return;
  if (a.space == emu::Space::Shared) {
    dshared_.on_memory(a);
    if (a.op != emu::MemOp::BulkLoad && a.op != emu::MemOp::BulkStore &&
        a.op != emu::MemOp::CpAsyncLoad)
      async_.on_memory(a);  // the generic proxy's (a bulk copy's come as BulkCopy events)
    if (shared_.hold_back(a)) return;
  }
  // Warp-wide tests first, so that the per-lane loop below only checks
  // alignment and shared bounds lane by lane when some lane fails them.
  uint64_t bits = 0, lo = UINT64_MAX, hi = 0;
  if (a.mask == UINT32_MAX) {  // (no bit-by-bit walk: it vectorizes)
    for (unsigned l = 0; l < 32; ++l) bits |= a.addr[l];
  } else {
    for (uint32_t m = a.mask; m; m &= m - 1) bits |= a.addr[__builtin_ctz(m)];
  }
  bool pow2 = (a.width & (a.width - 1)) == 0;
  bool aligned = pow2 && (bits & (a.width - 1)) == 0;
  // Kernel parameters and constants: only their alignment is checked.
  if (aligned && a.space != emu::Space::Shared && a.space != emu::Space::Global &&
      a.space != emu::Space::Local)
    return;
  if (a.space == emu::Space::Shared) lanes_range(a, bits, &lo, &hi);
  bool in_bounds = a.space == emu::Space::Shared && hi - lo <= UINT32_MAX &&
                   bounds_.in_shared_bounds(lo, hi - lo + a.width);
  const bool compact = state_.compact;
  if (a.space == emu::Space::Shared && a.op == emu::MemOp::Load && aligned && in_bounds &&
      a.width % 4 == 0) {
    shared_.shared_load(a, lo, hi);
    return;
  }
  if (a.space == emu::Space::Shared && a.op == emu::MemOp::Store && compact && aligned &&
      in_bounds && a.width % 4 == 0 && hazards_.no_pending_uninit()) {
    shared_.warp_store(a);
    return;
  }
  uint32_t lanes = a.mask;
  if (a.space == emu::Space::Global && compact && aligned && a.width % 4 == 0 &&
      (a.op == emu::MemOp::Load || a.op == emu::MemOp::CpAsyncLoad ||
       a.op == emu::MemOp::BulkLoad || a.op == emu::MemOp::Store))
    lanes = streams_.global_stream(a);
  if (a.space == emu::Space::Global && compact && aligned && a.width % 4 == 0 &&
      (a.op == emu::MemOp::Load || a.op == emu::MemOp::CpAsyncLoad ||
       a.op == emu::MemOp::BulkLoad)) {
    // Lane by lane as below, less the lanes whose words are quiet (see
    // quiet_global): they would change nothing and report nothing.
    for (uint32_t m = lanes; m; m &= m - 1) {
      auto lane = static_cast<unsigned>(__builtin_ctz(m));
      if (!global_.quiet_global(a.addr[lane], a.width / 4))
        global_.global(a, a.warp * 32 + lane, a.addr[lane]);
    }
    return;
  }
  for (uint32_t m = lanes; m; m &= m - 1) {
    unsigned lane = static_cast<unsigned>(__builtin_ctz(m));
    uint32_t thread = a.warp * 32 + lane;
    uint64_t addr = a.addr[lane];
    if (!aligned && addr % a.width != 0) {
      bounds_.misaligned(a, thread, addr);
      continue;
    }
    if (a.space == emu::Space::Shared) {
      if (in_bounds || bounds_.shared(a, thread, addr)) shared_.shared(a, thread, addr);
    } else if (a.space == emu::Space::Local) {
      bounds_.local(a, thread, addr);
    } else if (a.space == emu::Space::Global) {
      global_.global(a, thread, addr);
    }
  }
}

void BlockDefects::lanes_range(const emu::MemAccess& a, uint64_t bits, uint64_t* lo, uint64_t* hi) {
  if (a.mask == UINT32_MAX && bits >> 32 == 0) {  // (32-bit min/max vectorize)
    uint32_t l32 = UINT32_MAX, h32 = 0;
    for (unsigned l = 0; l < 32; ++l) {
      l32 = std::min(l32, static_cast<uint32_t>(a.addr[l]));
      h32 = std::max(h32, static_cast<uint32_t>(a.addr[l]));
    }
    *lo = l32;
    *hi = h32;
    return;
  }
  for (uint32_t m = a.mask; m; m &= m - 1) {
    uint64_t addr = a.addr[__builtin_ctz(m)];
    *lo = std::min(*lo, addr);
    *hi = std::max(*hi, addr);
  }
}

namespace {

// Emptied records of the DefectChecks that have ended, for the next one
// (never destroyed: a launch on another thread may end while the process
// exits; still reachable, so not a leak to LeakSanitizer).
SparePool<BlockRecords>& spare_records() {
  constexpr size_t kMaxBytes = size_t{64} << 20;
  static auto* pool = new SparePool<BlockRecords>(64, kMaxBytes, kMaxBytes);
  return *pool;
}

}  // namespace

DefectCheck::DefectCheck(MemoryLayout layout, bool fast_paths)
    : layout_(std::move(layout)),
      fast_paths_(fast_paths),
      owners_(std::make_unique<GlobalOwners>()) {}
DefectCheck::~DefectCheck() {
  for (auto& r : spare_) spare_records().give(std::move(r));
}

std::unique_ptr<emu::BlockObserver> DefectCheck::make_block_observer(emu::Dim3 block) {
  std::unique_ptr<BlockRecords> records;
  {
    std::lock_guard<std::mutex> lock(spare_mu_);
    if (!spare_.empty()) {
      records = std::move(spare_.back());
      spare_.pop_back();
    }
  }
  if (!records) records = spare_records().take();
  return std::make_unique<BlockDefects>(*this, block, std::move(records));
}

namespace {
// Findings merge by kind and instructions (or message, with none).
std::string defect_merge_key(const Finding& f) {
  std::string key(name(f.kind));
  for (const Involved& v : f.involved) key += fmt::format("|{}:{}:{}", v.ptx_line, v.role, v.instr);
  if (f.involved.empty()) key += "|" + f.message;
  return key;
}

std::set<int> defect_finding_lines(const Finding& f) {
  std::set<int> lines;
  for (const Involved& v : f.involved) lines.insert(v.ptx_line);
  return lines;
}
}  // namespace

void DefectCheck::add(Finding f) {
  const std::string key = defect_merge_key(f);
  auto it = index_.find(key);
  if (it != index_.end()) {
    findings_[it->second].count += f.count;
    return;
  }
  index_[key] = findings_.size();
  findings_.push_back(std::move(f));
}

void DefectCheck::finish_block(emu::Dim3 block, std::unique_ptr<emu::BlockObserver> observer) {
  auto* b = static_cast<BlockDefects*>(observer.get());
  for (Finding& f : b->out.findings) add(std::move(f));
  for (auto& [read, f] : b->out.deferred) deferred_.emplace_back(read, std::move(f));
  cas_reads_.insert(b->out.validated.begin(), b->out.validated.end());
  uint64_t linear =
      block.x + uint64_t{kernel_.grid.x} * (block.y + uint64_t{kernel_.grid.y} * block.z);
  std::vector<Finding> races;
  owners_->merge_block(b->records->global, block, linear, kernel_, &races);
  for (Finding& f : races) add(std::move(f));
  b->records->clear();
  std::lock_guard<std::mutex> lock(spare_mu_);
  spare_.push_back(std::move(b->records));
}

void DefectCheck::on_kernel_end(bool) {
  for (auto& [read, f] : deferred_)
    if (!cas_reads_.count(read)) add(std::move(f));
  deferred_.clear();
  drop_races_explained_by_hopper_kinds();
}

// One finding per pair of accesses: a plain `race` (or `warp-race`) between the same
// instructions as an early-read or stage-overwrite (the race checker sees
// the TMA write and the read unordered; the protocol checker says which
// wait or release is missing) is dropped in favour of the specific kind.
void DefectCheck::drop_races_explained_by_hopper_kinds() {
  std::set<std::set<int>> explained;
  for (const Finding& f : findings_)
    if (f.kind == FindingKind::EarlyRead || f.kind == FindingKind::StageOverwrite)
      explained.insert(defect_finding_lines(f));
  if (explained.empty()) return;
  const size_t before = findings_.size();
  std::erase_if(findings_, [&](const Finding& f) {
    return (f.kind == FindingKind::Race || f.kind == FindingKind::WarpRace) &&
           explained.count(defect_finding_lines(f));
  });
  if (findings_.size() == before) return;
  index_.clear();  // (add() merges by key into positions that moved)
  for (size_t i = 0; i < findings_.size(); ++i) index_[defect_merge_key(findings_[i])] = i;
}

}  // namespace smemlab::check
