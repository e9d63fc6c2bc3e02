#include "timing/counts.h"

#include <algorithm>
#include <map>
#include <optional>

#include "timing/classify.h"
#include "timing/short_circuit.h"

namespace smemlab::timing {

namespace {

size_t gpu_model_index(const check::BankAnalysis& banks, std::string_view arch) {
  for (size_t i = 0; i < banks.models().size(); ++i)
    if (banks.models()[i]->name() == arch) return i;
  return 0;
}

// The data path's cycles beyond `base` (the wavefronts, or sectors / 4)
// for requests that moved `bytes` to or from registers at `rate` bytes a
// clock (h100.def: measured per kind of access).
double excess_cycles(double bytes, double rate, double base) {
  return rate > 0 ? std::max(0.0, bytes / rate - base) : 0.0;
}

bool is_load(check::AccessClass c) {
  return c == check::AccessClass::GlobalLoad || c == check::AccessClass::LocalLoad ||
         c == check::AccessClass::GlobalAtomic;
}

}  // namespace

LaunchWork launch_work(const LaunchShape& shape, const check::AccessAnalysis& access,
                       const check::BankAnalysis* banks, const check::HopperAnalysis* hopper,
                       std::string_view arch, const Gpu& gpu) {
  LaunchWork w;
  if (kShortCircuit) return w;  // the cost harness (short_circuit.h)
  w.blocks = shape.blocks;
  w.threads_per_block = shape.threads_per_block;
  w.regs_per_thread = shape.regs_per_thread;
  w.shared_per_block = shape.shared_per_block;
  w.footprint_bytes = shape.footprint_bytes;
  w.l1_reuse = shape.l1_reuse;
  w.l1_block_bytes = shape.l1_block_bytes;
  w.partial_store_sectors = shape.partial_store_sectors;
  const ptx::LineTable* table = access.kernel().lines;
  // By barrier phase and line: a line whose instructions fall in two
  // phases (a loop's code on both sides of a barrier) is two LineWorks.
  std::map<std::pair<uint32_t, check::SourceLine>, LineWork> by_line;
  // Source lines by location: many instructions share one (an unrolled
  // loop's body), and resolving one (check::lines_of) costs more than the
  // rest of this walk (docs/timing.md, "Cost").
  // (A location with no source line: the PTX line, the instruction's own.)
  std::map<std::pair<const ptx::LineTable*, int>, std::optional<check::SourceLine>> by_loc;
  auto line_of = [&](const ptx::LineTable* lines, const emu::InstrInfo* instr) {
    auto [it, fresh] = by_loc.try_emplace({lines, instr->loc});
    if (fresh) {
      auto all = check::lines_of(lines, instr->loc);
      if (!all.empty()) it->second = all.back();  // outermost first: its own line last
    }
    return it->second ? *it->second : check::SourceLine{"PTX", instr->ptx_line};
  };
  auto at = [&](const check::SourceLine& s, uint32_t pc) -> LineWork& {
    const auto* phases = shape.phase;
    const uint32_t phase = phases && pc < phases->size() ? (*phases)[pc] : 0;
    LineWork& l = by_line[{phase, s}];
    l.file = s.file;
    l.line = s.line;
    l.phase = phase;
    return l;
  };
  const double warps_per_block = std::max(1.0, (shape.threads_per_block + 31) / 32.0);
  for (const auto& [pc, e] : access.executed()) {
    const auto* folded = shape.folded;
    if (folded && e.first->pc < folded->size() && (*folded)[e.first->pc]) continue;
    LineWork& l = at(line_of(table, e.first), e.first->pc);
    double steps = double(e.second.steps);
    Pipe p = pipe_of(e.first->text);
    if (banks && own_shared_access(e.first->text))
      ;  // issued as the bank analysis's SASS requests, below
    else
      l.pipe[static_cast<int>(p)] += steps;
    const auto* dep = shape.dependent_issue;
    l.dependent_issue += steps * (dep && e.first->pc < dep->size() ? (*dep)[e.first->pc] : 1.0);
    if (p == Pipe::Tensor) l.tensor_fma += steps * tensor_fma(e.first->text);
    if (block_barrier(e.first->text)) l.block_barriers += steps / warps_per_block;
  }
  double loads = 0;
  for (const auto& [pc, a] : access.accesses()) {
    LineWork& l = at(line_of(table, a.instr), a.instr->pc);
    l.l1_sectors += double(a.counts.sectors);
    if (a.cls == check::AccessClass::GlobalLoad && l1_cached_load(a.instr->text))
      l.cached_loads += double(a.counts.sectors);
    // An L1 load returns its lanes' bytes at l1_register_bytes a clock
    // (a broadcast LDG.128: 1 sector, 4 cycles measured).
    if (a.cls == check::AccessClass::GlobalLoad || a.cls == check::AccessClass::LocalLoad)
      l.data_path_excess += excess_cycles(double(a.counts.bytes), gpu.l1_register_bytes,
                                          double(a.counts.sectors) / gpu.l1_sectors);
    if (is_load(a.cls) && a.counts.requests) {
      l.load_requests += double(a.counts.requests);
      ++loads;
    }
  }
  w.mlp = std::max(1.0, loads);
  if (banks) {
    // By instruction, at its innermost line: lines() lists an inlined
    // instruction at every line of its inline chain.
    size_t m = gpu_model_index(*banks, arch);
    // Shared ld/st issue at the SASS level: the bank analysis counts the
    // requests of the SASS instructions ptxas made (four PTX loads merged
    // into one LDS.128 are one request); they take the PTX count's place
    // on the load/store pipe, which global and shared accesses share.
    for (const auto& [pc, s] : banks->instructions()) {
      if (m >= s.models.size()) continue;
      LineWork& l = at(line_of(banks->kernel().lines, s.instr), s.instr->pc);
      for (int op = 0; op < check::kSharedOps; ++op) {
        const check::BankCounts& c = s.models[m].op[op];
        l.shared_wavefronts += double(c.wavefronts);
        l.pipe[int(Pipe::Lsu)] += double(c.requests);
        // Measured apart (h100.def): loads return their bytes to the
        // registers at shared_load_bytes a clock, stores take theirs at
        // l1_register_bytes; atomics are left at their wavefronts.
        const auto k = static_cast<check::SharedOp>(op);
        const double rate =
            k == check::SharedOp::Load || k == check::SharedOp::LdMatrix    ? gpu.shared_load_bytes
            : k == check::SharedOp::Store || k == check::SharedOp::StMatrix ? gpu.l1_register_bytes
                                                                            : 0.0;
        l.data_path_excess +=
            excess_cycles(double(c.lane_bytes), rate, double(c.wavefronts) / gpu.shared_wavefronts);
      }
      // Loads and atomics return a value the warp waits for (block chain).
      l.shared_round_trips += double(s.models[m].op[int(check::SharedOp::Load)].requests);
      l.shared_atomic_round_trips += double(s.models[m].op[int(check::SharedOp::Atomic)].requests);
      l.shared_stores += double(s.models[m].op[int(check::SharedOp::Store)].requests +
                                s.models[m].op[int(check::SharedOp::StMatrix)].requests);
    }
  }
  if (hopper)
    for (const auto& [pc, h] : hopper->instructions()) {
      const auto& c = h.counts.cls;
      double waits = double(c[int(check::HopperClass::DsharedLoad)].requests +
                            c[int(check::HopperClass::DsharedAtomic)].requests);
      if (waits > 0)
        at(line_of(hopper->kernel().lines, h.instr), h.instr->pc).dshared_round_trips += waits;
    }
  for (auto& [where, l] : by_line) w.lines.push_back(std::move(l));
  return w;
}

}  // namespace smemlab::timing
