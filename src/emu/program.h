// A kernel decoded once into flat, fixed-size ops (wasm3/Lua style): types,
// operand registers, immediates (as constant registers), symbol addresses and
// branch targets are all resolved here, so the interpreter is a switch over a
// dense opcode with no string work per step. Direct calls of non-recursive
// .func are inlined at decode time (each call site gets its own registers and
// frame); recursive, indirect and predicated calls are real calls (CALL/RET,
// Program::callees, a stack per thread: docs/emulator.md, "Calls").
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "emu/observer.h"
#include "emu/ops_tensor.h"
#include "ptx/ir.h"

namespace smemlab::emu {

// Scalar types; an op's code is base * 16 + type.
enum T : uint8_t {
  U8,
  S8,
  U16,
  S16,
  U32,
  S32,
  U64,
  S64,
  F16,
  BF16,
  F32,
  F64,
  PRED,
  F16X2,
  BF16X2,
  B128
};

// Executed ops, one per SMEMLAB_OP row of instructions.def.
enum Base : uint16_t {
#define SMEMLAB_OP(base, types, executor, kind, cls, shape) base,
#include "emu/instructions.def"
  kNumBase
};
constexpr uint16_t code(Base b, T t) { return static_cast<uint16_t>(b * 16 + t); }

// What an op does, as the scheduler and the analyses see it (the CLASS
// column of instructions.def). Memory: reads or writes memory another warp
// may see (global, shared, surfaces, textures); Async: copies and barriers
// that complete later (cp.async, bulk copies, mbarriers); Builtin: calls
// the runtime serves (printf, malloc, assert); Clock: reads a clock;
// Fence: fence.* (the emulator performs every access in program order, so
// a fence orders nothing more and ends no turn; observers see it).
enum class OpClass : uint8_t {
  Alu,
  Memory,
  Async,
  Control,
  Barrier,
  Collective,
  Tensor,
  Builtin,
  Clock,
  Fence
};
namespace detail {
inline constexpr OpClass kOpClass[] = {
#define SMEMLAB_OP(base, types, executor, kind, cls, shape) OpClass::cls,
#include "emu/instructions.def"
};
}  // namespace detail
constexpr OpClass op_class(Base b) { return detail::kOpClass[b]; }

// Which Op::r fields an op reads and writes (the SHAPE column of
// instructions.def; registers unless marked pred, all of the op's type
// unless said):
//   NoRegs     none (nop, bra, exit, fence)
//   Un         r0 = f(r1)
//   Bin        r0 = f(r1, r2)
//   Tern       r0 = f(r1, r2, r3) (mad, fma)
//   Ctl3       r0 = f(r1, r2, r3), r3 (and bfe's r2) a 32-bit control:
//              a position, length, selector or shift (bfe, prmt, shf)
//   Bfi        r0 = f(r1, r2, r3, r4) (bfi: r3, r4 position and length)
//   Select     r0 = pred r3 ? r1 : r2
//   Compare    pred r0 [, pred r1 unless UINT32_MAX] = f(r2, r3 [, pred r4
//              when t2 names a combining op]) (setp)
//   PredLogic  pred r0 = f(pred r1 [, pred r2 when aux < 3])
//   PredOfReg  pred r0 = f(r1) (isspacep)
//   Carry      r0 [, the carry flag when aux2 & 2] = f(r1, r2 [, r3 when
//              aux >= 2] [, the carry flag when aux2 & 1])
//   Convert    r0 = f(r1 of type t2) [, r2 for the f16x2/bf16x2 pairs] (cvt)
//   FloatFn    r0 = f(r1 [, r2 [, r3]]) by aux (FOp: the float slow path),
//              testp's pred r0 = f(r1)
//   Load       r0 .. r[vec-1] = memory at r4
//   Store      memory at r4 = r0 .. r[vec-1]
//   Other      not described: fields may be predicates, frame offsets or
//              side-table indices
enum class OpShape : uint8_t {
  NoRegs,
  Un,
  Bin,
  Tern,
  Ctl3,
  Bfi,
  Select,
  Compare,
  PredLogic,
  PredOfReg,
  Carry,
  Convert,
  FloatFn,
  Load,
  Store,
  Other
};
namespace detail {
inline constexpr OpShape kOpShape[] = {
#define SMEMLAB_OP(base, types, executor, kind, cls, shape) OpShape::shape,
#include "emu/instructions.def"
};
}  // namespace detail
constexpr OpShape op_shape(Base b) { return detail::kOpShape[b]; }
// Ops after which a warp yields under a fine-grained schedule (Schedule):
// those whose order among warps can change what a program computes.
constexpr bool orders_memory(OpClass c) { return c == OpClass::Memory || c == OpClass::Async; }

// Address spaces as the interpreter sees them (Frame = call parameters of
// inlined .func calls and .local data: the thread's private frame).
enum class MSpace : uint8_t { Global, Shared, Local, Const, Param, Generic };

// Float "slow path" operations: anything with a rounding mode, .ftz, .sat or
// a transcendental.
enum FOp : uint8_t {
  F_ADD,
  F_SUB,
  F_MUL,
  F_FMA,
  F_DIV,
  F_RCP,
  F_SQRT,
  F_RSQRT,
  F_ABS,
  F_NEG,
  F_MIN,
  F_MAX,
  F_EX2,
  F_LG2,
  F_SIN,
  F_COS,
  F_TANH,
  F_COPYSIGN,
  F_TESTP,
  F_MIN_NAN,  // min.NaN / max.NaN: a NaN operand gives the canonical NaN
  F_MAX_NAN,
  F_RCP_APPROX_F64  // rcp.approx.ftz.f64: the upper word's reciprocal only
};
enum Round : uint8_t { R_NONE, R_RN, R_RZ, R_RM, R_RP, R_RNI, R_RZI, R_RMI, R_RPI, R_RNA };
enum Cmp : uint8_t {
  C_EQ,
  C_NE,
  C_LT,
  C_LE,
  C_GT,
  C_GE,
  C_LO,
  C_LS,
  C_HI,
  C_HS,
  C_EQU,
  C_NEU,
  C_LTU,
  C_LEU,
  C_GTU,
  C_GEU,
  C_NUM,
  C_NAN
};
enum AtomOp : uint8_t { A_ADD, A_MIN, A_MAX, A_INC, A_DEC, A_CAS, A_EXCH, A_AND, A_OR, A_XOR };
// External functions built in (BUILTIN's aux), see ops_builtin.cc.
enum Builtin : uint8_t {
  B_VPRINTF,
  B_ASSERTFAIL,
  B_MALLOC,
  B_FREE,
  B_SET_CONDITIONAL,
  // Dynamic parallelism (emu/device_runtime.h).
  B_CDP_PARAMETER_BUFFER,
  B_CDP_LAUNCH,
  B_CDP_STREAM_CREATE,
  B_CDP_STREAM_DESTROY,
  B_CDP_GET_LAST_ERROR,
  B_CDP_PEEK_LAST_ERROR,
  B_CDP_MALLOC,
  B_CDP_FREE,
  B_CDP_MEMCPY_ASYNC,
  B_CDP_MEMSET_ASYNC,
  B_CDP_ERROR_NAME,
  B_CDP_ERROR_STRING,
  B_CDP_GET_DEVICE,
  B_CDP_GET_DEVICE_COUNT,
  B_CDP_DEVICE_ATTRIBUTE,
  B_CDP_EVENT_CREATE,
  B_CDP_EVENT_RECORD,
  B_CDP_EVENT_DESTROY,
  B_CDP_STREAM_WAIT_EVENT
};
// MBAR's t2: the mbarrier operation (ops_async.cc).
enum MbarKind : uint8_t {
  MB_INIT,
  MB_INVAL,
  MB_ARRIVE,         // r0 = state (or ~0), r1 = count (or ~0), r2 = tx (or ~0); aux2 & 1: drop
  MB_EXPECT_TX,      // r1 = bytes
  MB_COMPLETE_TX,    // r1 = bytes
  MB_TEST_WAIT,      // r0 = predicate, r1 = token or parity; aux2 & 2: .parity, & 8: try_wait
  MB_PENDING,        // mbarrier.pending_count: r0 = d, r1 = state
  MB_CPASYNC_ARRIVE  // cp.async.mbarrier.arrive; aux2 & 4: .noinc
};
// CPASYNC's aux: the copy, commit_group, wait_group N (imm = N), wait_all.
enum CpAsyncKind : uint8_t { CPA_COPY, CPA_COMMIT, CPA_WAIT_GROUP, CPA_WAIT_ALL };
// TMA's t2 (ops_tma_exec.cc): cp.async.bulk.tensor global -> shared (LOAD),
// shared -> global (STORE), cp.reduce.async.bulk.tensor (REDUCE),
// cp.async.bulk.prefetch.tensor, cp.async.bulk.commit_group / wait_group.
enum TmaKind : uint8_t { TMA_LOAD, TMA_STORE, TMA_REDUCE, TMA_PREFETCH, TMA_COMMIT, TMA_WAIT };
enum Special : uint8_t {
  SP_CLOCK,
  SP_CLOCK64,
  SP_GLOBALTIMER,
  SP_GLOBALTIMER_LO,
  SP_GLOBALTIMER_HI
};

// Operand fields per base op (r[] are register indices, or predicate indices
// where noted; every source is a register, immediates included):
//   unary/binary/ternary ALU, FSLOW, CVT, CARRY: r0 = d, r1.. = sources
//   SETP: r0 = p, r1 = q (or ~0), r2/r3 = a/b, r4 = c (t2: 0 none, 1 and, 2 or, 3 xor)
//   SELP: r0 = d, r1/r2 = a/b, r3 = predicate;  PLOGIC: r0 = d, r1/r2 = predicates
//   LD/ST: r0..r3 = data (vec), r4 = address base, imm = offset, aux = MSpace
//   ATOM: r0 = d, r1 = b, r2 = c (cas), r4 = address base, aux2 = AtomOp, t2 = 1 for red,
//         2 for an atom the GPU executes as a RED (atom_results.h)
//   CPASYNC: r4 + imm = shared dst, r5 + value(r1) = global src, width = bytes, r2 = src-size,
//            aux2 = 1 for .cg
//   BRA: imm = target pc;  BAR: r0 = id, r1 = count (or ~0), r2 = d, r3 = pred (bar.red)
//   SHFL: r0 = d, r1 = p, r2 = a, r3 = b, r4 = c, r5 = membermask
//   VOTE: r0 = d, r1 = pred, r2 = membermask (~0: non-.sync);  REDUX: r0, r1, r2 = mask
//   MATCH: r0 = d, r1 = p, r2 = a, r3 = mask;  WARPSYNC: r0 = mask;  ACTIVEMASK: r0 = d
//   CALL: imm = index into Program::call_sites;  RET: (the lane's call stack)
//   BUILTIN: aux = Builtin; r0..r4 = frame offsets of the call's .param
//            arguments, r5 = of its return value (~0: none) - offsets, not registers
//   LDMATRIX: r0..r3 = data (vec = matrices), r4 + imm = row address, aux = MSpace,
//             aux2 = .trans, t2 = 1 for stmatrix;  MOVMATRIX: r0 = d, r1 = a
//   MMA: imm = index into Program::tensor_ops (mma.sync and wmma.*)
//   WGMMA: imm = index into Program::tensor_ops (wgmma.mma_async)
//   WGMMA_SYNC: aux = 0 wgmma.fence, 1 commit_group, 2 wait_group (imm = N)
//   CVT_TF32: r0 = d, r1 = a (f32), aux = tensor::Tf32Round
//   CVT_FP8: r0 = d, r1 = a, r2 = b (or ~0), t2 = tensor::Elem (E4M3/E5M2),
//            aux = 0: f32 pair -> fp8x2, 1: f16x2 -> fp8x2, 2: fp8x2 -> f16x2;
//            aux2 = .relu
//   TEX: r0..r3 = d (v4), r4 = texture handle, imm = index into Program::tex_ops
//   SULD/SUST: r0..r3 = data (vec), r4 = surface handle, imm = index into
//              Program::tex_ops (coordinates), width = bytes per element,
//              aux = out-of-range mode (0 trap, 1 clamp, 2 zero)
//   BFIND: r0 = d, r1 = a, aux = .shiftamt;  BMSK: r0, r1 = a, r2 = b, aux = .clamp
//   DP4A/DP2A: r0 = d, r1..r3 = a, b, c, aux = signedness (1: a, 2: b), aux2 = .hi
//   MUL24/MAD24: r0 = d, r1..r3 = a, b (, c), aux = .hi;  SAD: r0 = d, r1..r3
//   MBAR: r4 + imm = mbarrier address, aux = MSpace, t2 = MbarKind (other fields there)
//   BULK: r4 + imm = shared dst, r5 + value(r0) = global src, r1 = bytes,
//         r2 + value(r3) = mbarrier
//   BULK_ST: r4 + imm = global dst, r5 + value(r0) = shared src, r1 = bytes,
//            r2 = cache policy (a hint) or unset; t2 = 1 for cp.reduce (then
//            aux = tma::Red, aux2 = tma::DataType of the elements)
//   TMA: t2 = TmaKind; copies: imm = index into Program::tma_ops;
//        TMA_WAIT: imm = N, aux2 = 1 for .read
struct Op {
  uint16_t code = 0;
  uint8_t t = 0;       // type
  uint8_t t2 = 0;      // source type (cvt), combine op (setp), ...
  uint8_t aux = 0;     // Cmp, FOp, MSpace, AtomOp, shfl mode, ...
  uint8_t aux2 = 0;    // Round, flags
  uint8_t vec = 1;     // vector elements (ld/st)
  uint8_t width = 0;   // bytes per element (ld/st/atom)
  int32_t guard = -1;  // predicate index
  uint32_t guard_neg = 0;
  uint32_t r[6] = {0, 0, 0, 0, 0, 0};  // register/predicate indices, meaning per op
  int64_t imm = 0;                     // address offset, branch target, ...
  uint32_t info = 0;                   // index into Program::info
};

// Op flags in aux2 for FSLOW/CVT.
constexpr uint8_t kFtz = 0x10, kSat = 0x20;

// mma.sync, wmma.* and wgmma.mma_async operands (more registers than Op::r
// holds).
struct TensorOp {
  enum Kind : uint8_t { Mma, WmmaLoad, WmmaStore, WmmaMma, Wgmma } kind = Mma;
  tensor::MmaSpec spec;                        // shape and types
  tensor::Operand which = tensor::Operand::A;  // WmmaLoad/Store: the fragment
  tensor::Elem elem = tensor::Elem::F16;       // WmmaLoad/Store: element type
  bool row_major = true;                       // WmmaLoad/Store: memory layout
  MSpace space = MSpace::Generic;              // WmmaLoad/Store
  uint32_t addr = 0, stride = UINT32_MAX;      // registers (stride in elements)
  int64_t offset = 0;
  std::vector<uint32_t> d, a, b, c;  // registers; WmmaLoad: d, WmmaStore: c
  // Wgmma: spec.shape m64nNkK; d (read as C when scale-d is true), a (4
  // registers) or the descriptor register desc_a, desc_b; scale_d a
  // predicate index (scale_d_neg: !p); imm-scale-a/b -1 (neg_a/b) and
  // imm-trans-a/b (MN-major A/B).
  uint32_t desc_a = UINT32_MAX, desc_b = UINT32_MAX, scale_d = 0;
  bool scale_d_neg = false, neg_a = false, neg_b = false, trans_a = false, trans_b = false;

  // Every register this op names (absent ones as UINT32_MAX): register
  // allocation and the block set-up treat them as read and written.
  template <typename F>
  void for_each_register(F f) const {
    for (uint32_t r : {addr, stride, desc_a, desc_b}) f(r);
    for (const auto* v : {&d, &a, &b, &c})
      for (uint32_t r : *v) f(r);
  }
};

// tex.{1d,2d,3d,a1d,a2d}.v4.dtype.ctype: the coordinate registers.
struct TexOp {
  uint8_t dims = 1;         // 1, 2, 3
  bool layered = false;     // a1d/a2d/acube: coord[0] is the layer
  bool cube = false;        // cube/acube: the coordinates are a direction (texture::cube_face)
  bool int_coords = false;  // .s32 coordinates (texel fetch)
  T dtype = F32;            // F32, S32 or U32 results
  uint8_t ncoord = 0;
  uint32_t coord[4] = {0, 0, 0, 0};
};

// cp.async.bulk.tensor, cp.reduce.async.bulk.tensor and
// cp.async.bulk.prefetch.tensor operands (more registers than Op::r holds).
struct TmaOp {
  uint8_t dims = 1;        // .1d .. .5d
  bool im2col = false;     // .im2col (else .tile)
  bool multicast = false;  // .multicast::cluster (mask: the ctaMask register)
  AtomOp red = A_ADD;      // cp.reduce: the operation
  MSpace map_space = MSpace::Generic;
  uint32_t map = 0;  // tensor-map address register (+ map_off)
  int64_t map_off = 0;
  uint32_t smem = 0;  // shared address register (+ smem_off)
  int64_t smem_off = 0;
  uint32_t mbar = UINT32_MAX;  // mbarrier address register (+ mbar_off), loads
  int64_t mbar_off = 0;
  uint32_t mask = UINT32_MAX;  // ctaMask (u16)
  uint32_t coord[5] = {};      // s32 tensor coordinates, dims of them
  uint32_t offs[3] = {};       // im2col offsets (u16), dims - 2 of them
  std::vector<uint32_t> regs;  // every register above, for register analyses
};

// A warp's registers at the start of a block, derived from the ops once per
// program (make_reg_init, block.cc): the template (constants, zeros), the
// register ranges [first, first + count) a full warp copies from it (the
// others are written before any read), and the part of those some op
// writes (all a warp slot that held this program's registers in an
// earlier block must copy again).
struct RegInit {
  std::vector<uint64_t> reg_template;
  std::vector<std::pair<uint32_t, uint32_t>> init_runs, warm_runs;
};

struct Program {
  std::string kernel;  // mangled name
  std::vector<Op> ops;
  std::vector<InstrInfo> info;
  uint32_t num_regs = 0;  // 64-bit x 32-lane registers per warp
  uint32_t num_preds = 0;
  std::vector<uint64_t> const_regs;  // register i (< const_regs.size()) is this constant
  // Special registers filled per warp: index into regs, and what they hold.
  enum SpecialKind : uint8_t {
    TID_X,
    TID_Y,
    TID_Z,
    NTID_X,
    NTID_Y,
    NTID_Z,
    CTAID_X,
    CTAID_Y,
    CTAID_Z,
    NCTAID_X,
    NCTAID_Y,
    NCTAID_Z,
    LANEID,
    WARPID,
    NWARPID,
    SMID,
    NSMID,
    GRIDID,
    LANEMASK_EQ,
    LANEMASK_LT,
    LANEMASK_LE,
    LANEMASK_GT,
    LANEMASK_GE,
    DYN_SMEM,
    TOTAL_SMEM,
    // %envreg1:%envreg2: the high and low halves of a cooperative launch's
    // grid-sync workspace (cooperative_groups::this_grid().sync()).
    ENVREG1,
    ENVREG2,
    ZERO,
    // Thread-block clusters (a plain launch is a grid of 1x1x1 clusters);
    // they stay last: fill_special (block.cc) tests kind >= CLUSTER_CTARANK.
    CLUSTER_CTARANK,
    CLUSTER_NCTARANK,
    CLUSTERID_X,
    CLUSTERID_Y,
    CLUSTERID_Z,
    NCLUSTERID_X,
    NCLUSTERID_Y,
    NCLUSTERID_Z,
    CLUSTER_CTAID_X,
    CLUSTER_CTAID_Y,
    CLUSTER_CTAID_Z,
    CLUSTER_NCTAID_X,
    CLUSTER_NCTAID_Y,
    CLUSTER_NCTAID_Z
  };
  std::vector<std::pair<uint32_t, SpecialKind>> specials;
  std::vector<uint32_t> true_preds;  // predicates that are constant true
  // Predicates that read %is_explicit_cluster (set at warp start when the
  // launch is an explicit cluster launch).
  std::vector<uint32_t> explicit_cluster_preds;
  // setmaxnreg.{inc,dec}.sync.aligned.u32 N as decoded: (pc, +N or -N).
  // Recorded only: the emulator has no register file to resize.
  std::vector<std::pair<uint32_t, int32_t>> setmaxnreg;
  uint32_t static_shared = 0;  // bytes of static .shared
  // The static .shared variables as laid out (bounds checks by declared size).
  struct SharedVar {
    std::string name;
    uint32_t offset = 0, size = 0;
  };
  std::vector<SharedVar> shared_vars;
  uint32_t dynamic_align = 16;  // alignment of the extern .shared window
  uint32_t frame_bytes = 0;     // per-thread local frame (.local + call params)
  // Real calls (CALL/RET). A function called through them is emitted once
  // after the kernel; its registers and predicates are the ranges
  // [reg_begin, reg_end) and [pred_begin, pred_end), saved per lane at each
  // call and restored at its ret, so recursion needs no renaming. Its
  // .local/.param variables live in an activation record of frame_bytes on
  // the thread's stack, addressed through frame_regs (register, offset in the
  // record), which the call sets to the record's local address + offset.
  struct Callee {
    std::string name;
    uint32_t entry = 0;
    uint32_t reg_begin = 0, reg_end = 0, pred_begin = 0, pred_end = 0;
    uint32_t frame_bytes = 0;  // the activation record (.local and .param)
    uint32_t local_bytes = 0;  // its .local part: what the GPU's stack frame holds
    std::vector<std::pair<uint32_t, uint32_t>> frame_regs;
    struct Slot {
      uint32_t offset = 0, size = 0;  // in the activation record
    };
    std::vector<Slot> params, retvals;
  };
  std::vector<Callee> callees;
  // One per CALL op: the callee (index into callees) or, for an indirect
  // call, the register holding a function address; the caller's argument
  // and return-value .param slots, each at local address R[reg] + offset.
  struct CallSite {
    int32_t callee = -1;
    uint32_t target = UINT32_MAX;
    struct Slot {
      uint32_t reg = 0, offset = 0, size = 0;
    };
    std::vector<Slot> args, rets;
  };
  std::vector<CallSite> call_sites;
  // Module function index -> callee index (-1: not emitted), for addresses.
  std::vector<int32_t> callee_of_function;
  // The thread's call stack: frame_bytes - stack_base bytes above the
  // static frame; 0 without calls. A call costs the callee's .local bytes
  // + 16 (return address, saved frame) of stack_limit, CUDA's default
  // cudaLimitStackSize (.param slots are registers in the GPU's ABI).
  uint32_t stack_base = 0;
  uint32_t stack_limit = 0;
  uint32_t param_bytes = 0;  // kernel parameter buffer
  struct Param {
    std::string name, type;
    uint32_t offset = 0, size = 0;
  };
  std::vector<Param> params;
  const ptx::LineTable* lines = nullptr;
  std::vector<TensorOp> tensor_ops;  // operands of MMA ops
  std::vector<TexOp> tex_ops;        // operands of TEX ops
  std::vector<TmaOp> tma_ops;        // operands of TMA copies
  // The jit tier's plan (tier.h): the length of the straight run of
  // per-lane arithmetic that starts at each op (0: not such an op).
  std::vector<uint8_t> fused;
  // Per op, 1 where a quiet epoch may run (quiet_epochs.h).
  std::vector<uint8_t> quiet;
  // Whether a warp alone in its block may keep its turns (quiet_epochs.h,
  // lone_warp_may_keep_turns).
  bool lone_quiet = false;
  // Made once by Module::kernel; null (a program decoded elsewhere): each
  // BlockRunner makes its own.
  std::shared_ptr<const RegInit> reg_init;
};

// Register value of type t, extended to 64 bits (signed types sign-extend).
inline uint64_t canonical(T t, uint64_t v) {
  switch (t) {
    case U8:
      return v & 0xff;
    case S8:
      return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int8_t>(v)));
    case U16:
    case F16:
    case BF16:
      return v & 0xffff;
    case S16:
      return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int16_t>(v)));
    case U32:
    case F32:
    case F16X2:
    case BF16X2:
      return v & 0xffffffffu;
    case S32:
      return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(v)));
    default:
      return v;
  }
}
int type_bytes(T t);

// Module-level storage the decoder needs to resolve symbols.
struct SymbolInfo {
  MSpace space;
  uint64_t address;  // device address (global), offset (const/shared/param/frame)
  // A .local/.param of a function called for real: `address` is its offset
  // in the activation record (Program::Callee::frame_regs give the base).
  bool frame_relative = false;
};

// Function addresses (`mov.u64 %rd, f;`, virtual tables): module function i
// is at kFunctionWindow + 16 * i, a window no data space uses, so pointers
// compare, store and load as plain values and a call through anything else
// is an invalid program counter.
constexpr uint64_t kFunctionWindow = uint64_t{5} << 44;
constexpr uint32_t kDefaultStackBytes = 1024;
// Sizes a program's call stack for a cudaLimitStackSize of `stack_bytes`
// (Program::stack_limit and the frame that holds the deepest chain of calls
// it allows); a program without real calls has no stack and is left alone.
void size_stack(Program& p, uint32_t stack_bytes);

}  // namespace smemlab::emu
