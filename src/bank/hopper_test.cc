// The Hopper rules (bank/hopper.h, ldmatrix.h) against what Nsight Compute
// counted on an H100 for every probe launch of scripts/hopper-rules
// (tests/validation/hopper/h100-run{1,...,6}.tsv: one row per launch, its probe
// parameters and its counters). The rules compute from the parameters; the
// counters are only compared with.
#include "bank/hopper.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bank/ldmatrix.h"

namespace smemlab::bank {
namespace {

using Row = std::map<std::string, std::string>;

std::vector<std::string> split_on(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  if (!s.empty() && s.back() == sep) out.emplace_back();
  return out;
}

// Each row: the TSV's columns plus the probe's parameters (key=value).
std::vector<Row> read_runs() {
  std::vector<Row> rows;
  for (const char* name :
       {"h100-run1.tsv", "h100-run2.tsv", "h100-run3.tsv", "h100-run4.tsv", "h100-run5.tsv",
        "h100-run6.tsv", "h100-run7.tsv", "h100-run8.tsv", "h100-run9.tsv"}) {
    std::ifstream in(std::string(SMEMLAB_SOURCE_DIR) + "/tests/validation/hopper/" + name);
    EXPECT_TRUE(in) << name;
    std::string line;
    std::getline(in, line);
    const auto header = split_on(line, '\t');
    while (std::getline(in, line)) {
      const auto f = split_on(line, '\t');
      EXPECT_EQ(f.size(), header.size()) << line;
      Row r;
      for (size_t i = 0; i < f.size() && i < header.size(); ++i) r[header[i]] = f[i];
      for (const auto& kv : split_on(r["params"], ' ')) {
        const auto eq = kv.find('=');
        if (eq != std::string::npos) r["p." + kv.substr(0, eq)] = kv.substr(eq + 1);
      }
      rows.push_back(r);
    }
  }
  return rows;
}

const std::vector<Row>& runs() {
  static const std::vector<Row> rows = read_runs();
  return rows;
}

uint64_t param(const Row& r, const std::string& key, uint64_t dflt) {
  auto it = r.find("p." + key);
  return it == r.end() ? dflt : std::stoull(it->second, nullptr, 0);
}
std::string text(const Row& r, const std::string& key, const std::string& dflt) {
  auto it = r.find("p." + key);
  return it == r.end() ? dflt : it->second;
}
bool has(const Row& r, const std::string& metric) {
  auto it = r.find(metric + ".sum");
  return it != r.end() && !it->second.empty();
}
double counter(const Row& r, const std::string& metric) {
  auto it = r.find(metric + ".sum");
  EXPECT_TRUE(it != r.end() && !it->second.empty()) << r.at("case") << ": no " << metric;
  return it == r.end() || it->second.empty() ? -1 : std::stod(it->second);
}
// The probe's lane index permutations (probe.cu: lane, 31-lane, lane^1, lane/4).
unsigned permute(unsigned lane, uint64_t perm) {
  return perm == 1 ? 31 - lane : perm == 2 ? lane ^ 1 : perm == 3 ? lane / 4 : lane;
}

TEST(Hopper, EveryProbeLaunchRanAndEachFamilyIsThere) {
  std::map<std::string, int> families;
  for (const Row& r : runs()) {
    EXPECT_EQ(r.at("status"), "ok") << r.at("case");
    ++families[r.at("family")];
  }
  for (const char* f : {"tma", "bulk", "gmma", "mat", "dsm", "ldgsts"})
    EXPECT_GT(families[f], 30) << f;
}

// wgmma: every operand read costs its core matrices; the commit group's
// HGMMA (null descriptors, predicated off) counts as an SS m64n8k16 read in
// the SASS-patched counter and as nothing in the hardware counter.
TEST(Hopper, WgmmaOperandWavefrontsMatchTheH100) {
  const Cost commit = gmma_sass_only_cost(8);
  // The same as reading an SS m64n8k16's operands through descriptors.
  EXPECT_EQ(commit.wavefronts, gmma_operand_cost({0, false, 2, 64}).wavefronts +
                                   gmma_operand_cost({0, false, 2, 8}).wavefronts);
  EXPECT_EQ(gmma_sass_only_cost(256).wavefronts, 16u + 64u);
  EXPECT_THROW(gmma_sass_only_cost(12), Error);
  int checked = 0;
  for (const Row& r : runs()) {
    if (r.at("family") != "gmma") continue;
    const uint64_t count = param(r, "count", 1);
    unsigned per = gmma_operand_cost({param(r, "db", 0), param(r, "tb", 0) != 0, 2,
                                      static_cast<unsigned>(param(r, "n", 8))})
                       .wavefronts;
    if (param(r, "ss", 0))
      per += gmma_operand_cost({param(r, "da", 0), param(r, "ta", 0) != 0, 2, 64}).wavefronts;
    EXPECT_EQ(counter(r, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma"), count * per)
        << r.at("case");
    EXPECT_EQ(counter(r, "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_gmma"),
              count * per + commit.wavefronts)
        << r.at("case");
    if (has(r, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_gmma")) {
      EXPECT_EQ(counter(r, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_gmma"), 0)
          << r.at("case");
    }
    ++checked;
  }
  EXPECT_GT(checked, 90);
}

TEST(Hopper, WgmmaCoreMatricesFollowTheDescriptor) {
  // K-major, no swizzle, LBO 128, SBO 256: core matrix (g, kc) at g*256 + kc*128, rows 16 bytes
  // apart.
  const uint64_t desc = (uint64_t{128 >> 4} << 16) | (uint64_t{256 >> 4} << 32);
  auto chunks = gmma_core_matrices({desc, false, 2, 16});
  ASSERT_EQ(chunks.size(), 32u);
  EXPECT_EQ(chunks[0], 0u);
  EXPECT_EQ(chunks[1], 16u);
  EXPECT_EQ(chunks[8], 128u);
  EXPECT_EQ(chunks[16], 256u);
  // 128-byte swizzle: row r's first chunk lands at r*128 + (r << 4).
  chunks = gmma_core_matrices({(uint64_t{1024 >> 4} << 32) | (uint64_t{1} << 62), false, 2, 8});
  for (unsigned r = 0; r < 8; ++r) EXPECT_EQ(chunks[r], r * 128 + (r << 4)) << r;
  EXPECT_EQ(gmma_operand_cost({0, false, 2, 64}).wavefronts, 16u);
  // Every descriptor puts a core matrix's 8 rows on 8 different 16-byte bank
  // groups (contiguous rows, or rows a swizzle row apart with the XOR), so no
  // stride, base offset or start makes one conflict: 32-byte swizzle rows
  // starting 64 bytes into a 128-byte line still spread.
  for (uint64_t start : {0u, 64u, 80u, 400u}) {
    const uint64_t d = (start >> 4) | (uint64_t{256 >> 4} << 32) | (uint64_t{3} << 62);
    const Cost c = gmma_operand_cost({d, false, 2, 64});
    EXPECT_EQ(c.wavefronts, c.ideal) << start;
  }
  // A warp's 16 rows of A (first_row 16q) are its share of the 64: 4 core
  // matrices each, at the addresses of the whole operand's.
  const uint64_t a128 = (uint64_t{1024 >> 4} << 32) | (uint64_t{1} << 62);
  const auto whole = gmma_core_matrices({a128, false, 2, 64});
  for (unsigned q = 0; q < 4; ++q) {
    const auto slice = gmma_core_matrices({a128, false, 2, 16, 16 * q});
    ASSERT_EQ(slice.size(), 32u);
    EXPECT_TRUE(std::equal(slice.begin(), slice.end(), whole.begin() + 32 * q)) << q;
    EXPECT_EQ(gmma_operand_cost({a128, false, 2, 16, 16 * q}).wavefronts, 4u);
  }
  EXPECT_THROW(gmma_core_matrices({0, false, 2, 16, 4}), Error);
  EXPECT_THROW(gmma_core_matrices({0, true, 4, 64}), Error);
  EXPECT_THROW(gmma_core_matrices({0, false, 2, 12}), Error);
}

TEST(Hopper, StmatrixAndLdmatrixMatchTheH100) {
  int checked = 0;
  for (const Row& r : runs()) {
    if (r.at("family") != "mat") continue;
    const bool store = text(r, "op", "ld") == "st";
    const uint64_t count = param(r, "count", 1), stride = param(r, "stride", 16);
    MatrixRequest m;
    m.store = store;
    m.matrices = static_cast<unsigned>(param(r, "x", 1));
    m.trans = param(r, "trans", 0) != 0;
    for (unsigned lane = 0; lane < 32; ++lane) {
      uint64_t off = param(r, "soff", 0) + lane * stride;
      if (param(r, "swz", 0)) off ^= uint64_t{lane % 8} << 4;
      m.addr[lane] = off;
    }
    const Result res = evaluate_matrix(m);
    const std::string op = store ? "stsm" : "ldsm";
    const uint64_t wf = count ? count * res.wavefronts : 0,
                   bc = count ? count * res.bank_conflicts : 0;
    EXPECT_EQ(counter(r, "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_" + op), wf)
        << r.at("case");
    EXPECT_EQ(counter(r, "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_" + op), bc)
        << r.at("case");
    // The hardware op_st/op_ld counters include them; the SASS-patched op_st/op_ld do not.
    const std::string hw = store ? "st" : "ld";
    EXPECT_EQ(counter(r, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_" + hw), wf)
        << r.at("case");
    EXPECT_EQ(counter(r, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_" + hw), bc)
        << r.at("case");
    EXPECT_EQ(counter(r, "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_" + hw), 0)
        << r.at("case");
    ++checked;
  }
  EXPECT_GT(checked, 35);
}

CopyDirection direction_of(const Row& r) {
  const std::string m = text(r, "mode", "load");
  return m == "store"    ? CopyDirection::Store
         : m == "reduce" ? CopyDirection::Reduce
                         : CopyDirection::Load;
}

std::string global_metric(CopyDirection d, const char* what) {
  return d == CopyDirection::Load
             ? std::string("l1tex__m_xbar2l1tex_read_") + what + "_mem_global_op_tma_ld"
         : d == CopyDirection::Store
             ? std::string("l1tex__m_l1tex2xbar_write_") + what + "_mem_global_op_tma_st"
             : std::string("l1tex__m_l1tex2xbar_write_") + what + "_mem_global_op_tma_red";
}

TEST(Hopper, TmaAndBulkGlobalSectorsMatchTheH100) {
  int checked = 0;
  for (const Row& r : runs()) {
    const std::string fam = r.at("family");
    if ((fam != "tma" && fam != "bulk") || !has(r, global_metric(direction_of(r), "sectors")))
      continue;
    const CopyDirection d = direction_of(r);
    std::vector<CopyChunk> chunks;
    std::vector<uint32_t> shared;  // bulk copies: each chunk's shared offset (probe.cu: soff on)
    if (fam == "bulk") {
      chunks = bulk_chunks(param(r, "goff", 0), param(r, "bytes", 16));
      for (size_t i = 0; i < chunks.size(); ++i)
        shared.push_back(static_cast<uint32_t>(param(r, "soff", 0) + 16 * i));
    } else {
      TensorBox b;  // probe.cu: a dim0 x dim1 x 8 tensor, rows `pitch` (dim0 * es) bytes apart
      b.elem_bytes = static_cast<unsigned>(param(r, "es", 4));
      const auto box = split_on(text(r, "box", "8,8"), ',');
      const auto c = split_on(text(r, "c", "0,0"), ',');
      b.rank = static_cast<unsigned>(box.size());
      b.dims = {param(r, "dim0", 256), param(r, "dim1", 64), 8, 1, 1};
      const uint64_t pitch = param(r, "pitch", b.dims[0] * b.elem_bytes);
      b.strides = {pitch, pitch * b.dims[1], 0, 0};
      for (size_t i = 0; i < box.size(); ++i) b.box[i] = static_cast<unsigned>(std::stoul(box[i]));
      for (size_t i = 0; i < c.size(); ++i) b.coords[i] = std::stoll(c[i]);
      chunks = tensor_box_chunks(b);
    }
    const CopyTraffic t = copy_traffic(d, chunks, 1, shared);
    if (d != CopyDirection::Load && fam == "tma") {  // the same from the in-bounds runs alone
      std::vector<GlobalRun> runs;
      for (const CopyChunk& c : chunks)
        if (!c.valid)
          continue;
        else if (!runs.empty() && runs.back().address + runs.back().bytes == c.global)
          runs.back().bytes += c.valid;
        else
          runs.push_back({c.global, c.valid});
      EXPECT_EQ(copy_traffic(d, run_chunks(runs)).sectors, t.sectors) << r.at("case");
    }
    const uint64_t count = param(r, "count", 1);
    EXPECT_EQ(counter(r, global_metric(d, "sectors")), count * t.sectors) << r.at("case");
    EXPECT_EQ(counter(r, global_metric(d, "bytes")), count * t.bytes) << r.at("case");
    ++checked;
  }
  EXPECT_GT(checked, 190 + 90);  // run 8: 90 boxes over a chunk partly inside the tensor
}

// No data-stage wavefront counter sees a TMA or bulk copy's shared-memory
// side: the totals stay at the probe's own mbarrier/fence traffic whatever
// the box, swizzle or alignment (why hopper.h has no function for it).
TEST(Hopper, NoSharedWavefrontCounterSeesTmaOrBulkCopies) {
  int checked = 0;
  for (const Row& r : runs()) {
    const std::string fam = r.at("family");
    // (run 5 read the per-operation counters only)
    if ((fam != "tma" && fam != "bulk") || !has(r, "l1tex__data_pipe_lsu_wavefronts_mem_shared"))
      continue;
    EXPECT_EQ(counter(r, "l1tex__data_pipe_lsu_wavefronts_mem_shared"),
              direction_of(r) == CopyDirection::Load ? 3 : 4)
        << r.at("case");
    ++checked;
  }
  EXPECT_GT(checked, 300);
}

TEST(Hopper, DistributedSharedRequestsAndSectorsMatchTheH100) {
  int checked = 0;
  for (const Row& r : runs()) {
    const std::string op = text(r, "op", "none");
    if (r.at("family") != "dsm" || op == "none" || param(r, "target", 1) == 0) continue;
    Request q;
    q.op = op == "ld" ? Op::Load : op == "st" ? Op::Store : Op::Atomic;
    q.width = static_cast<unsigned>(param(r, "width", 4));
    // Run 5: lanes of selfmask reach the block itself through the cluster
    // window; they are an ordinary shared access of the same instruction
    // (one op_shared request beside the op_dshared one), the others DSMEM.
    const auto self = static_cast<uint32_t>(param(r, "selfmask", 0));
    const std::string shared_name = op == "ld" ? "ld" : op == "st" ? "st" : "atom";
    // (atomics only: the probe's own set-up stores and loads its buffer)
    if (shared_name == "atom" && has(r, "smsp__sass_inst_executed_op_shared_atom")) {
      EXPECT_EQ(counter(r, "smsp__sass_inst_executed_op_shared_atom"), self ? 1 : 0)
          << r.at("case");
    }
    q.mask = static_cast<uint32_t>(param(r, "mask", 0xffffffffu)) & ~self;
    if (!q.mask) {
      EXPECT_FALSE(has(r, "smsp__sass_inst_executed_op_dshared_" + shared_name) &&
                   counter(r, "smsp__sass_inst_executed_op_dshared_" + shared_name) != 0)
          << r.at("case");
      continue;
    }
    // (the probe's buffer starts at kReservedSharedBytes, as in run 13)
    for (unsigned lane = 0; lane < 32; ++lane)
      q.addr[lane] =
          kReservedSharedBytes +
          (param(r, "soff", 0) + permute(lane, param(r, "perm", 0)) * param(r, "stride", 4)) %
              16384;
    const DsharedCost c = dshared_cost(q);
    const uint64_t count = param(r, "count", 1);
    const std::string name = op == "red" ? "atom" : op;  // red.shared::cluster compiles to an ATOM
    // Run 1 read the per-SM rollup (sm__), run 2 the per-SMSP one (smsp__): the same count.
    const std::string inst = (has(r, "sm__sass_inst_executed_op_dshared_" + name) ? "sm" : "smsp") +
                             std::string("__sass_inst_executed_op_dshared_") + name;
    EXPECT_EQ(counter(r, inst), count * c.requests) << r.at("case");
    if (has(r, "l1tex__t_sectors_pipe_lsu_mem_dshared_op_" + name)) {
      EXPECT_EQ(counter(r, "l1tex__t_sectors_pipe_lsu_mem_dshared_op_" + name), count * c.sectors)
          << r.at("case");
      if (has(r, "l1tex__t_requests_pipe_lsu_mem_dshared_op_" + name)) {  // (not in run 5)
        EXPECT_EQ(counter(r, "l1tex__t_requests_pipe_lsu_mem_dshared_op_" + name),
                  count * c.requests)
            << r.at("case");
      }
    }
    ++checked;
  }
  EXPECT_GT(checked, 100);
}

// Runs 6, 7 and 8: one instruction's lanes reach several blocks of a
// cluster of 4 (dsm_table: a target rank and an offset per lane, lanes
// outside the mask idle; the block's own lanes are ordinary shared
// accesses). The per-peer rule (each block's sectors apart) missed 42 of
// them, all reaching ranks 2 and 3 (another TPC); the slice rule of
// dshared_cost (run 13) costs all lanes together and equals every one.
// The probe's buffer starts at kReservedSharedBytes, as run 13 read back.
TEST(Hopper, DistributedSharedAcrossPeersMatchTheH100) {
  int checked = 0, per_peer_differs = 0;
  for (const Row& r : runs()) {
    if (r.at("family") != "dsm_table" || text(r, "op", "none") != "atom") continue;
    const auto t = split_on(text(r, "t", ""), ','), o = split_on(text(r, "o", ""), ',');
    ASSERT_EQ(t.size(), 32u);
    const auto mask = static_cast<uint32_t>(param(r, "mask", 0xffffffffu));
    DsharedRequest q;
    q.op = Op::Atomic;
    q.width = 4;
    unsigned per_peer = 0;
    for (unsigned lane = 0; lane < 32; ++lane) {
      q.addr[lane] = kReservedSharedBytes + std::stoull(o[lane]) % 16384;
      q.rank[lane] = static_cast<uint32_t>(std::stoul(t[lane]) % 4);
      if (q.rank[lane] != 0 && (mask >> lane & 1)) q.mask |= 1u << lane;
    }
    for (uint32_t peer = 1; peer < 4; ++peer) {
      Request one;
      one.op = Op::Atomic;
      one.width = 4;
      one.mask = 0;
      for (unsigned lane = 0; lane < 32; ++lane)
        if (q.mask >> lane & 1 && q.rank[lane] == peer)
          one.mask |= 1u << lane, one.addr[lane] = q.addr[lane];
      per_peer += dshared_cost(one).sectors;
    }
    const double measured = counter(r, "l1tex__t_sectors_pipe_lsu_mem_dshared_op_atom");
    EXPECT_EQ(counter(r, "smsp__sass_inst_executed_op_dshared_atom"), q.mask ? 1 : 0)
        << r.at("case");
    EXPECT_EQ(measured, dshared_cost(q).sectors) << r.at("case");
    per_peer_differs += measured != per_peer;
    ++checked;
  }
  EXPECT_EQ(checked, 14 + 24 + 79 + 38);
  EXPECT_EQ(per_peer_differs, 6 + 18 + 18);  // what the rule of each block apart missed
}

// probe.cu's cp.async launches as the request they issue: "ldgsts" by
// stride/offset/permutation, "ldgsts_table" lane by lane.
AsyncCopyRequest async_request(const Row& r) {
  AsyncCopyRequest q;
  q.width = static_cast<unsigned>(param(r, "size", r.at("family") == "ldgsts" ? 4 : 16));
  q.bypass = param(r, "cg", r.at("family") == "ldgsts" ? 0 : 1) != 0;
  q.mask = static_cast<uint32_t>(param(r, "mask", 0xffffffffu));
  if (r.at("family") == "ldgsts_table") {
    const auto s = split_on(text(r, "s", ""), ','), g = split_on(text(r, "g", ""), ',');
    const auto z = split_on(text(r, "z", ""), ',');
    for (unsigned lane = 0; lane < 32; ++lane) {
      q.shared[lane] = std::stoull(s.at(lane));
      q.global[lane] = std::stoull(g.at(lane));
      if (z.size() == 32 && std::stoul(z[lane]) == 0) q.no_read |= 1u << lane;
    }
    q.src_size = z.size() == 32;                            // the probe's src-size form
    q.predicated = q.src_size && param(r, "pred", 0) != 0;  // as `z ? SIZE : 0`
    q.predicate_p0 = q.predicated;  // ptxas gave the probe `LDGSTS... , P0` (run 10)
    return q;
  }
  for (unsigned lane = 0; lane < 32; ++lane) {
    q.shared[lane] =
        param(r, "soff", 0) + permute(lane, param(r, "sperm", 0)) * param(r, "sstride", q.width);
    q.global[lane] =
        param(r, "goff", 0) + permute(lane, param(r, "gperm", 0)) * param(r, "gstride", q.width);
  }
  return q;
}

// Every cp.async launch equals on every counter: .ca (runs 3 and 4, and runs
// 7 and 8's quarters with bank conflicts on both sides chosen lane by
// lane; run 9's in both src-size forms), .cg, .cg with a src-size operand
// (41 launches of run 4, 43 of run 7; hopper_async.cc) and its predicated
// form (126 launches of run 9).
TEST(Hopper, CpAsyncMatchesTheH100) {
  int ca = 0, cg = 0, sectors = 0, cg_src_size = 0, cg_predicated = 0;
  for (const Row& r : runs()) {
    const std::string fam = r.at("family");
    if ((fam != "ldgsts" && fam != "ldgsts_table") || param(r, "count", 1) == 0) continue;
    const AsyncCopyRequest q = async_request(r);
    const AsyncCopyCost c = async_copy_cost(q);
    const uint64_t count = param(r, "count", 1);
    const double wavefronts =
        counter(r, "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts");
    EXPECT_EQ(wavefronts, count * c.wavefronts) << r.at("case");
    EXPECT_EQ(counter(r, "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts"),
              count * c.bank_conflicts)
        << r.at("case");
    ++(!q.bypass ? ca : q.predicated ? cg_predicated : q.src_size ? cg_src_size : cg);
    if (has(r, "smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts")) {
      EXPECT_EQ(counter(r, "smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts"),
                count * c.global_sectors)
          << r.at("case");
      EXPECT_EQ(counter(r, "smsp__sass_l1tex_t_requests_pipe_lsu_mem_global_op_ldgsts"),
                count * c.global_requests)
          << r.at("case");
      if (fam == "ldgsts") {  // not under op_ld (the table probe loads its table)
        EXPECT_EQ(counter(r, "sm__sass_inst_executed_op_global_ld"), 0) << r.at("case");
      }
      ++sectors;
    }
  }
  EXPECT_GE(ca, 195 + 51 + 6 + 31 + 29 + 22);
  EXPECT_GE(cg, 206);
  EXPECT_EQ(cg_src_size, 41 + 43);
  EXPECT_EQ(cg_predicated, 126);
  EXPECT_GE(sectors, 416 + 84 + 31 + 29 + 148);
}

// The predicated form's rule on patterns worked by hand (docs/bank-model.md):
// wavefronts are the shared side's bank pass per quarter-warp, whatever the
// lanes read; bank conflicts appear only once some lane reads nothing.
TEST(Hopper, CpAsyncPredicatedFormCostsTheSharedSide) {
  AsyncCopyRequest p;
  p.width = 16;
  p.bypass = true;
  p.src_size = p.predicated = p.predicate_p0 = true;
  // A 512-byte row, every lane reading at a 16-byte offset: one wavefront per
  // quarter (the plain form's rule would give 12), 32 unpaired sectors.
  for (unsigned lane = 0; lane < 32; ++lane)
    p.shared[lane] = 16 * lane, p.global[lane] = 16 + 16 * lane;
  AsyncCopyCost c = async_copy_cost(p);
  EXPECT_EQ(c.wavefronts, 4u);
  EXPECT_EQ(c.bank_conflicts, 0u);
  EXPECT_EQ(c.global_sectors, 32u);
  // Global sources 32 bytes apart: lanes q and q+4 of a quarter share global
  // banks. All reading: no conflict counted; the odd lanes reading: two
  // lanes per bank in each quarter, 4 conflicts, the same 4 wavefronts.
  for (unsigned lane = 0; lane < 32; ++lane) p.global[lane] = 32 * lane;
  EXPECT_EQ(async_copy_cost(p).bank_conflicts, 0u);
  p.no_read = 0x55555555u;
  c = async_copy_cost(p);
  EXPECT_EQ(c.wavefronts, 4u);
  EXPECT_EQ(c.bank_conflicts, 4u);
  EXPECT_EQ(c.global_sectors, 16u);
  EXPECT_EQ(c.global_requests, 1u);
  // Every lane writing the same 16 bytes: 8 per quarter; none reading: no request.
  for (unsigned lane = 0; lane < 32; ++lane) p.shared[lane] = 0;
  p.no_read = 0xffffffffu;
  c = async_copy_cost(p);
  EXPECT_EQ(c.wavefronts, 32u);
  EXPECT_EQ(c.bank_conflicts, 28u);
  EXPECT_EQ(c.global_requests, 0u);
  EXPECT_EQ(c.global_sectors, 0u);
}

// The predicated form with a predicate operand other than P0 (run 10,
// scripts/ldgsts-vec/sa_driver.cu's seq_* launches: one warp, copy k to its
// own 512-byte shared row, `!P0`; tests/validation/hopper/h100-run10-ldgsts.tsv):
// the plain form's wavefronts over every lane at its own address, read or
// not; zero-filling lanes that share one address (sgemm_async's `B`) drop out
// of that pass and the shared-side pass is added instead.
TEST(Hopper, CpAsyncPredicatedFormWithAnotherOperandCostsThePlainForm) {
  auto copy = [](uint64_t goff, unsigned reads, bool zero_at_one_address) {
    AsyncCopyRequest p;
    p.width = 16;
    p.bypass = p.src_size = p.predicated = true;
    for (unsigned lane = 0; lane < 32; ++lane) {
      p.shared[lane] = 16 * lane;
      p.global[lane] = goff + 16 * lane;
      if (lane >= reads) {
        p.no_read |= 1u << lane;
        if (zero_at_one_address) p.global[lane] = 0;
      }
    }
    return async_copy_cost(p).wavefronts;
  };
  // Measured per instruction (launch totals / copies): a row at offset 16
  // costs 12 (seq_1_o16, seq_2_o16: 24, seq_3_o16: 36), at 32: 8 (seq_2_o32:
  // 16), at 48: 16 (seq_2_o48: 32), at 0: 4 (seq_2_o0_o16: 16 with 12); every
  // lane zero-filling, or all but lane 0 or lanes 0-16, still 12
  // (seq_zero_pred_o16, seq_2_o16_r1, seq_2_o16_r17: 24 with a reading 12).
  EXPECT_EQ(copy(16, 32, false), 12u);
  EXPECT_EQ(copy(32, 32, false), 8u);
  EXPECT_EQ(copy(48, 32, false), 16u);
  EXPECT_EQ(copy(0, 32, false), 4u);
  EXPECT_EQ(copy(16, 0, false), 12u);
  EXPECT_EQ(copy(16, 1, false), 12u);
  EXPECT_EQ(copy(16, 17, false), 12u);
  // sgemm_async's column edge (edge128_col: lane 0 reads, 31 lanes
  // zero-fill at B): 1 + 4 = 5 per warp; the launch's 304 = 16 executions
  // of its two P0 instructions x 4 + 48 of the other six x 5.
  EXPECT_EQ(copy(16, 1, true), 5u);
  // Every lane zero-filling at B (rows past K): the shared-side pass alone.
  EXPECT_EQ(copy(16, 0, true), 4u);
}

// The src-size form's rule on patterns worked by hand (docs/bank-model.md):
// 32 lanes of 16 contiguous bytes, all reading: the fill pass's 4 and the
// read pass's 4 wavefronts plus 4 quarters; 16 + 16 sectors.
TEST(Hopper, CpAsyncSrcSizeFormTakesTwoPasses) {
  AsyncCopyRequest z;
  z.width = 16;
  z.bypass = true;
  z.src_size = true;
  for (unsigned lane = 0; lane < 32; ++lane) z.shared[lane] = z.global[lane] = 16 * lane;
  AsyncCopyCost c = async_copy_cost(z);
  EXPECT_EQ(c.wavefronts, 12u);
  EXPECT_EQ(c.global_sectors, 32u);
  EXPECT_EQ(c.bank_conflicts, 0u);
  // Every lane zero-fills: no read pass (8 wavefronts, 16 sectors), no request.
  z.no_read = 0xffffffffu;
  c = async_copy_cost(z);
  EXPECT_EQ(c.wavefronts, 8u);
  EXPECT_EQ(c.global_sectors, 16u);
  EXPECT_EQ(c.global_requests, 0u);
  // Shared stride 32: two lanes of a quarter on each bank (4 conflicts), no
  // pairs: 32 + 32 requests; 2 x 32 + 8 wavefronts.
  z.no_read = 0;
  for (unsigned lane = 0; lane < 32; ++lane) z.shared[lane] = 32 * lane;
  c = async_copy_cost(z);
  EXPECT_EQ(c.wavefronts, 72u);
  EXPECT_EQ(c.bank_conflicts, 4u);
  EXPECT_EQ(c.global_sectors, 64u);
  // Both sides at stride 32, conflicting on the same lanes (0 and 4, ...):
  // the bank pass stays 2 per quarter (8, 4 conflicts); each pass's lanes
  // now share (shared - global) mod 64, 4 requests a line: 8 + 8.
  for (unsigned lane = 0; lane < 32; ++lane) z.global[lane] = 32 * lane;
  c = async_copy_cost(z);
  EXPECT_EQ(c.wavefronts, 24u);
  EXPECT_EQ(c.bank_conflicts, 4u);
}

// .ca's bank pass where both sides conflict (run 7's chosen quarters): the
// union of the lanes a lane shares a shared bank with and those it shares a
// global bank with. Lanes 0-1 on one shared bank and 1-2 on one global bank:
// lane 1's union {0, 1, 2} = 3 wavefronts (an optimal schedule takes 2).
TEST(Hopper, CpAsyncBothSidesTakeTheUnion) {
  AsyncCopyRequest q;
  q.width = 16;
  q.mask = 0xff;
  for (unsigned lane = 0; lane < 8; ++lane)
    q.shared[lane] = 16 * lane, q.global[lane] = 4096 + 16 * lane;
  q.shared[1] = 128;              // lane 1 on lane 0's shared bank
  q.global[2] = 4096 + 128 + 16;  // lane 2 on lane 1's global bank
  EXPECT_EQ(async_copy_cost(q).wavefronts, 3u);
  q.global[2] = 4096 + 32, q.global[1] = 4096 + 128;  // the same two lanes on both sides: 2
  EXPECT_EQ(async_copy_cost(q).wavefronts, 2u);
}

TEST(Hopper, BadInputsAreErrors) {
  AsyncCopyRequest q;
  q.width = 12;
  EXPECT_THROW(async_copy_cost(q), Error);
  q.width = 8;
  q.bypass = true;
  EXPECT_THROW(async_copy_cost(q), Error);
  q.bypass = false;
  q.shared[3] = 4;
  EXPECT_THROW(async_copy_cost(q), Error);
  EXPECT_THROW(bulk_chunks(0, 24), Error);
  const GlobalRun odd{8, 32};
  EXPECT_THROW(run_chunks(std::span<const GlobalRun>(&odd, 1)), Error);
  TensorBox b;
  b.box = {3, 1, 1, 1, 1};
  EXPECT_THROW(tensor_box_chunks(b), Error);
  Request d;
  d.width = 8;
  d.addr[0] = 4;
  EXPECT_THROW(dshared_cost(d), Error);
}

// mbarrier operations (run 4, family mbar): Nsight Compute's op_misc
// wavefronts are one per warp of the launch plus, for each mbarrier.init,
// one per distinct 8-byte object its lanes name; arrive, arrive.expect_tx,
// expect_tx and test_wait add none; none of them is a shared ld/st/atom
// instruction. (HopperAnalysis counts the init part; the test computes the
// objects from the probe's parameters: lane i's barrier at spread * i.)
TEST(Hopper, MbarrierOperationsAreOpMiscInitsOnly) {
  int checked = 0;
  for (const Row& r : runs()) {
    if (r.at("family") != "mbar") continue;
    const uint64_t spread = param(r, "spread", 8), count = param(r, "count", 1);
    const auto mask = static_cast<uint32_t>(param(r, "mask", 0xffffffffu));
    const unsigned all = spread == 0 ? 1 : 32;  // the probe's own inits, one lane per barrier
    const unsigned named = spread == 0 ? 1 : static_cast<unsigned>(__builtin_popcount(mask));
    const bool init = text(r, "op", "") == "init";
    EXPECT_EQ(counter(r, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_misc"),
              1 + all + (init ? count * named : 0))
        << r.at("case");
    EXPECT_EQ(counter(r, "smsp__sass_inst_executed_op_shared_atom"), 0) << r.at("case");
    EXPECT_EQ(counter(r, "smsp__sass_inst_executed_op_shared_st"), 0) << r.at("case");
    ++checked;
  }
  EXPECT_EQ(checked, 42);
}

// L2 prefetches (run 4, family pf): no SASS-patched TMA or global counter
// moves (tma.prefetches has requests only); the TMA pipe runs one
// instruction per tensor prefetch, two per bulk prefetch.
TEST(Hopper, PrefetchesMoveNoCountedTraffic) {
  int checked = 0;
  for (const Row& r : runs()) {
    if (r.at("family") != "pf") continue;
    const uint64_t count = param(r, "count", 1);
    EXPECT_EQ(counter(r, "sm__sass_inst_executed_op_tma"), 0) << r.at("case");
    EXPECT_EQ(counter(r, "l1tex__m_xbar2l1tex_read_sectors_mem_global_op_tma_ld"), 0)
        << r.at("case");
    EXPECT_EQ(counter(r, "sm__sass_inst_executed_op_global_ld"), 0) << r.at("case");
    EXPECT_EQ(counter(r, "sm__inst_executed_pipe_tma"),
              count * (text(r, "mode", "bulk") == "tensor" ? 1 : 2))
        << r.at("case");
    ++checked;
  }
  EXPECT_EQ(checked, 9);
}

}  // namespace
}  // namespace smemlab::bank
