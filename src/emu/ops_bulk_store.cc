// The 1-D bulk copies from shared to global memory, decoded and executed:
//   cp.async.bulk.global.shared::cta.bulk_group{.L2::cache_hint}
//       [dstMem], [srcMem], size{, policy}
//   cp.reduce.async.bulk.global.shared::cta.bulk_group{.L2::cache_hint}.OP.TYPE
//       [dstMem], [srcMem], size{, policy}
// As the TMA's tensor stores (ops_tma_exec.cc), each lane that executes one
// issues its own copy, performed at issue (one order the ISA allows); its
// completion is told to observers at the cp.async.bulk.wait_group covering
// its bulk async-group (hopper_events.cc). Observers see the copy as
// BulkCopy events (kind Store or Reduce, dims 1, not a tensor) and its
// 16-byte chunks as the async proxy's accesses: the shared read (BulkLoad),
// then the global write (BulkStore; a reduction: BulkReduce per element).
#include "emu/ops_bulk_store.h"

#include <fmt/format.h>

#include <atomic>
#include <cstring>
#include <string>

#include "emu/decode_tensor.h"
#include "emu/exec.h"
#include "emu/hopper_events.h"
#include "emu/tma.h"

namespace smemlab::emu {
namespace {

// PTX's reduction types -> the tensor-map element types tma::reduce takes
// (.b32/.b64: the bitwise operations on unsigned words).
struct BulkRedType {
  const char* name;
  tma::DataType type;
};
constexpr BulkRedType kBulkRedTypes[] = {
    {"u32", tma::DataType::U32},   {"s32", tma::DataType::S32}, {"u64", tma::DataType::U64},
    {"s64", tma::DataType::S64},   {"f32", tma::DataType::F32}, {"f16", tma::DataType::F16},
    {"bf16", tma::DataType::BF16}, {"b32", tma::DataType::U32}, {"b64", tma::DataType::U64}};
const char* const kBulkRedOps[] = {"add", "min", "max", "inc", "dec", "and", "or", "xor"};

// Lane l's copy as observers see it at issue (spans set by the caller).
BulkCopy bulk_store_event(BlockCtx& b, const Warp& w, const Op& op, uint32_t l, uint64_t size,
                          uint32_t shared_off, bool reduce) {
  BulkCopy ev{};
  ev.phase = BulkPhase::Issue;
  ev.kind = reduce ? BulkKind::Reduce : BulkKind::Store;
  ev.dims = 1;
  ev.lane = static_cast<uint8_t>(l);
  ev.id = next_copy_id(b);
  ev.mbarrier = kNoMbarrier;
  ev.shared_base = shared_off;
  ev.row_bytes = ev.pitch = static_cast<uint32_t>(size);
  ev.rows = 1;
  ev.bytes = size;
  ev.unit_strides = true;
  ev.instr = &b.prog->info[op.info];
  ev.warp = w.index;
  return ev;
}

void bulk_store_emit(BlockCtx& b, Warp& w, const Op& op, uint32_t l, MemOp mop, Space sp,
                     uint64_t addr, uint32_t width) {
  Space s[32];
  uint64_t a[32];
  s[l] = sp, a[l] = addr;
  mem_emit(b, w, op, mop, width, 1u << l, s, a);
}

template <class U>
void bulk_reduce_at(uint8_t* p, tma::Red r, tma::DataType ty, uint64_t v) {
  std::atomic_ref<U> ref(*reinterpret_cast<U*>(p));
  U old = ref.load(std::memory_order_relaxed);
  while (!ref.compare_exchange_weak(old, static_cast<U>(tma::reduce(r, ty, old, v)),
                                    std::memory_order_relaxed)) {
  }
}

// Lane l's copy of `size` bytes from shared `src` to global `dst`.
void bulk_store_lane(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t l) {
  const uint64_t size = reg(w, op.r[1])[l];
  const uint64_t dst = reg(w, op.r[4])[l] + static_cast<uint64_t>(op.imm);
  const uint64_t src = reg(w, op.r[5])[l] + reg(w, op.r[0])[l];
  const bool reduce = op.t2 != 0;
  const auto red = static_cast<tma::Red>(op.aux);
  const auto type = static_cast<tma::DataType>(op.aux2);
  const uint32_t es = reduce ? tma::element_bytes(type) : 16;
  if (size % 16 || dst % 16 || src % 16)
    fault(w, pc, static_cast<int>(l), FaultKind::Misaligned,
          fmt::format("cp{}.async.bulk needs 16-byte aligned addresses and a size that is a "
                      "multiple of 16 (size {}, dst 0x{:x}, src 0x{:x})",
                      reduce ? ".reduce" : "", size, dst, src));
  Space ss, gs;
  uint64_t sshown, gshown;
  const uint8_t* s = mem_translate(b, w, op, pc, l, MSpace::Shared, src,
                                   static_cast<uint32_t>(size), &ss, &sshown);
  uint8_t* g = mem_translate(b, w, op, pc, l, MSpace::Global, dst, static_cast<uint32_t>(size), &gs,
                             &gshown);
  b.remote = 0;
  PendingBulk p;
  if (b.obs) {
    for (uint64_t o = 0; o < size; o += 16) {
      p.chunks.push_back(static_cast<uint32_t>(sshown + o));
      p.global_chunks.push_back({gshown + o, 16});
    }
    p.global.push_back({gshown, static_cast<uint32_t>(size)});
    BulkCopy ev = bulk_store_event(b, w, op, l, size, static_cast<uint32_t>(sshown), reduce);
    ev.group = b.async[w.index].bulk_committed[l];
    ev.chunks = p.chunks;
    ev.global = p.global;
    ev.global_chunks = p.global_chunks;
    send_bulk(b, b, ev);
    p.event = ev;
  }
  for (uint64_t o = 0; o < size; o += 16) {
    if (b.obs) bulk_store_emit(b, w, op, l, MemOp::BulkLoad, Space::Shared, sshown + o, 16);
    if (!reduce) {
      std::memcpy(g + o, s + o, 16);
      if (b.obs) bulk_store_emit(b, w, op, l, MemOp::BulkStore, Space::Global, gshown + o, 16);
      continue;
    }
    for (uint64_t e = o; e < o + 16; e += es) {
      uint64_t v = 0;
      std::memcpy(&v, s + e, es);
      if (es == 2)
        bulk_reduce_at<uint16_t>(g + e, red, type, v);
      else if (es == 4)
        bulk_reduce_at<uint32_t>(g + e, red, type, v);
      else
        bulk_reduce_at<uint64_t>(g + e, red, type, v);
      if (b.obs) bulk_store_emit(b, w, op, l, MemOp::BulkReduce, Space::Global, gshown + e, es);
    }
  }
  ++b.writes;
  if (b.obs) bulk_pending(b, w, std::move(p));
}

}  // namespace

bool is_bulk_store(const ptx::Instruction& in) {
  const auto& m = in.mods;
  if (in.opcode != "cp") return false;
  const size_t i = !m.empty() && m[0] == "reduce" ? 1 : 0;  // cp.reduce.async.bulk.global...
  return m.size() > i + 2 && m[i] == "async" && m[i + 1] == "bulk" && m[i + 2] == "global";
}

void decode_bulk_store(DecodeContext& c, const ptx::Instruction& in, const Op& op) {
  const bool reduce = in.mods[0] == "reduce";
  Op b = op;
  b.code = code(BULK_ST, U32);
  b.t2 = reduce ? 1 : 0;
  for (const auto& m : in.mods) {
    bool known = m == "reduce" || m == "async" || m == "bulk" || m == "global" ||
                 m == "shared::cta" || m == "bulk_group" || m == "L2::cache_hint" ||
                 (reduce && m == "noftz");
    for (int k = 0; reduce && k < 8; ++k) known = known || m == kBulkRedOps[k];
    for (const auto& t : kBulkRedTypes) known = known || (reduce && m == t.name);
    if (!known) unsupported_form(c, in, fmt::format("modifier .{}", m));
  }
  if (!in.has_mod("shared::cta") || !in.has_mod("bulk_group"))
    unsupported_form(c, in, "a shared -> global bulk copy is .shared::cta with .bulk_group");
  if (reduce) {
    const int k = mod_index(kBulkRedOps, 8, in);
    int t = -1;
    for (size_t i = 0; i < std::size(kBulkRedTypes); ++i)
      if (in.has_mod(kBulkRedTypes[i].name)) t = static_cast<int>(i);
    if (k < 0 || t < 0) unsupported_form(c, in, "needs an operation and a type");
    if (!tma::reduce_defined(static_cast<tma::Red>(k), kBulkRedTypes[t].type))
      unsupported_form(
          c, in, fmt::format(".{} is not defined for .{}", kBulkRedOps[k], kBulkRedTypes[t].name));
    b.aux = static_cast<uint8_t>(k);
    b.aux2 = static_cast<uint8_t>(kBulkRedTypes[t].type);
  }
  const size_t want = 3 + (in.has_mod("L2::cache_hint") ? 1 : 0);
  if (in.operands.size() != want)
    c.fail(in.pos,
           fmt::format("'{}' expects {} operands, found {}", in.text(), want, in.operands.size()));
  MSpace sd = MSpace::Global, ss = MSpace::Shared;
  address_operand(c, in.operands[0], &b.r[4], &b.imm, &sd);
  if (sd != MSpace::Global) c.fail(in.operands[0].pos, "the destination is a global address");
  int64_t src_off;
  address_operand(c, in.operands[1], &b.r[5], &src_off, &ss);
  if (ss != MSpace::Shared) c.fail(in.operands[1].pos, "the source is a shared-memory address");
  b.r[0] = c.constant(static_cast<uint64_t>(src_off));
  b.r[1] = c.src(in.operands[2], U32);
  if (want == 4) b.r[2] = c.src(in.operands[3], U64);  // the cache policy: a hint
  c.push(b);
}

void exec_bulk_store(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t exec) {
  // A store's lanes with one set of operands make one copy; a reduction's
  // lanes one each (store_issuing_lanes).
  const uint32_t regs[] = {op.r[0], op.r[1], op.r[4], op.r[5]};
  if (op.t2 == 0) exec = store_issuing_lanes(w, regs, 4, exec);
  SMEMLAB_FOR_LANES(exec, bulk_store_lane(b, w, op, pc, l));
}

}  // namespace smemlab::emu
