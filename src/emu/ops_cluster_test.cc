// Cluster and Hopper control instructions, one PTX snippet each, against
// values worked out by hand from the PTX ISA (9.0): special registers,
// mapa, ld/st/atom/red.shared::cluster, barrier.cluster, mbarriers of a
// peer block, elect.sync, fence/griddepcontrol/setmaxnreg forms, multimem.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "emu/launch.h"
#include "emu/memory.h"
#include "emu/snippet_test_util.h"

namespace smemlab::emu::test {
namespace {

struct ClusterRun {
  bool ok = false;
  std::string error;
  FaultKind kind = FaultKind::Internal;
  std::vector<uint64_t> slots;  // 8 per thread, threads of all blocks in block order
  uint64_t at(uint32_t thread, int slot) const { return slots[thread * 8 + slot]; }
};

// Runs `body` (the run_snippet conventions: %rd14 = this thread's 8 slots,
// %r15 = %tid.x) in a grid of `grid` blocks of `threads` threads, in
// clusters of `cluster` (explicit unless 1x1x1 and !explicit_cluster), with
// 256 bytes of static shared memory `sm` (u32 words) and a shared u64 `bar`.
ClusterRun run_cluster(const std::string& body, Dim3 grid, Dim3 cluster, uint32_t threads = 32,
                       bool explicit_cluster = true, Schedule schedule = {}) {
  std::string text =
      ".version 9.0\n.target sm_90a\n.address_size 64\n"
      ".visible .entry t(.param .u64 out)\n{\n"
      "  .reg .pred %p<16>;\n  .reg .b32 %r<16>;\n  .reg .b64 %rd<16>;\n"
      "  .shared .align 8 .b8 sm[256];\n  .shared .align 8 .b64 bar;\n"
      "  ld.param.u64 %rd0, [out];\n  mov.u32 %r15, %tid.x;\n"
      "  mov.u32 %r14, %ctaid.x;\n  mov.u32 %r13, %ntid.x;\n  mad.lo.u32 %r14, %r14, %r13, %r15;\n"
      "  mul.wide.u32 %rd15, %r14, 64;\n  add.s64 %rd14, %rd0, %rd15;\n" +
      body + "\n  ret;\n}\n";
  Device dev;
  ClusterRun r;
  std::unique_ptr<Module> m;
  try {
    m = Module::load_text(dev, text, "cluster.ptx");
    m->kernel("t");
  } catch (const std::exception& e) {
    r.error = e.what();
    return r;
  }
  const uint64_t n = grid.count() * threads;
  uint64_t out = dev.malloc(n * 64);
  LaunchConfig cfg{grid, {threads}};
  cfg.budget = 200000;
  cfg.cluster = cluster;
  cfg.explicit_cluster = explicit_cluster;
  cfg.schedule = schedule;
  auto st = launch(*m, "t", cfg, out);
  if (!st.ok()) {
    r.error = st.error->what();
    r.kind = st.error->kind;
    return r;
  }
  r.slots.resize(n * 8);
  dev.copy_from(r.slots.data(), out, r.slots.size() * 8);
  r.ok = true;
  return r;
}

#define RUN_OK(r) ASSERT_TRUE((r).ok) << (r).error

TEST(Cluster, SpecialRegisters) {
  const char* body = R"(
  mov.u32 %r1, %cluster_ctarank;     st.global.u32 [%rd14], %r1;
  mov.u32 %r1, %cluster_nctarank;    st.global.u32 [%rd14+4], %r1;
  mov.u32 %r1, %clusterid.x;         st.global.u32 [%rd14+8], %r1;
  mov.u32 %r1, %clusterid.y;         st.global.u32 [%rd14+12], %r1;
  mov.u32 %r1, %nclusterid.x;        st.global.u32 [%rd14+16], %r1;
  mov.u32 %r1, %nclusterid.y;        st.global.u32 [%rd14+20], %r1;
  mov.u32 %r1, %cluster_ctaid.x;     st.global.u32 [%rd14+24], %r1;
  mov.u32 %r1, %cluster_ctaid.y;     st.global.u32 [%rd14+28], %r1;
  mov.u32 %r1, %cluster_nctaid.x;    st.global.u32 [%rd14+32], %r1;
  mov.u32 %r1, %cluster_nctaid.y;    st.global.u32 [%rd14+36], %r1;
  mov.u32 %r1, %cluster_nctaid.z;    st.global.u32 [%rd14+40], %r1;
  mov.u32 %r1, %clusterid.z;         st.global.u32 [%rd14+44], %r1;
  mov.u32 %r1, %nclusterid.z;        st.global.u32 [%rd14+48], %r1;
  mov.u32 %r1, %cluster_ctaid.z;     st.global.u32 [%rd14+52], %r1;
  mov.pred %p1, %is_explicit_cluster; selp.u32 %r1, 1, 0, %p1; st.global.u32 [%rd14+56], %r1;
  mov.u32 %r1, %ctaid.y;             st.global.u32 [%rd14+60], %r1;)";
  // Grid (6,1,1) in clusters of (3,1,1) (the harness indexes threads by
  // %ctaid.x; tests/emu/cluster_kernels_test.cc covers y and z).
  ClusterRun r = run_cluster(body, {6, 1, 1}, {3, 1, 1}, 1);
  RUN_OK(r);
  for (uint32_t b = 0; b < 6; ++b) {
    auto u = [&](int slot, int half) {
      return static_cast<uint32_t>(r.at(b, slot) >> (32 * half));
    };
    SCOPED_TRACE(b);
    EXPECT_EQ(u(0, 0), b % 3);  // rank
    EXPECT_EQ(u(0, 1), 3u);     // nctarank
    EXPECT_EQ(u(1, 0), b / 3);  // clusterid.x
    EXPECT_EQ(u(1, 1), 0u);
    EXPECT_EQ(u(2, 0), 2u);  // nclusterid.x
    EXPECT_EQ(u(2, 1), 1u);
    EXPECT_EQ(u(3, 0), b % 3);  // cluster_ctaid.x
    EXPECT_EQ(u(3, 1), 0u);
    EXPECT_EQ(u(4, 0), 3u);  // cluster_nctaid
    EXPECT_EQ(u(4, 1), 1u);
    EXPECT_EQ(u(5, 0), 1u);
    EXPECT_EQ(u(5, 1), 0u);  // clusterid.z
    EXPECT_EQ(u(6, 0), 1u);  // nclusterid.z
    EXPECT_EQ(u(6, 1), 0u);
    EXPECT_EQ(u(7, 0), 1u);  // explicit
  }
  // A plain launch: a grid of 1x1x1 clusters, not explicit.
  r = run_cluster(body, {3, 1, 1}, {1, 1, 1}, 1, false);
  RUN_OK(r);
  for (uint32_t b = 0; b < 3; ++b) {
    auto u = [&](int slot, int half) {
      return static_cast<uint32_t>(r.at(b, slot) >> (32 * half));
    };
    EXPECT_EQ(u(0, 0), 0u);
    EXPECT_EQ(u(0, 1), 1u);
    EXPECT_EQ(u(1, 0), b);
    EXPECT_EQ(u(2, 0), 3u);
    EXPECT_EQ(u(3, 0), 0u);
    EXPECT_EQ(u(4, 0), 1u);
    EXPECT_EQ(u(7, 0), 0u);
  }
}

TEST(Cluster, MapaAndRemoteLoadsStoresAtomics) {
  // Each block stores 1000 * rank + tid in its own sm[tid], syncs, then
  // reads the peer's word through mapa.shared::cluster + ld.shared::cluster
  // and through generic mapa + ld, adds 1 to the peer's word with
  // atom.shared::cluster and red, syncs, and reads its own word back.
  const char* body = R"(
  mov.u32 %r1, %cluster_ctarank;
  mul.lo.u32 %r2, %r1, 1000;  add.u32 %r2, %r2, %r15;
  mov.u32 %r3, sm;  shl.b32 %r4, %r15, 2;  add.u32 %r3, %r3, %r4;
  st.shared.u32 [%r3], %r2;
  barrier.cluster.arrive;  barrier.cluster.wait;
  xor.b32 %r5, %r1, 1;
  mapa.shared::cluster.u32 %r6, %r3, %r5;
  ld.shared::cluster.u32 %r7, [%r6];
  st.global.u32 [%rd14], %r7;
  st.global.u32 [%rd14+4], %r6;
  mov.u64 %rd2, sm;  cvta.shared.u64 %rd1, %rd2;  mul.wide.u32 %rd3, %r4, 1;  add.s64 %rd1, %rd1, %rd3;
  mapa.u64 %rd4, %rd1, %r5;
  ld.u32 %r8, [%rd4];
  st.global.u32 [%rd14+8], %r8;
  atom.shared::cluster.add.u32 %r9, [%r6], 1;
  st.global.u32 [%rd14+12], %r9;
  red.shared::cluster.add.u32 [%r6], 10;
  barrier.cluster.arrive;  barrier.cluster.wait;
  ld.shared.u32 %r10, [%r3];
  st.global.u32 [%rd14+16], %r10;
  sub.s64 %rd5, %rd4, %rd1;
  st.global.u64 [%rd14+24], %rd5;)";
  ClusterRun r = run_cluster(body, {4, 1, 1}, {2, 1, 1}, 32);
  RUN_OK(r);
  for (uint32_t b = 0; b < 4; ++b)
    for (uint32_t t = 0; t < 32; ++t) {
      SCOPED_TRACE(testing::Message() << "block " << b << " thread " << t);
      const uint32_t rank = b % 2, peer = rank ^ 1, i = b * 32 + t;
      const uint64_t s0 = r.at(i, 0), s1 = r.at(i, 1), s2 = r.at(i, 2);
      EXPECT_EQ(static_cast<uint32_t>(s0), 1000 * peer + t);
      // The shared::cluster address: (peer + 1) << 24 | offset of sm[t].
      EXPECT_EQ(static_cast<uint32_t>(s0 >> 32) & ~0xffffffu, (peer + 1) << 24);
      EXPECT_EQ(static_cast<uint32_t>(s1), 1000 * peer + t);        // generic mapa + ld
      EXPECT_EQ(static_cast<uint32_t>(s1 >> 32), 1000 * peer + t);  // atom's old value
      EXPECT_EQ(static_cast<uint32_t>(s2), 1000 * rank + t + 11);   // +1 and +10 by the peer
      EXPECT_EQ(r.at(i, 3), uint64_t{peer + 1} << 24);  // generic mapa: same offset, rank bits
    }
}

TEST(Cluster, RemoteAccessFaults) {
  // A rank beyond the cluster; an offset past the peer's shared memory.
  ClusterRun r = run_cluster(R"(
  mov.u32 %r1, sm;  mapa.shared::cluster.u32 %r2, %r1, 1;
  add.u32 %r2, %r2, 0x1000000;
  ld.shared::cluster.u32 %r3, [%r2];)",
                             {2, 1, 1}, {2, 1, 1}, 32);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.kind, FaultKind::OutOfBounds);
  EXPECT_NE(r.error.find("block rank 2) is outside the cluster of 2 blocks"), std::string::npos)
      << r.error;
  r = run_cluster(R"(
  mov.u32 %r1, sm;  mapa.shared::cluster.u32 %r2, %r1, 1;
  ld.shared::cluster.u32 %r3, [%r2+272];)",
                  {2, 1, 1}, {2, 1, 1}, 32);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.kind, FaultKind::OutOfBounds);
  EXPECT_NE(r.error.find("offset 272 of block rank 1 (block (1,0,0)) is outside its 272 bytes"),
            std::string::npos)
      << r.error;
  // mapa itself does not check the rank (nor does the GPU's); the access does.
  r = run_cluster(R"(
  mov.u32 %r1, sm;  mapa.shared::cluster.u32 %r2, %r1, 5;
  st.global.u32 [%rd14], %r2;
  mov.u32 %r3, %cluster_ctarank;  setp.eq.u32 %p1, %r3, 1;
  @%p1 st.shared::cluster.u32 [%r2+8], %r1;)",
                  {2, 1, 1}, {2, 1, 1});
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("shared::cluster store of 4 bytes at 0x6000008 (offset 8 of block rank "
                         "5) is outside the cluster of 2 blocks"),
            std::string::npos)
      << r.error;
  EXPECT_NE(r.error.find("block (1,0,0)"), std::string::npos) << r.error;
}

TEST(Cluster, PeerThatExitedIsAFault) {
  // Rank 1 exits at once; rank 0 spins a while, then stores into rank 1.
  ClusterRun r = run_cluster(R"(
  mov.u32 %r1, %cluster_ctarank;
  setp.eq.u32 %p1, %r1, 1;
  @%p1 bra END;
  mov.u32 %r2, 0;
LOOP:
  add.u32 %r2, %r2, 1;
  st.global.u32 [%rd14], %r2;
  setp.lt.u32 %p2, %r2, 100;
  @%p2 bra LOOP;
  mov.u32 %r3, sm;  mapa.shared::cluster.u32 %r4, %r3, 1;
  st.shared::cluster.u32 [%r4], %r2;
END:)",
                             {2, 1, 1}, {2, 1, 1}, 32);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.kind, FaultKind::ClusterExit);
  EXPECT_NE(r.error.find("block rank 1 (block (1,0,0)), which has exited"), std::string::npos)
      << r.error;
}

TEST(Cluster, BarrierOrdersEveryBlockUnderEverySchedule) {
  // Phase by phase: each thread adds 1 to word 0 of every block's sm
  // (atom.shared::cluster), then the cluster barrier; after the barrier
  // every block's word is the cluster's thread count times the phase.
  const char* body = R"(
  mov.u32 %r1, sm;  mov.u32 %r2, %cluster_nctarank;  mov.u32 %r3, 0;
PHASE:
  mov.u32 %r4, 0;
RANKS:
  mapa.shared::cluster.u32 %r5, %r1, %r4;
  red.shared::cluster.add.u32 [%r5], 1;
  add.u32 %r4, %r4, 1;
  setp.lt.u32 %p1, %r4, %r2;
  @%p1 bra RANKS;
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  ld.shared.u32 %r6, [%r1];
  st.global.u32 [%rd14], %r6;
  barrier.cluster.arrive.relaxed;
  barrier.cluster.wait;
  add.u32 %r3, %r3, 1;
  setp.lt.u32 %p2, %r3, 3;
  @%p2 bra PHASE;)";
  for (const char* s : {"gpu", "serial", "random:3"}) {
    SCOPED_TRACE(s);
    ClusterRun r = run_cluster(body, {8, 1, 1}, {4, 1, 1}, 64, true, *parse_schedule(s));
    RUN_OK(r);
    for (uint32_t i = 0; i < 8 * 64; ++i) ASSERT_EQ(r.at(i, 0), 3u * 4 * 64) << i;
  }
}

TEST(Cluster, BarrierMisuseAndDeadlock) {
  ClusterRun r = run_cluster("barrier.cluster.wait;", {2, 1, 1}, {2, 1, 1});
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("barrier.cluster.wait without a barrier.cluster.arrive"),
            std::string::npos)
      << r.error;
  r = run_cluster("barrier.cluster.arrive; barrier.cluster.arrive;", {2, 1, 1}, {2, 1, 1});
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("arrive again before barrier.cluster.wait"), std::string::npos) << r.error;
  r = run_cluster(R"(
  setp.lt.u32 %p1, %r15, 16;
  @%p1 barrier.cluster.arrive.aligned;)",
                  {2, 1, 1}, {2, 1, 1});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.kind, FaultKind::Divergent);
  // Rank 1's thread 0 waits at bar.sync for its block, whose other threads
  // wait in the cluster barrier for it.
  r = run_cluster(R"(
  mov.u32 %r1, %cluster_ctarank;
  setp.eq.u32 %p1, %r1, 1;
  setp.eq.u32 %p2, %r15, 0;
  and.pred %p3, %p1, %p2;
  @%p3 bra SKIP;
  barrier.cluster.arrive;
  barrier.cluster.wait;
SKIP:
  bar.sync 0;)",
                  {2, 1, 1}, {2, 1, 1}, 64);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.kind, FaultKind::Deadlock);
  for (const char* part :
       {"no warp of the cluster of 2 blocks can make progress",
        "block rank 0 (block (0,0,0)) warp 0 lanes 0xffffffff wait at barrier.cluster.wait",
        "[127 of 128 threads of the cluster arrived]",
        "block rank 1 (block (1,0,0)) warp 0 lanes 0x00000001 wait at bar.sync",
        "[1 of 64 threads arrived]"})
    EXPECT_NE(r.error.find(part), std::string::npos) << part << "\n" << r.error;
  // A thread that exits no longer counts: the others complete the barrier.
  r = run_cluster(R"(
  setp.eq.u32 %p1, %r15, 3;
  @%p1 exit;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  st.global.u32 [%rd14], 5;)",
                  {2, 1, 1}, {2, 1, 1});
  RUN_OK(r);
  EXPECT_EQ(r.at(0, 0), 5u);
}

TEST(Cluster, RemoteMbarrierArriveAndClusterTryWait) {
  // Thread 0 of each block inits its barrier for 1 arrival; after the
  // cluster barrier, thread 0 arrives on the peer's barrier through mapa;
  // everyone waits (try_wait.parity with .cluster scope) on its own.
  ClusterRun r = run_cluster(R"(
  mov.u32 %r1, bar;  mov.u32 %r2, %cluster_ctarank;  xor.b32 %r3, %r2, 1;
  setp.eq.u32 %p1, %r15, 0;
  @%p1 mbarrier.init.shared::cta.b64 [%r1], 1;
  fence.mbarrier_init.release.cluster;
  barrier.cluster.arrive.release;  barrier.cluster.wait.acquire;
  mapa.shared::cluster.u32 %r4, %r1, %r3;
  @%p1 mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r4];
WAIT:
  mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p2, [%r1], 0;
  @!%p2 bra WAIT;
  st.global.u32 [%rd14], 9;
  barrier.cluster.arrive;  barrier.cluster.wait;)",
                             {2, 1, 1}, {2, 1, 1}, 64);
  RUN_OK(r);
  for (uint32_t i = 0; i < 128; ++i) EXPECT_EQ(r.at(i, 0), 9u) << i;
}

TEST(Cluster, ElectSync) {
  // Full mask: lane 0 leads. Odd lanes only (member mask 0xaaaaaaaa,
  // executed by the odd lanes): lane 1. A sink destination.
  auto r = run_snippet(R"(
  elect.sync %r1|%p1, 0xffffffff;
  selp.u32 %r2, 1, 0, %p1;
  st.global.u32 [%rd14], %r1;  st.global.u32 [%rd14+4], %r2;
  and.b32 %r3, %r15, 1;
  setp.eq.u32 %p2, %r3, 1;
  @!%p2 bra SKIP;
  elect.sync _|%p3, 0xaaaaaaaa;
  selp.u32 %r4, 1, 0, %p3;
  st.global.u32 [%rd14+8], %r4;
SKIP:)",
                       32);
  SNIPPET_OK(r);
  for (int l = 0; l < 32; ++l) {
    EXPECT_EQ(r.u32(0, l), 0u) << l;
    EXPECT_EQ(r.at(l, 0) >> 32, l == 0 ? 1u : 0u) << l;
    EXPECT_EQ(r.u32(1, l), l == 1 ? 1u : 0u) << l;
  }
  EXPECT_NE(run_snippet("elect.sync.b32 %r1|%p1, 0xffffffff;")
                .error.find("unsupported instruction 'elect.sync.b32'"),
            std::string::npos);
}

TEST(Cluster, ControlInstructionsAcceptedAndRefused) {
  SNIPPET_OK(run_snippet(R"(
  griddepcontrol.wait;  griddepcontrol.launch_dependents;
  fence.proxy.async;  fence.proxy.async.shared::cta;  fence.proxy.async.shared::cluster;
  fence.proxy.async.global;  fence.mbarrier_init.release.cluster;  fence.acq_rel.cluster;
  fence.sc.gpu;  fence.proxy.alias;  membar.gl;
  setmaxnreg.inc.sync.aligned.u32 240;  setmaxnreg.dec.sync.aligned.u32 24;)"));
  struct Bad {
    const char* text;
    const char* error;
  } bad[] = {
      {"griddepcontrol.signal;", "unsupported instruction 'griddepcontrol.signal'"},
      {"fence.proxy.async.local;", "unsupported instruction 'fence.proxy.async.local'"},
      {"fence.mbarrier_init.release.gpu;", "unsupported instruction 'fence.mbarrier_init"},
      {"fence.acq_rel.warp;", "unsupported instruction 'fence.acq_rel.warp'"},
      {"setmaxnreg.inc.sync.aligned.u32 20;", "from 24 to 256, a multiple of 8"},
      {"setmaxnreg.inc.sync.aligned.u32 100;", "from 24 to 256, a multiple of 8"},
      {"setmaxnreg.inc.u32 240;", "unsupported instruction 'setmaxnreg.inc.u32'"},
      {"multimem.ld_reduce.relaxed.sys.global.add.u32 %r1, [%rd1];",
       "unsupported instruction 'multimem.ld_reduce.relaxed.sys.global.add.u32': multimem"},
      {"mapa.u32 %r1, %r2, 0;", "unsupported instruction 'mapa.u32'"},
      {"barrier.cluster.sync;", "unsupported instruction 'barrier.cluster.sync'"},
      {"barrier.cluster.arrive.acquire;", "unsupported instruction 'barrier.cluster.arrive.acq"},
      {"barrier.cluster.wait.release;", "unsupported instruction 'barrier.cluster.wait.release'"},
  };
  for (const Bad& b : bad) {
    auto r = run_snippet(b.text);
    EXPECT_FALSE(r.ok) << b.text;
    EXPECT_NE(r.error.find(b.error), std::string::npos) << b.text << ": " << r.error;
    EXPECT_NE(r.error.find("snippet.ptx:"), std::string::npos) << r.error;
  }
}

TEST(Cluster, SetmaxnregIsRecorded) {
  Device dev;
  auto m = Module::load_text(dev, R"(.version 9.0
.target sm_90a
.address_size 64
.visible .entry k()
{
  setmaxnreg.dec.sync.aligned.u32 40;
  setmaxnreg.inc.sync.aligned.u32 232;
  ret;
}
)",
                             "k.ptx");
  const Program& p = m->kernel("k");
  ASSERT_EQ(p.setmaxnreg.size(), 2u);
  EXPECT_EQ(p.setmaxnreg[0].second, -40);
  EXPECT_EQ(p.setmaxnreg[1].second, 232);
  EXPECT_LT(p.setmaxnreg[0].first, p.setmaxnreg[1].first);
}

TEST(Cluster, LaunchShapesChecked) {
  ClusterRun r = run_cluster("", {3, 1, 1}, {2, 1, 1});
  EXPECT_NE(r.error.find("grid (3,1,1) is not a whole number of clusters of (2,1,1) blocks"),
            std::string::npos)
      << r.error;
  r = run_cluster("", {32, 1, 1}, {32, 1, 1});
  EXPECT_NE(r.error.find("a cluster of (32,1,1) = 32 blocks: CUDA allows 1 to 16"),
            std::string::npos)
      << r.error;
  // 16 (the non-portable maximum) runs.
  r = run_cluster("barrier.cluster.arrive; barrier.cluster.wait;", {16, 2, 1}, {16, 1, 1});
  RUN_OK(r);
}

}  // namespace
}  // namespace smemlab::emu::test
