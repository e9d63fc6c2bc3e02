// Decoders of the cluster and Hopper control instructions: mapa,
// barrier.cluster (from decode_bar), fence (every form, checked),
// griddepcontrol, setmaxnreg, and multimem (refused by name). Executors:
// cluster.cc (MAPA, CLUSTERBAR, FENCE); the others run as NOP.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "emu/decode_context.h"
#include "emu/exec.h"

namespace smemlab::emu {
namespace {

using K = ptx::Operand::Kind;
using Mods = std::vector<std::string>;

bool is_scope(const std::string& m) {
  return m == "cta" || m == "cluster" || m == "gpu" || m == "sys";
}

// Whether `mods` (after "fence") is a fence the PTX ISA defines; `ops`
// operands given.
bool valid_fence(const Mods& m, size_t ops) {
  if (m.empty()) return false;
  if (m[0] == "proxy") {
    if (m.size() == 2 && (m[1] == "alias" || m[1] == "async")) return ops == 0;
    if (m.size() == 3 && m[1] == "async")
      return ops == 0 && (m[2] == "global" || m[2] == "shared::cta" || m[2] == "shared::cluster");
    // fence.proxy.tensormap::generic.release.scope / .acquire.scope [a], 128
    if (m.size() == 4 && m[1] == "tensormap::generic" && is_scope(m[3]))
      return (m[2] == "release" && ops == 0) || (m[2] == "acquire" && ops == 2);
    return false;
  }
  if (m[0] == "mbarrier_init") return m.size() == 3 && m[1] == "release" && m[2] == "cluster";
  if (ops != 0) return false;
  if (m.size() == 1) return is_scope(m[0]);
  return m.size() == 2 && is_scope(m[1]) &&
         (m[0] == "sc" || m[0] == "acq_rel" || m[0] == "acquire" || m[0] == "release");
}

}  // namespace

// fence, fence.proxy.*, fence.mbarrier_init.release.cluster: FENCE, which
// only tells observers (every access is performed in program order,
// docs/emulator.md "Order and visibility"); forms the ISA does not define
// are refused by name.
void decode_fence(Insn& d) {
  const Mods& m = d.in.mods;
  if (!valid_fence(m, d.operands().size())) d.unsupported();
  FenceKind kind = FenceKind::Memory;
  FenceSpace space = FenceSpace::All;
  if (m[0] == "mbarrier_init") {
    kind = FenceKind::MbarrierInit;
  } else if (m[0] == "proxy") {
    kind = m[1] == "alias"   ? FenceKind::ProxyAlias
           : m[1] == "async" ? FenceKind::ProxyAsync
                             : FenceKind::ProxyTensormap;
    if (m.size() == 3 && m[1] == "async")
      space = m[2] == "global"        ? FenceSpace::Global
              : m[2] == "shared::cta" ? FenceSpace::SharedCta
                                      : FenceSpace::SharedCluster;
  }
  d.op.code = code(FENCE, U32);
  d.op.aux = static_cast<uint8_t>(kind);
  d.op.aux2 = static_cast<uint8_t>(space);
  d.push();
}

// griddepcontrol.launch_dependents / griddepcontrol.wait (programmatic
// dependent launch): grids run one after another in stream order here, so
// the wait has nothing to wait for and the launch of dependents nothing to
// start early: both are exact as no-ops.
void decode_griddepcontrol(Insn& d) {
  const Mods& m = d.in.mods;
  if (m.size() != 1 || (m[0] != "launch_dependents" && m[0] != "wait")) d.unsupported();
  d.need(0);
  d.op.code = code(NOP, U32);
  d.push();
}

// setmaxnreg.{inc,dec}.sync.aligned.u32 N: accepted and recorded
// (Program::setmaxnreg); the emulator's registers do not come from a
// per-SM file, so nothing changes at run time.
void decode_setmaxnreg(Insn& d) {
  const Mods& m = d.in.mods;
  if (m.size() != 4 || (m[0] != "inc" && m[0] != "dec") || m[1] != "sync" || m[2] != "aligned" ||
      m[3] != "u32")
    d.unsupported();
  d.need(1);
  const ptx::Operand& o = d.operands()[0];
  if (o.kind != K::Imm || o.bits < 24 || o.bits > 256 || o.bits % 8)
    d.c.fail(o.pos, fmt::format("'{}' takes an immediate register count from 24 to 256, a "
                                "multiple of 8",
                                d.in.text()));
  const auto n = static_cast<int32_t>(o.bits);
  d.c.prog->setmaxnreg.push_back(
      {static_cast<uint32_t>(d.c.prog->ops.size()), m[0] == "inc" ? n : -n});
  d.op.code = code(NOP, U32);
  d.push();
}

void decode_multimem(Insn& d) {
  d.c.fail(d.in.pos,
           fmt::format("unsupported instruction '{}': multimem (multicast memory over the GPUs "
                       "of an NVLink domain) is not supported; the emulator has one GPU",
                       d.in.text()));
}

// mapa{.shared::cluster}.{u32,u64} d, a, rank: generic without the space.
void decode_mapa(Insn& d) {
  const Mods& m = d.in.mods;
  const bool cluster = m.size() == 2 && m[0] == "shared::cluster";
  if (!(cluster || m.size() == 1) || (d.t != U32 && d.t != U64)) d.unsupported();
  // A 32-bit generic address exists only with .address_size 32.
  if (!cluster && d.t != U64) d.unsupported();
  d.need(3);
  const auto& ops = d.operands();
  Op& op = d.op;
  op.code = code(MAPA, d.t);
  op.aux = cluster ? 0 : 1;
  op.r[0] = d.c.dst(ops[0]);
  op.r[1] = d.c.src(ops[1], d.t);
  op.r[2] = d.c.src(ops[2], U32);
  d.push();
}

// barrier.cluster.arrive{.release,.relaxed}{.aligned},
// barrier.cluster.wait{.acquire}{.aligned}.
void decode_cluster_barrier(Insn& d) {
  const Mods& m = d.in.mods;
  if (m.size() < 2 || m[0] != "cluster" || (m[1] != "arrive" && m[1] != "wait")) d.unsupported();
  const bool arrive = m[1] == "arrive";
  bool aligned = false, relaxed = false;
  for (size_t i = 2; i < m.size(); ++i) {
    relaxed = relaxed || m[i] == "relaxed";
    if (m[i] == "aligned" && i + 1 == m.size())
      aligned = true;
    else if (i != 2 || (arrive ? m[i] != "release" && m[i] != "relaxed" : m[i] != "acquire"))
      d.unsupported();
  }
  d.need(0);
  d.op.code = code(CLUSTERBAR, U32);
  d.op.aux = arrive ? 0 : 1;
  d.op.aux2 = (aligned ? 1 : 0) | (relaxed ? 2 : 0);  // (relaxed: no release, mbar_watch.h)
  d.push();
}

}  // namespace smemlab::emu
