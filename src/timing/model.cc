#include "timing/model.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "timing/short_circuit.h"

namespace smemlab::timing {

const char* pipe_name(Pipe p) {
  static const char* const names[] = {
#define SMEMLAB_PIPE(e, name, rate) name,
#include "timing/pipes.def"
#undef SMEMLAB_PIPE
  };
  return names[static_cast<int>(p)];
}

const char* resource_name(Resource r) {
  static const char* const names[] = {
#define SMEMLAB_RESOURCE(e, name) name,
#include "timing/resources.def"
#undef SMEMLAB_RESOURCE
  };
  return names[static_cast<int>(r)];
}

double ReuseProfile::at(double x) const {
  if (x >= 1) return within[0];
  if (x <= 0) return 0;
  const double octaves = -std::log2(x);
  const int i = int(octaves);
  if (i >= kReuseOctaves - 1) return within[kReuseOctaves - 1];
  const double f = octaves - i;
  return within[i] + f * (within[i + 1] - within[i]);
}

double ReuseProfile::waiting_within(double window) const {
  if (window <= 1) return waiting[0];
  const double octaves = std::log2(window);
  const int i = int(octaves);
  if (i >= kReuseOctaves - 1) return waiting[kReuseOctaves - 1];
  const double f = octaves - i;
  return waiting[i] + f * (waiting[i + 1] - waiting[i]);
}

double LineWork::issued() const {
  double n = 0;
  for (double p : pipe) n += p;
  return n;
}

namespace {

double pipe_rate(const Gpu& gpu, int p) {
  static constexpr double Gpu::*rates[] = {
#define SMEMLAB_PIPE(e, name, rate) &Gpu::rate,
#include "timing/pipes.def"
#undef SMEMLAB_PIPE
  };
  return gpu.*rates[p];
}

// Per-launch factors a line's quantities are weighed with: the L1 hit
// fraction of cached loads, a load's mean round trip, the chain weights.
struct Factors {
  double l1_hit = 0;        // of cached load sectors
  double load_latency = 0;  // cycles
  double mlp = 1;           // independent loads in flight per warp
  // Load/store pipe cycles a global load request costs beyond its issue
  // slot: its warp's batch of loads waits for L2 (lsu_wait_extra()).
  double lsu_wait = 0;
  double per_warp = 0;   // 1 / warps of the grid
  double per_block = 0;  // 1 / blocks
  // Phases in step: per phase, the resource that binds it (kResources:
  // the block chain), and per resource the factor from a line's quantity
  // to the busiest SM's cycles in one round.
  std::vector<int> phase_binds;
  double phase_scale[kResources] = {};
  // Per barrier phase: the cycles a block barrier ending it costs
  // (barrier_costs()); a phase beyond the list: barrier_floor.
  std::vector<double> barrier_cost;
  double barrier_floor = 0;
};

// The cycles a block barrier costs after each barrier phase (measured:
// tests/timing/microbench.cu's drain rows, h100.def barrier_drain_*): the
// SM waits for the block's warps to finish the phase's work and start
// again, per warp of the block: most after shared loads the warps wait
// for, less after shared stores, least after other work; never less than
// barrier_cycles. The resident blocks drain together, so a round of them
// pays it once per barrier, not once per block.
std::vector<double> barrier_costs(const Gpu& gpu, const LaunchWork& w, double warps_per_block) {
  uint32_t n = 1;
  for (const LineWork& l : w.lines)
    if (l.phase != kEveryPhase) n = std::max(n, l.phase + 1);
  std::vector<double> rate(n, gpu.barrier_drain_alu);
  for (const LineWork& l : w.lines) {
    if (l.phase == kEveryPhase) continue;
    const bool waits =
        l.shared_round_trips + l.shared_atomic_round_trips + l.dshared_round_trips > 0;
    const double r = waits                 ? gpu.barrier_drain_load
                     : l.shared_stores > 0 ? gpu.barrier_drain_store
                                           : gpu.barrier_drain_alu;
    rate[l.phase] = std::max(rate[l.phase], r);
  }
  std::vector<double> cost(n);
  for (uint32_t p = 0; p < n; ++p)
    cost[p] = std::max(gpu.barrier_cycles, rate[p] * warps_per_block);
  return cost;
}

// Sectors a line sends on to L2: all but the cached loads that hit in L1.
double l2_sectors(const LineWork& l, const Factors& f) {
  return l.l1_sectors - f.l1_hit * l.cached_loads;
}

// A line's cycles on its block's dependent path, its barriers aside.
// Issue: a warp issues its own instructions one a clock at best, waiting
// latency_alu for an ALU result it depends on (dependence.h), and the SM's
// schedulers serve the block's warps 4 a clock, so the slower of the two;
// then the waits, which a barrier keeps from overlapping the block's other
// phases: each shared load (latency_shared) or atomic
// (latency_shared_atomic), DSMEM load or atomic (latency_dsmem) and global
// load (the load latency, mlp in flight) of the warp.
double chain_work(const Gpu& gpu, const LineWork& l, const Factors& f) {
  const double own = std::max(l.dependent_issue, l.issued());
  const double issue = std::max(own * f.per_warp, l.issued() * f.per_block / gpu.schedulers);
  const double waits = l.shared_round_trips * gpu.latency_shared +
                       l.shared_atomic_round_trips * gpu.latency_shared_atomic +
                       l.dshared_round_trips * gpu.latency_dsmem +
                       l.load_requests * f.load_latency / f.mlp;
  return issue + waits * f.per_warp;
}

// Each barrier of the block on the line: what a barrier ending its phase
// costs (barrier_costs()).
double chain_barriers(const LineWork& l, const Factors& f) {
  if (l.block_barriers == 0) return 0;
  const double cost = l.phase < f.barrier_cost.size() ? f.barrier_cost[l.phase] : f.barrier_floor;
  return l.block_barriers * f.per_block * cost;
}

double chain_cycles(const Gpu& gpu, const LineWork& l, const Factors& f) {
  return chain_work(gpu, l, f) + chain_barriers(l, f);
}

// The quantity of one line that a resource's time is proportional to: a
// line's share of the resource is its quantity over the launch's sum.
double line_quantity(const Gpu& gpu, const LineWork& l, Resource r, const Factors& f) {
  switch (r) {
    case Resource::Issue:
      return l.issued();
    case Resource::Shared:
      return l.shared_wavefronts;
    case Resource::L1:
      // Shared memory and L1 share one 128 B/clk data path: a shared
      // wavefront and 4 global sectors each take one of its cycles, or
      // more where a request moves more bytes to or from registers.
      return l.shared_wavefronts + l.l1_sectors * gpu.shared_wavefronts / gpu.l1_sectors +
             l.data_path_excess * gpu.shared_wavefronts;
    case Resource::L2:
    case Resource::Dram:
      return l2_sectors(l, f);
    case Resource::Latency:
      return l.load_requests;
    case Resource::Chain:
      return chain_cycles(gpu, l, f);
    case Resource::Phases: {
      if (l.phase >= f.phase_binds.size()) return 0;  // a what-if's spread wavefronts
      const int b = f.phase_binds[l.phase];
      const double bound =
          b == kResources ? chain_work(gpu, l, f)
                          : line_quantity(gpu, l, static_cast<Resource>(b), f) * f.phase_scale[b];
      return bound + chain_barriers(l, f);
    }
    case Resource::Tensor:
      return l.tensor_fma;
    case Resource::Lsu:
      return l.pipe[int(Pipe::Lsu)] + l.load_requests * f.lsu_wait;
    default:
      break;
  }
  int p = static_cast<int>(r) - static_cast<int>(Resource::Fp32);
  return (p >= 0 && p < kPipes) ? l.pipe[p] : 0;
}

// Loads waiting for L2 on the load/store pipe (measured: tests/timing/
// microbench_l1miss.cu, h100.def lsu_wait_slowdown): with 64 warps per SM
// each issuing batches of 8 independent loads, the pipe delivered 1.20
// times fewer loads a clock when every batch held a load waiting for L2
// (a miss, or a hit on a line another warp's miss has in flight; .cg loads
// alike) than when all hit in L1, however many of the 8 waited: the warps
// stall on the slowest load of their batch and too few are left with loads
// to issue. A request waits while the newest of its sectors was first
// loaded fewer than a round trip ago, in the warp's memory instructions
// (latency_l2 / the cycles between a warp's memory instructions when the
// pipe is busy, resident warps / lsu_rate); a batch of mlp requests waits
// if any does (taken as min(1, the waiting fraction x mlp)). Returns the
// extra cycles per global load request.
double lsu_wait_extra(const Gpu& gpu, const LaunchWork& w, double resident_warps, double mlp) {
  if (resident_warps <= 0) return 0;
  const double window = gpu.latency_l2 * gpu.lsu_rate / resident_warps;
  const double batches = std::min(1.0, w.l1_reuse.waiting_within(window) * mlp);
  return batches * (gpu.lsu_wait_slowdown - 1.0);
}

// Latency of a global load round trip: L1 hits at latency_l1, L2 hits at
// latency_l2, the DRAM part of the L2 traffic at latency_dram.
double load_latency_cycles(const Gpu& gpu, double l1_hit, double dram, double l2) {
  double miss = l2 > 0 ? std::clamp(dram / l2, 0.0, 1.0) : 1.0;
  double beyond_l1 = gpu.latency_l2 + miss * (gpu.latency_dram - gpu.latency_l2);
  return l1_hit * gpu.latency_l1 + (1.0 - l1_hit) * beyond_l1;
}

// The fraction of cached load sectors that hit in L1: the re-reads within
// a block whose stack distance fits in the L1 part of the SM's 256 KiB
// (what shared memory leaves). The resident blocks load their distinct
// bytes evenly over a block's span, so a re-read at a fraction x of the
// span back has seen x times those bytes pass: it hits while x <= L1 /
// loaded bytes (all re-reads hit while the loaded bytes fit).
double l1_hit_fraction(const Gpu& gpu, const LaunchWork& w, const Prediction& p) {
  if (w.l1_reuse.within[0] <= 0) return 0;
  const double resident =
      double(std::min<uint64_t>(p.occupancy.blocks_per_sm, p.waves.per_busiest_sm));
  const double shared = resident * (double(w.shared_per_block) + gpu.shared_reserved);
  const double l1 = std::max(0.0, gpu.l1_shared_bytes - shared);
  const double loaded = resident * w.l1_block_bytes;
  return loaded > l1 ? w.l1_reuse.at(l1 / loaded) : w.l1_reuse.within[0];
}

// The per-SM throughput resources a phase of the resident blocks takes
// cycles of, with their rates (warp-instructions, wavefronts a clock).
double per_sm_rate(const Gpu& gpu, int r) {
  if (r == int(Resource::Issue)) return gpu.schedulers;
  if (r == int(Resource::Shared) || r == int(Resource::L1)) return gpu.shared_wavefronts;
  const int q = r - int(Resource::Fp32);
  return q >= 0 && q < kPipes ? pipe_rate(gpu, q) : 0;
}

// Phases in step (measured: tests/timing/microbench.cu's phase rows,
// docs/validation.md §6.7): the resident blocks of an SM start together
// and pass their barriers together, so a phase in which each block waits
// (a global load's round trip, a barrier) leaves the SM's pipes idle
// rather than lending them to another block's busy phase. One round of
// `per_round` blocks takes, phase after phase, the slower of the phase's
// busiest per-SM resource (all the round's blocks' work in it) and one
// block's dependent path through it, then the barrier ending it (its
// drain, barrier_costs(): once a round, the blocks drain together).
// Returns the cycles of one round and fills f.phase_binds and
// f.phase_scale; 0 with fewer than two phases with work (the term is then
// the other terms' maximum). `overlap`: the round with its phases
// overlapped, the largest per-SM resource or chain over all its phases
// (what max() over the terms gives a round).
double phase_round_cycles(const Gpu& gpu, const LaunchWork& w, double per_round, Factors& f,
                          uint32_t& phases, double& overlap) {
  uint32_t n = 1;
  for (const LineWork& l : w.lines)
    if (l.phase != kEveryPhase) n = std::max(n, l.phase + 1);
  std::vector<std::array<double, kResources + 1>> work(n);  // [kResources]: chain
  std::vector<double> wavefronts(n), barriers(n);
  double all_wavefronts = 0;
  for (const LineWork& l : w.lines)
    if (l.phase != kEveryPhase) {
      wavefronts[l.phase] += l.shared_wavefronts;
      all_wavefronts += l.shared_wavefronts;
    }
  for (const LineWork& l : w.lines) {
    for (uint32_t p = 0; p < n; ++p) {
      double weight = l.phase == p ? 1.0 : 0.0;
      if (l.phase == kEveryPhase)
        weight = all_wavefronts > 0 ? wavefronts[p] / all_wavefronts : (p == 0 ? 1.0 : 0.0);
      if (weight == 0) continue;
      for (int r = 0; r < kResources; ++r)
        if (per_sm_rate(gpu, r) > 0)
          work[p][r] += weight * line_quantity(gpu, l, static_cast<Resource>(r), f);
      work[p][kResources] += weight * chain_work(gpu, l, f);
      barriers[p] += weight * chain_barriers(l, f);
    }
  }
  for (int r = 0; r < kResources; ++r) {
    const double rate = per_sm_rate(gpu, r);
    f.phase_scale[r] = rate > 0 ? per_round * f.per_block / rate : 0;
  }
  f.phase_binds.assign(n, kResources);
  double round = 0;
  std::array<double, kResources + 1> sums{};
  phases = 0;
  for (uint32_t p = 0; p < n; ++p) {
    double slowest = std::max(0.0, work[p][kResources]);
    for (int r = 0; r < kResources; ++r) {
      const double c = std::max(0.0, work[p][r]) * f.phase_scale[r];
      sums[r] += c;
      if (c > slowest) {
        slowest = c;
        f.phase_binds[p] = r;
      }
    }
    sums[kResources] += std::max(0.0, work[p][kResources]) + barriers[p];
    round += slowest + barriers[p];
    phases += slowest > 0;
  }
  overlap = *std::max_element(sums.begin(), sums.end());
  return phases >= 2 ? round : 0;
}

// The part of the first round's step that a later round of `blocks`
// resident blocks keeps (measured: tests/timing/microbench.cu's kept rows,
// h100.def phase_step_loss): blocks that start as others retire fall out
// of step, the more of them the more blocks share the SM; one block alone
// keeps its own step. 1 - loss x (1 - 1 / blocks): 0.75 with 2 blocks,
// 0.62 with 4, 0.56 with 8 (measured 0.76-0.79, 0.57-0.61, 0.50-0.65).
double phase_step_kept(const Gpu& gpu, double blocks) {
  if (blocks <= 1) return 1.0;
  return 1.0 - gpu.phase_step_loss * (1.0 - 1.0 / blocks);
}

// Index of the largest of the resources' times (the first of equals).
int slowest(const double (&ns)[kResources]) {
  int worst = 0;
  for (int r = 1; r < kResources; ++r)
    if (ns[r] > ns[worst]) worst = r;
  return worst;
}

}  // namespace

double dram_bytes(const Gpu& gpu, double footprint, double l2) {
  if (footprint < 0) return l2;
  footprint = std::min(footprint, l2);
  if (footprint <= gpu.l2_bytes) return footprint;
  // Re-reads of a footprint larger than L2 hit only for the part L2 holds.
  return footprint + (l2 - footprint) * (1.0 - gpu.l2_bytes / footprint);
}

Prediction predict(const LaunchWork& w, const Gpu& gpu) {
  Prediction p;
  if (kShortCircuit) {  // the cost harness (short_circuit.h)
    p.why_not = "the time model is short-circuited (a cost-measurement build)";
    return p;
  }
  p.launch_ns = gpu.launch_ns;
  p.occupancy = occupancy(gpu, w.threads_per_block, w.regs_per_thread, w.shared_per_block);
  if (w.blocks == 0) {
    p.why_not = "the launch has no blocks";
    return p;
  }
  if (p.occupancy.blocks_per_sm == 0) {
    p.why_not = "a block does not fit on an SM (" + p.occupancy.limited_by + ")";
    return p;
  }
  p.waves = waves(gpu, w.blocks, p.occupancy.blocks_per_sm);
  Factors f;
  f.l1_hit = p.l1_hit_fraction = l1_hit_fraction(gpu, w, p);
  f.mlp = std::max(1.0, std::min(w.mlp, gpu.max_mlp));
  f.lsu_wait =
      lsu_wait_extra(gpu, w,
                     double(std::min<uint64_t>(p.occupancy.blocks_per_sm, p.waves.per_busiest_sm)) *
                         p.occupancy.warps_per_block,
                     f.mlp);
  f.per_block = 1.0 / double(w.blocks);
  f.per_warp = f.per_block / double(p.occupancy.warps_per_block);
  f.barrier_cost = barrier_costs(gpu, w, double(p.occupancy.warps_per_block));
  f.barrier_floor = gpu.barrier_cycles;
  double l2_sectors_total = 0;
  for (const LineWork& l : w.lines) l2_sectors_total += l2_sectors(l, f);
  p.l2_bytes = l2_sectors_total * 32.0;
  p.dram_bytes = dram_bytes(gpu, w.footprint_bytes, p.l2_bytes);
  f.load_latency = load_latency_cycles(gpu, f.l1_hit, p.dram_bytes, p.l2_bytes);

  double total[kResources] = {};
  for (const LineWork& l : w.lines)
    for (int r = 0; r < kResources; ++r)
      total[r] += line_quantity(gpu, l, static_cast<Resource>(r), f);

  // Per-SM resources: the busiest SM runs per_busiest_sm of the blocks
  // (the last wave's tail included), each doing an equal part of the work.
  const double busiest = double(p.waves.per_busiest_sm) / double(w.blocks);
  const double ns_per_cycle = 1.0 / gpu.clock_ghz;
  double cycles[kResources] = {};
  cycles[int(Resource::Issue)] = total[int(Resource::Issue)] * busiest / gpu.schedulers;
  for (int q = 0; q < kPipes; ++q)
    cycles[int(Resource::Fp32) + q] = total[int(Resource::Fp32) + q] * busiest / pipe_rate(gpu, q);
  cycles[int(Resource::Shared)] = total[int(Resource::Shared)] * busiest / gpu.shared_wavefronts;
  cycles[int(Resource::L1)] = total[int(Resource::L1)] * busiest / gpu.shared_wavefronts;
  for (int r = 0; r < kResources; ++r) p.resource_ns[r] = cycles[r] * ns_per_cycle;

  // Device resources: L2 bandwidth grows with the SMs that have work.
  const double active_sms = std::min<double>(gpu.sms, double(w.blocks));
  // Partially written sectors take the L2 far longer than whole ones: they
  // go at its measured merge rate (h100.def) instead of its bandwidth.
  const double partial = std::min(w.partial_store_sectors, l2_sectors_total);
  p.resource_ns[int(Resource::L2)] =
      ((p.l2_bytes - 32.0 * partial) / gpu.l2_bandwidth_gbs + partial / gpu.l2_partial_writes) *
      gpu.sms / active_sms;
  p.resource_ns[int(Resource::Dram)] = p.dram_bytes / gpu.dram_bandwidth_gbs;

  // Little's law: the busiest SM's loads are served warps x mlp at a time,
  // each round trip taking the load latency.
  const double resident_blocks =
      double(std::min<uint64_t>(p.occupancy.blocks_per_sm, p.waves.per_busiest_sm));
  const double round_trips = total[int(Resource::Latency)] * busiest /
                             (resident_blocks * p.occupancy.warps_per_block * f.mlp);
  p.resource_ns[int(Resource::Latency)] = round_trips * f.load_latency * ns_per_cycle;
  // Block chain: a block lasts at least its dependent path, and holds its
  // slot block_slot_cycles longer (starting and retiring it, measured);
  // the SM runs blocks_per_sm of them side by side, so its blocks take
  // that many rounds. And the SM starts no more than one block every
  // block_launch_cycles (measured on empty blocks), whatever they do.
  p.chain_cycles = total[int(Resource::Chain)];
  const double rounds = std::ceil(double(p.waves.per_busiest_sm) / resident_blocks);
  p.resource_ns[int(Resource::Chain)] =
      std::max((p.chain_cycles + gpu.block_slot_cycles) * rounds,
               double(p.waves.per_busiest_sm) * gpu.block_launch_cycles) *
      ns_per_cycle;
  // Phases in step: the rounds of resident blocks, each through its
  // phases one after another (above). The first round starts in step; the
  // later ones, whose blocks start as others retire, keep part of its
  // excess over the overlapped round (phase_step_kept()).
  const double per_round = double(p.waves.per_busiest_sm) / rounds;
  p.phase_round_cycles = phase_round_cycles(gpu, w, per_round, f, p.phases, p.phase_overlap_cycles);
  if (p.phase_round_cycles > 0) {
    const double later =
        p.phase_overlap_cycles +
        phase_step_kept(gpu, per_round) * (p.phase_round_cycles - p.phase_overlap_cycles);
    p.resource_ns[int(Resource::Phases)] =
        (p.phase_round_cycles + (rounds - 1) * later) * ns_per_cycle;
  }
  total[int(Resource::Phases)] = 0;  // line shares: now that the phases' binds are known
  if (p.phase_round_cycles > 0)
    for (const LineWork& l : w.lines)
      total[int(Resource::Phases)] += line_quantity(gpu, l, Resource::Phases, f);

  // Overlap rule: the pipes, the memory system and the warps waiting on
  // latency all work at once, so the slowest binds (a roofline over every
  // resource); the launch overhead adds. Shared wavefronts and global
  // sectors share the L1 data path, so that resource adds them.
  const int worst = slowest(p.resource_ns);
  p.limiter = static_cast<Resource>(worst);
  p.duration_ns = p.resource_ns[worst] + p.launch_ns;
  p.kernel_ns = p.resource_ns[worst] + gpu.kernel_floor_ns;
  p.valid = true;

  if (total[worst] > 0)
    for (const LineWork& l : w.lines) {
      double q = line_quantity(gpu, l, p.limiter, f);
      if (q <= 0) continue;
      // A line in two phases is two LineWorks: one share.
      auto same = std::find_if(p.lines.begin(), p.lines.end(), [&](const LineShare& s) {
        return s.line == l.line && s.file == l.file;
      });
      if (same != p.lines.end())
        same->share += q / total[worst];
      else
        p.lines.push_back({l.file, l.line, q / total[worst]});
    }
  std::stable_sort(p.lines.begin(), p.lines.end(),
                   [](const LineShare& a, const LineShare& b) { return a.share > b.share; });
  return p;
}

}  // namespace smemlab::timing
