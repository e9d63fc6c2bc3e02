// The time model (issue 31): a launch's counted work (what the analyses of
// src/check counted, per source line) -> predicted duration on a GPU
// (gpu.h), the resource that binds it, and each line's share of that
// resource. Analytical and cheap: no simulation, one pass over the lines.
// docs/timing.md explains every term and the overlap rule.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "timing/gpu.h"
#include "timing/occupancy.h"

namespace smemlab::timing {

enum class Pipe : uint8_t {
#define SMEMLAB_PIPE(e, name, rate) e,
#include "timing/pipes.def"
#undef SMEMLAB_PIPE
};
inline constexpr int kPipes = 0
#define SMEMLAB_PIPE(e, name, rate) +1
#include "timing/pipes.def"
#undef SMEMLAB_PIPE
    ;
const char* pipe_name(Pipe p);

enum class Resource : uint8_t {
#define SMEMLAB_RESOURCE(e, name) e,
#include "timing/resources.def"
#undef SMEMLAB_RESOURCE
};
inline constexpr int kResources = 0
#define SMEMLAB_RESOURCE(e, name) +1
#include "timing/resources.def"
#undef SMEMLAB_RESOURCE
    ;
const char* resource_name(Resource r);

// L1 reuse by distance (footprint.h measures it): within[i] is the fraction
// of cached load sectors that re-read a sector their block loaded at most
// 2^-i of the block's span earlier (on its warps' clocks); within[0] is
// every re-read, 0 everywhere: no reuse measured.
inline constexpr int kReuseOctaves = 20;
struct ReuseProfile {
  double within[kReuseOctaves] = {};
  // The fraction re-read at relative distance <= x (0 < x), interpolated
  // in log2(x) between the octaves.
  double at(double x) const;
  // Loads that wait for L2 (footprint.h): waiting[i] is the fraction of
  // cached global load requests with a sector their block first loaded
  // fewer than 2^i of the warp's memory instructions earlier (i = 0: in
  // this very request, a miss), so still in flight if the round trip is
  // longer than that.
  double waiting[kReuseOctaves] = {};
  // The fraction waiting within `window` memory instructions, interpolated
  // in log2 between the octaves.
  double waiting_within(double window) const;
};

// LineWork::phase of work that belongs to no one phase (a what-if's
// wavefronts): spread over the phases like their shared wavefronts.
inline constexpr uint32_t kEveryPhase = UINT32_MAX;

// One source line's work over the whole grid (sampled counts already scaled).
struct LineWork {
  std::string file;
  int line = 0;
  // Barrier phase (phases.h): a line with instructions in two phases is
  // two LineWorks.
  uint32_t phase = 0;
  double pipe[kPipes] = {};      // warp-instructions issued, by pipe
  double tensor_fma = 0;         // tensor-core multiply-adds at the FP16 rate (classify.h)
  double shared_wavefronts = 0;  // conflicts included
  double l1_sectors = 0;         // global and local sectors through L1 (and on to L2)
  // Cycles the L1/shared data path spends on this line's accesses beyond
  // their wavefronts and sectors / 4: a request moving more bytes to or
  // from registers than those carry (a broadcast LDG.128 that hits in
  // L1: 1 sector, 512 bytes, 4 cycles; counts.cc, per instruction, by the
  // GPU's rates).
  double data_path_excess = 0;
  double cached_loads = 0;               // of l1_sectors: global load sectors L1 may hit
  double load_requests = 0;              // global/local load warp-instructions (latency term)
  double shared_round_trips = 0;         // shared loads a warp waits for (block chain)
  double shared_atomic_round_trips = 0;  // shared atomics likewise
  double shared_stores = 0;              // shared store requests (a barrier's drain)
  double dshared_round_trips = 0;        // the same on a cluster peer's shared memory
  double block_barriers = 0;             // bar.sync passes summed over blocks
  // Warp-cycles of issue on each warp's own dependent path (dependence.h,
  // summed like the instructions); below issued(): taken as issued().
  double dependent_issue = 0;
  double issued() const;
};

struct LaunchWork {
  uint64_t blocks = 0;
  uint32_t threads_per_block = 0;
  uint32_t regs_per_thread = 0;   // 0: unknown (no register limit applied)
  uint32_t shared_per_block = 0;  // static + dynamic bytes
  std::vector<LineWork> lines;
  // DRAM bytes: the footprint estimate (footprint.h); < 0: unknown, and
  // every L2 sector is taken to come from DRAM.
  double footprint_bytes = -1;
  // Independent global loads a warp has in flight (distinct load
  // instructions that ran, capped by the GPU's max_mlp).
  double mlp = 1;
  // L1 reuse within a block (footprint.h's L1Reuse): the re-reads of
  // sectors the block loaded before, by distance, and the distinct bytes a
  // block loads.
  ReuseProfile l1_reuse{};
  double l1_block_bytes = 0;
  // Global store sectors written only in part, summed over the grid's
  // requests: the L2 merges each at l2_partial_writes.
  double partial_store_sectors = 0;
};

struct LineShare {
  std::string file;
  int line = 0;
  double share = 0;  // of the limiting resource's work, 0..1
};

struct Prediction {
  bool valid = false;
  std::string why_not;  // when !valid: e.g. the block does not fit on an SM
  double duration_ns = 0;
  Resource limiter = Resource::Issue;
  double resource_ns[kResources] = {};  // each resource's time alone
  double launch_ns = 0;
  // The duration as Nsight Compute's gpu__time_duration sees it: from the
  // grid's start, without the launch path CUDA events include.
  double kernel_ns = 0;
  double dram_bytes = 0, l2_bytes = 0;
  double l1_hit_fraction = 0;  // of the cached load sectors
  double chain_cycles = 0;     // one block's dependent path
  // Phases in step: the barrier phases with work and the busiest SM's
  // cycles for one round of resident blocks through all of them (each
  // phase's barrier drain included); the rounds after the first keep
  // part of its excess over phase_overlap_cycles (by the resident blocks:
  // model.cc's phase_step_kept()), the round
  // with its phases overlapped.
  uint32_t phases = 1;
  double phase_round_cycles = 0;
  double phase_overlap_cycles = 0;
  Occupancy occupancy;
  Waves waves;
  std::vector<LineShare> lines;  // by share, largest first; lines with 0 left out
};

Prediction predict(const LaunchWork& work, const Gpu& gpu = h100());

// DRAM bytes from the footprint and the L2 traffic: data the launch
// touches once comes from DRAM once while it fits in L2; beyond L2's size
// the re-reads miss in proportion (docs/timing.md).
double dram_bytes(const Gpu& gpu, double footprint_bytes, double l2_bytes);

}  // namespace smemlab::timing
