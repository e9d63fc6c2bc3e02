// Hopper's shared-memory traffic beyond ld/st/atom and ldmatrix/stmatrix,
// as Nsight Compute counts it on an H100 (rules and evidence:
// docs/bank-model.md, "Hopper"; measured by scripts/hopper-rules, data in
// tests/validation/hopper/). Every function computes from addresses; none
// looks a measurement up.
//
//  - gmma_operand_cost(GmmaOperand): one wgmma operand read from shared
//    memory. Inputs: the 64-bit matrix descriptor as the instruction holds
//    it (start, LBO, SBO, base offset, swizzle), whether the operand is
//    MN-major (imm-trans 1), its element size and its rows (64 for A, N for
//    B; or a warp's 16 rows of A from first_row 16q). Rule: every core
//    matrix (8 rows of 16 bytes) is one group; its cost is the most
//    distinct 4-byte words its rows put in one bank. Counter:
//    l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma (and the
//    SASS-patched sm__sass_..._op_gmma, which also counts each
//    wgmma.commit_group as an SS m64n8k16 read: 18).
//  - gmma_core_matrices(GmmaOperand): the 16-byte chunk addresses the
//    descriptor yields, 8 per core matrix (what gmma_operand_cost groups).
//  - copy_traffic(CopyDirection, chunks): the global side of one TMA tensor
//    copy or bulk copy. Inputs: the global address of each 16-byte chunk in
//    the order the copy walks them (tensor_box_chunks, bulk_chunks, or
//    run_chunks from the in-bounds runs an emulator event lists) and how
//    many of its bytes are inside the tensor. Counters:
//    l1tex__m_xbar2l1tex_read_{sectors,bytes}_mem_global_op_tma_ld,
//    l1tex__m_l1tex2xbar_write_{sectors,bytes}_mem_global_op_tma_{st,red}.
//    No counter sees TMA's or bulk copies' shared-memory side: there is no
//    function for it (measured; docs/bank-model.md).
//  - dshared_cost(DsharedRequest): one ld/st/atom/red.shared::cluster
//    instruction's lanes to other blocks (op, width, mask, each lane's
//    target rank and shared-window address there). Counters:
//    smsp__sass_inst_executed_op_dshared_*,
//    l1tex__t_sectors_pipe_lsu_mem_dshared_op_*.
//  - async_copy_cost(AsyncCopyRequest): one cp.async (LDGSTS): width, .ca
//    or .cg, active mask, the lanes that read nothing (src-size 0), each
//    lane's shared destination and global source. Counters:
//    smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts and
//    _bank_conflicts_, smsp__sass_l1tex_t_{requests,sectors}_pipe_lsu_mem_
//    global_op_ldgsts. Every form is costed: .ca, .cg and .cg's src-size
//    form (runs 3, 4, 7 and 8 of scripts/hopper-rules).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "bank/bank.h"

namespace smemlab::bank {

// ---- wgmma operands

struct GmmaOperand {
  uint64_t descriptor = 0;  // the matrix descriptor (PTX ISA "Matrix Descriptor Format")
  bool mn_major = false;    // imm-trans 1: MN-major (16-bit types only)
  unsigned elem_bytes = 2;  // 1 (e4m3/e5m2/s8/u8), 2 (f16/bf16), 4 (tf32)
  unsigned rows = 64;       // M (A: 64) or N (B: 8..256), a multiple of 8
  unsigned first_row = 0;   // rows first_row .. first_row + rows - 1 (a warp's slice of A: 16q)
};

// The decoded descriptor fields (bytes), as the ISA defines them.
struct GmmaDescriptor {
  uint32_t start = 0, lbo = 0, sbo = 0;
  unsigned base_offset = 0;
  unsigned swizzle_bytes = 0;  // 0 (none), 32, 64, 128
};
GmmaDescriptor decode_gmma_descriptor(uint64_t bits);

// One operand's core matrices: chunk[8*i + r] is row r of core matrix i
// (K-major: 8 consecutive rows of one 16-byte k-chunk; MN-major: 8
// consecutive k of one 16-byte mn-chunk); each wgmma reads 32 bytes of K
// per row. Throws Error for rows or first_row not a multiple of 8, an
// element size other than 1, 2, 4, or an MN-major operand of other than
// 2-byte elements.
std::vector<uint64_t> gmma_core_matrices(const GmmaOperand& operand);

// Wavefronts of reading the operand: sum over core matrices of the most
// distinct words any bank holds among its 8 chunks; ideal = core matrices;
// bank_conflicts = wavefronts - ideal; ways = the worst core matrix.
Cost gmma_operand_cost(const GmmaOperand& operand);

// What Nsight Compute's SASS-patched gmma counters charge for the
// predicated-off HGMMA.64xNx16 with null operands that ptxas emits for a
// wgmma.commit_group with no HGMMA of its own (the hardware counter: 0):
// its shape's operands as an SS read, A's 64 rows and B's N rows of 32
// bytes, one wavefront per core matrix: 16 + N/4 (m64n8k16: 18; H100, 98
// probes, docs/bank-model.md "wgmma operand reads"). Throws Error for N not
// a multiple of 8 in 8..256.
Cost gmma_sass_only_cost(unsigned n);

// ---- TMA tensor copies and bulk copies: the global side

enum class CopyDirection { Load, Store, Reduce };

struct CopyChunk {
  uint64_t global = 0;  // byte address of the chunk's first byte
  unsigned valid = 16;  // bytes of it inside the tensor, from its start (0: out of bounds)
};

struct CopyTraffic {
  uint64_t sectors = 0;  // 32-byte sectors
  uint64_t bytes = 0;    // what the _bytes counters report: 32 per sector
};

// The copy moves its chunks in groups, one per 128-byte line of shared
// memory it reads or writes (`shared`: each chunk's shared offset in walk
// order; without it, groups of 8 consecutive chunks from the first, which
// is the same for a box at a 128-byte boundary); each group costs the
// distinct 32-byte sectors its chunks touch (bulk copies at shared offsets
// 16 … 80: 107 of 107 launches; groups of 8 from the first chunk: 100).
// Loads count every chunk of the box, in bounds or not; stores and
// reductions only the in-bounds ones. A load's chunks outside the tensor
// (valid 0) read nothing at their address: each run of n consecutive such
// chunks in a group costs (n + 1) / 2 sectors, as if packed from a sector
// boundary. A multicast load (.multicast::cluster) counts its sectors once
// per destination block of its ctaMask (`destinations`).
CopyTraffic copy_traffic(CopyDirection direction, std::span<const CopyChunk> chunks,
                         unsigned destinations = 1, std::span<const uint32_t> shared = {});

// A tiled (non-im2col) tensor box: rank 1..5, element strides 1.
struct TensorBox {
  uint64_t base = 0;  // the tensor's global address
  unsigned rank = 2;
  unsigned elem_bytes = 4;
  std::array<uint64_t, 5> dims{};     // elements per dimension
  std::array<uint64_t, 4> strides{};  // bytes between consecutive indices of dims 1..rank-1
  std::array<unsigned, 5> box{};  // box size per dimension (box[0] * elem_bytes: a multiple of 16)
  std::array<int64_t, 5> coords{};  // the box's first element (may be out of bounds)
};

// The box's 16-byte chunks in the copy's walk order (dimension 0 fastest).
// Throws Error when box[0] * elem_bytes is not a multiple of 16.
std::vector<CopyChunk> tensor_box_chunks(const TensorBox& box);

// A bulk copy of `bytes` (a multiple of 16) from/to global address `global`.
std::vector<CopyChunk> bulk_chunks(uint64_t global, uint64_t bytes);

// The chunks of the contiguous in-bounds runs a copy moves, in walk order
// (what the emulator's BulkCopy event lists): each run from a 16-byte
// boundary, its last chunk partial when the run ends inside one. Exact for
// stores and reductions, and for loads whose box lies inside the tensor;
// a load's box that leaves the tensor costs its whole walk
// (tensor_box_chunks). Throws Error for a run not starting on 16 bytes.
struct GlobalRun {
  uint64_t address = 0, bytes = 0;
};
std::vector<CopyChunk> run_chunks(std::span<const GlobalRun> runs);

// ---- distributed shared memory (another block of the cluster)

struct DsharedCost {
  unsigned requests = 0;  // 1 when any lane is active
  unsigned sectors = 0;   // l1tex__t_sectors_pipe_lsu_mem_dshared_op_*
};

// sm_90 reserves the first 1 KiB of every block's shared-memory window:
// the first variable sits at 0x400 on the H100 (run 13's probe read its
// buffer's address back), where the emulator places it at 0. The slice
// rule below reads address bits, so callers add this to emulator offsets.
inline constexpr uint64_t kReservedSharedBytes = 1024;

// One instruction's lanes across the blocks it reaches: each active lane's
// target rank and its byte address in that block's shared-memory window
// (as the H100 has it: kReservedSharedBytes included).
struct DsharedRequest {
  Op op = Op::Load;
  unsigned width = 4;
  uint32_t mask = 0;
  std::array<uint64_t, 32> addr{};
  std::array<uint32_t, 32> rank{};
};

// Loads and stores: the distinct 32-byte sectors the active lanes touch,
// per block. Atomics (atom and red, 4 or 8 bytes): the sectors of the
// output wavefronts the lanes go out in; a wavefront holds one (rank,
// 128-byte line) per 2-bit slice of (address bits 7-13, rank bits), a lane
// that finds its slice taken waits and blocks its bank in that slice for
// the rest of the pass, and lanes on one address take turns
// (docs/bank-model.md, "Distributed shared memory", run 13: 933 of 933
// atomic launches).
DsharedCost dshared_cost(const DsharedRequest& request);
// One block only (every lane's rank the same).
DsharedCost dshared_cost(const Request& request);

// ---- cp.async (LDGSTS)

struct AsyncCopyRequest {
  unsigned width = 4;           // 4, 8 or 16 (.cg: 16)
  bool bypass = false;          // .cg (L1 bypass) rather than .ca
  uint32_t mask = 0xffffffffu;  // lanes that copy
  uint32_t no_read = 0;         // of those, lanes whose src-size is 0: they only zero-fill
  // The instruction has a src-size operand (even where every lane copies
  // all its bytes): the H100 costs that form of .cg otherwise (its own rule
  // below); .ca's form follows the .ca rule.
  bool src_size = false;
  // The src-size form compiled to a predicated LDGSTS (its last operand a
  // predicate, no .ZFILL): what ptxas emits when it proves every size 0 or
  // the full width (`ok ? 16 : 0`). Only the SASS says which form an
  // instruction took (sass::KernelMap); .ca costs the same either way.
  bool predicated = false;
  // ... and its predicate operand is P0 (not negated): Nsight Compute costs
  // only the shared side then (run 9's probes, run 10's sgemm_async
  // instructions); with any other operand, the read pass below.
  bool predicate_p0 = false;
  std::array<uint64_t, 32> shared{};  // each lane's shared destination (bytes)
  std::array<uint64_t, 32> global{};  // each lane's global source (bytes)
};

struct AsyncCopyCost {
  unsigned wavefronts = 0, ideal = 0, bank_conflicts = 0;
  unsigned global_requests = 0;  // 1 when any lane reads
  unsigned global_sectors = 0;
};

// .ca: lanes form groups by width (4 bytes: the warp; 8: half-warps; 16:
// quarter-warps); a group costs the most lanes any one lane shares a bank
// with (itself included), on the shared side or, both reading, on the
// global side: with one side conflicting, that side's most lanes on a bank.
// Sectors: the distinct 32-byte sectors read. .cg: one lane per shared
// destination (the lowest); lanes whose global and shared bytes share one
// sector each, at the same offsets, form one sector request (sectors =
// requests). For wavefronts the same pairing within each half-warp, then
// requests group by (global 128-byte line, shared line, half of a sector
// or whole, shared minus global address mod 64); a group costs the most
// requests reading one global 16-byte chunk; Nsight Compute reports no bank
// conflicts for .cg (ideal = wavefronts). .cg's src-size form: a fill pass
// (every lane) and a read pass (the reading lanes), each paired warp-wide as
// above: sectors = both passes' requests; wavefronts = both passes' groups
// plus .ca's per-quarter bank pass (its excess = the bank conflicts).
// .cg's predicated form (`predicated`), predicate operand P0: per
// quarter-warp, the most lanes on one shared bank over every lane
// (wavefronts; ideal: one per quarter); where some lane reads nothing, .ca's
// bank pass adds its excess to the bank conflicts (not to the wavefronts);
// sectors: the reading lanes' requests, paired warp-wide as the plain form
// (run 9: 126 of 126 launches). Any other predicate operand (run 10): the
// plain form's wavefronts over the reading lanes and the zero-filling lanes
// whose global address no other lane shares, plus, where zero-filling lanes
// were left out, the P0 form's shared-side pass; conflicts and sectors as P0.
// Throws Error for a width other than 4, 8, 16 (.cg: 16) or an address not
// aligned to it.
AsyncCopyCost async_copy_cost(const AsyncCopyRequest& request);

}  // namespace smemlab::bank
