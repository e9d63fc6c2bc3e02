#include "sass/mapping.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "emu/launch.h"
#include "sass/regroup.h"
#include "sass/tools.h"

namespace smemlab::sass {
namespace {

std::string data(const std::string& name) {
  return std::string(SMEMLAB_SOURCE_DIR) + "/src/sass/testdata/" + name;
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A recorded kernel: its PTX decoded by the emulator, mapped onto `sass_text`.
struct Mapped {
  emu::Device dev;
  std::unique_ptr<emu::Module> module;
  const emu::Program* program = nullptr;
  KernelMap map;
  Mapped(const std::string& kernel, const std::string& sass_text) {
    module = emu::Module::load_file(dev, data(kernel + ".ptx"));
    program = &module->kernel(kernel);
    map = map_kernel(module->ptx(), kernel, *program, parse_disassembly(sass_text).at(kernel));
  }
  // Members and width of every group, in group order.
  std::vector<std::pair<unsigned, unsigned>> shape() const {
    std::vector<std::pair<unsigned, unsigned>> s;
    for (const auto& g : map.groups) s.push_back({g.members, g.width});
    return s;
  }
  std::string notes() const {
    std::string s;
    for (const auto& n : map.notes) s += n.where + " " + n.instr + ": " + n.reason + "\n";
    return s;
  }
};

using Shape = std::vector<std::pair<unsigned, unsigned>>;

// As[ty][k..k+3] merged into LDS.128 (4 per tile step); Bs[k][tx] stay LDS.
TEST(Mapping, MatmulTiled16MergesRowLoadsIntoLds128) {
  Mapped m("matmul_tiled16", read(data("matmul_tiled16.sass")));
  EXPECT_EQ(m.shape(), Shape(4, {4, 16})) << m.notes();
  EXPECT_EQ(m.notes(), "");
  // Each member's rel puts the request at the row start: members at +0, +4, +8, +12.
  std::vector<int32_t> rels;
  for (const auto& parts : m.map.parts)
    for (const auto& p : parts)
      if (p.group == 0) rels.push_back(p.rel);
  EXPECT_EQ(rels, (std::vector<int32_t>{0, -4, -8, -12}));
}

TEST(Mapping, StridedReductionMergesTheStepOnePair) {
  Mapped m("reduce_interleaved_strided", read(data("reduce_interleaved_strided.sass")));
  EXPECT_EQ(m.shape(), Shape({{2, 8}})) << m.notes();
  EXPECT_EQ(m.notes(), "");
}

// Two ld.shared.v4.f32 narrowed to LDS.64: the first keeps its upper half.
TEST(Mapping, FirBestNarrowsTwoVectorLoads) {
  Mapped m("fir_best", read(data("fir_best.sass")));
  EXPECT_EQ(m.shape(), Shape({{1, 8}, {1, 8}})) << m.notes();
  std::vector<int32_t> rels;
  for (const auto& parts : m.map.parts)
    for (const auto& p : parts) rels.push_back(p.rel);
  EXPECT_EQ(rels, (std::vector<int32_t>{8, 0}));
  EXPECT_EQ(m.notes(), "");
}

// A SASS line without the PTX's accesses is never silently accepted.
TEST(Mapping, UnmatchedLineIsNamed) {
  std::string sass = read(data("reduce_interleaved_strided.sass"));
  // Move line 57's SASS to a line the PTX does not have.
  for (size_t at = 0; (at = sass.find("line 57", at)) != std::string::npos;)
    sass.replace(at, 7, "line 99");
  Mapped m("reduce_interleaved_strided", sass);
  EXPECT_TRUE(m.map.groups.empty());
  EXPECT_NE(m.notes().find("reduction.cu:57 ld.shared.f32: no shared load SASS instruction"),
            std::string::npos)
      << m.notes();
}

// Freshly compiled: ptxas + nvdisasm on the recorded PTX give the same map
// as the recorded SASS (skipped, saying so, where the tools are missing).
// testdata/wgmma_commits.cu: a commit after a loop of wgmmas (ptxas adds a
// null, predicated-off HGMMA.64x8x16 for it) and one right after a wgmma
// (ptxas puts the commit on that HGMMA).
TEST(Mapping, CommitWithoutItsOwnHgmmaCarriesASassOnlyOne) {
  const std::string sass = read(data("wgmma_commits.sass"));
  const NullHgmmas nulls = null_hgmmas(sass);
  ASSERT_EQ(nulls.at("wgmma_commits"), std::vector<unsigned>{8});
  Mapped m("wgmma_commits", sass);
  map_sass_only_gmma(m.module->ptx(), "wgmma_commits", *m.program, nulls.at("wgmma_commits"),
                     &m.map);
  std::vector<std::pair<int, unsigned>> commits;  // PTX line, N
  for (uint32_t pc = 0; pc < m.program->info.size(); ++pc)
    if (m.program->info[pc].text.rfind("wgmma.commit_group", 0) == 0)
      commits.push_back({m.program->info[pc].ptx_line, m.map.sass_only_gmma.at(pc)});
  ASSERT_EQ(commits.size(), 2u);
  EXPECT_EQ(commits[0].second, 8u);
  EXPECT_EQ(commits[1].second, 0u);
  EXPECT_TRUE(m.map.regroups());
  // A SASS that does not agree (no null HGMMA): nothing mapped, a note.
  Mapped none("wgmma_commits", sass);
  map_sass_only_gmma(none.module->ptx(), "wgmma_commits", *none.program, {}, &none.map);
  EXPECT_FALSE(none.map.any_sass_only_gmma);
  EXPECT_NE(none.notes().find("predicated-off HGMMA"), std::string::npos) << none.notes();
}

TEST(Mapping, FreshlyCompiledMatchesRecorded) {
  Tools tools = find_tools();
  if (!tools.missing.empty()) GTEST_SKIP() << tools.missing;
  for (const char* k : {"matmul_tiled16", "reduce_interleaved_strided", "fir_best"}) {
    Disassembled d = disassemble(tools, read(data(std::string(k) + ".ptx")), "sm_90");
    ASSERT_EQ(d.error, "") << k;
    Mapped fresh(k, d.text), recorded(k, read(data(std::string(k) + ".sass")));
    EXPECT_EQ(fresh.shape(), recorded.shape()) << k;
    EXPECT_EQ(fresh.notes(), "") << k;
  }
}

// Collects what the regrouping hands on.
struct Recorder final : emu::KernelObserver {
  struct Block final : emu::BlockObserver {
    std::vector<emu::MemAccess> got;
    void on_memory(const emu::MemAccess& a) override { got.push_back(a); }
  };
  std::vector<emu::MemAccess> got;
  std::unique_ptr<emu::BlockObserver> make_block_observer(emu::Dim3) override {
    return std::make_unique<Block>();
  }
  void finish_block(emu::Dim3, std::unique_ptr<emu::BlockObserver> o) override {
    auto* b = static_cast<Block*>(o.get());
    got.insert(got.end(), b->got.begin(), b->got.end());
  }
};

emu::MemAccess access(const emu::InstrInfo* instr, uint64_t base, uint32_t mask = ~0u) {
  emu::MemAccess a{};
  a.space = emu::Space::Shared;
  a.op = emu::MemOp::Load;
  a.width = 4;
  a.mask = mask;
  for (unsigned l = 0; l < 32; ++l) a.addr[l] = base + 8 * l;
  a.instr = instr;
  return a;
}

TEST(Regroup, MergesMembersAndFallsBackOnMismatch) {
  emu::InstrInfo lo, hi;
  lo.pc = 0;
  hi.pc = 1;
  KernelMap map;
  map.parts.resize(2);
  map.groups.push_back({});
  map.groups[0].info.pc = 2;
  map.groups[0].width = 8;
  map.groups[0].members = 2;
  map.parts[0].push_back({0, 0, 8, 0});
  map.parts[1].push_back({0, -4, 8, 1});
  Recorder rec;
  Regroup r(&rec, &map);
  auto b = r.make_block_observer({0, 0, 0});
  b->on_memory(access(&lo, 0));
  b->on_memory(access(&hi, 4));  // completes: one 8-byte request
  b->on_memory(access(&lo, 0));
  b->on_memory(access(&hi, 4, 0xffu));  // other lanes: lo at PTX level, hi waits
  b->on_memory(access(&lo, 0));         // hi at PTX level; lo never completes: at block end
  b->on_block_end({0, 0, 0});
  r.finish_block({0, 0, 0}, std::move(b));
  ASSERT_EQ(rec.got.size(), 4u);
  EXPECT_EQ(rec.got[0].width, 8u);
  EXPECT_EQ(rec.got[0].instr->pc, 2u);
  EXPECT_EQ(rec.got[0].addr[3], 24u);
  EXPECT_EQ(rec.got[1].instr, &lo);
  EXPECT_EQ(rec.got[1].width, 4u);
  EXPECT_EQ(rec.got[2].instr, &hi);
  EXPECT_EQ(rec.got[3].instr, &lo);
  EXPECT_EQ(r.fallbacks(), 3u);  // three incomplete groups, one member each
}

}  // namespace
}  // namespace smemlab::sass
