#include "timing/model.h"

#include <algorithm>
#include <cmath>

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

// The quantity of one line that a resource's time is proportional to: a
// line's share of the resource is its quantity over the launch's sum.
double line_quantity(const LineWork& l, Resource r) {
  switch (r) {
    case Resource::Issue:
      return l.issued();
    case Resource::Shared:
      return l.shared_wavefronts;
    case Resource::L1:
    case Resource::L2:
    case Resource::Dram:
      return l.l1_sectors;
    case Resource::Latency:
      return l.load_requests;
    case Resource::Barriers:
      return l.block_barriers;
    default:
      break;
  }
  int p = static_cast<int>(r) - static_cast<int>(Resource::Fp32);
  return (p >= 0 && p < kPipes) ? l.pipe[p] : 0;
}

// Latency of a global load round trip: L2 hits at latency_l2, the DRAM
// part of the traffic at latency_dram.
double load_latency_cycles(const Gpu& gpu, double dram, double l2) {
  double miss = l2 > 0 ? std::clamp(dram / l2, 0.0, 1.0) : 1.0;
  return gpu.latency_l2 + miss * (gpu.latency_dram - gpu.latency_l2);
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
  double total[kResources] = {};
  for (const LineWork& l : w.lines)
    for (int r = 0; r < kResources; ++r) total[r] += line_quantity(l, static_cast<Resource>(r));

  // Per-SM resources: the busiest SM runs per_busiest_sm of the blocks
  // (the last wave's tail included), each doing an equal part of the work.
  const double busiest = double(p.waves.per_busiest_sm) / double(w.blocks);
  const double ns_per_cycle = 1.0 / gpu.clock_ghz;
  double cycles[kResources] = {};
  cycles[int(Resource::Issue)] = total[int(Resource::Issue)] * busiest / gpu.schedulers;
  for (int q = 0; q < kPipes; ++q)
    cycles[int(Resource::Fp32) + q] = total[int(Resource::Fp32) + q] * busiest / pipe_rate(gpu, q);
  cycles[int(Resource::Shared)] = total[int(Resource::Shared)] * busiest / gpu.shared_wavefronts;
  cycles[int(Resource::L1)] = total[int(Resource::L1)] * busiest / gpu.l1_sectors;

  // Device resources: L2 bandwidth grows with the SMs that have work.
  const double active_sms = std::min<double>(gpu.sms, double(w.blocks));
  p.l2_bytes = total[int(Resource::L2)] * 32.0;
  p.dram_bytes = dram_bytes(gpu, w.footprint_bytes, p.l2_bytes);
  for (int r = 0; r < kResources; ++r) p.resource_ns[r] = cycles[r] * ns_per_cycle;
  p.resource_ns[int(Resource::L2)] = p.l2_bytes / (gpu.l2_bandwidth_gbs * active_sms / gpu.sms);
  p.resource_ns[int(Resource::Dram)] = p.dram_bytes / gpu.dram_bandwidth_gbs;

  // Little's law: the busiest SM's loads are served warps x mlp at a time,
  // each round trip taking the load latency.
  const double warps_at_once =
      double(std::min<uint64_t>(p.occupancy.blocks_per_sm, p.waves.per_busiest_sm)) *
      p.occupancy.warps_per_block;
  const double round_trips = total[int(Resource::Latency)] * busiest /
                             (warps_at_once * std::max(1.0, std::min(w.mlp, gpu.max_mlp)));
  p.resource_ns[int(Resource::Latency)] =
      round_trips * load_latency_cycles(gpu, p.dram_bytes, p.l2_bytes) * ns_per_cycle;
  // A barrier holds its block for about one shared round trip; the other
  // resident blocks keep the SM busy meanwhile, so blocks_per_sm overlap.
  p.resource_ns[int(Resource::Barriers)] = total[int(Resource::Barriers)] * busiest *
                                           gpu.barrier_cycles / double(p.occupancy.blocks_per_sm) *
                                           ns_per_cycle;

  // Overlap rule: the pipes, the memory system and the warps waiting on
  // latency all work at once, so the slowest binds (a roofline over every
  // resource); the launch overhead adds.
  int worst = 0;
  for (int r = 1; r < kResources; ++r)
    if (p.resource_ns[r] > p.resource_ns[worst]) worst = r;
  p.limiter = static_cast<Resource>(worst);
  p.duration_ns = p.resource_ns[worst] + p.launch_ns;
  p.valid = true;

  if (total[worst] > 0)
    for (const LineWork& l : w.lines) {
      double q = line_quantity(l, p.limiter);
      if (q > 0) p.lines.push_back({l.file, l.line, q / total[worst]});
    }
  std::stable_sort(p.lines.begin(), p.lines.end(),
                   [](const LineShare& a, const LineShare& b) { return a.share > b.share; });
  return p;
}

}  // namespace smemlab::timing
