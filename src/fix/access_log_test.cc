#include "fix/access_log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

namespace smemlab::fix {
namespace {

std::string temp_name() {
  char name[] = "/tmp/smemlab-access-log-XXXXXX";
  int fd = mkstemp(name);
  close(fd);
  std::remove(name);
  return name;
}

TEST(AccessLog, LaunchesRoundTrip) {
  std::string path = temp_name();
  LoggedLaunch l;
  l.index = 7;
  l.kernel = "_Z4tilePf";
  l.module = "./app (fatbin 0)";
  l.module_serial = 1;
  l.ptx_sm = 90;
  l.grid = {4, 2, 1};
  l.block = {32, 8, 1};
  l.dynamic_shared = 4224;
  SharedAccess a;
  a.pc = 12;
  a.request.op = bank::Op::Store;
  a.request.width = 8;
  a.request.mask = 0x80000001u;
  a.request.addr[0] = 128;
  a.request.addr[31] = 4096;
  a.count = 99;
  l.accesses = {a, a};
  l.accesses[1].pc = 13;
  append_launch(path, l);
  l.index = 9;
  l.accesses.clear();
  append_launch(path, l);
  auto got = read_launches(path);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].index, 7u);
  EXPECT_EQ(got[0].kernel, "_Z4tilePf");
  EXPECT_EQ(got[0].module, "./app (fatbin 0)");
  EXPECT_EQ(got[0].grid, (emu::Dim3{4, 2, 1}));
  EXPECT_EQ(got[0].block, (emu::Dim3{32, 8, 1}));
  EXPECT_EQ(got[0].dynamic_shared, 4224u);
  ASSERT_EQ(got[0].accesses.size(), 2u);
  EXPECT_EQ(got[0].accesses[1].pc, 13u);
  EXPECT_EQ(got[0].accesses[0].request.op, bank::Op::Store);
  EXPECT_EQ(got[0].accesses[0].request.width, 8u);
  EXPECT_EQ(got[0].accesses[0].request.mask, 0x80000001u);
  EXPECT_EQ(got[0].accesses[0].request.addr[31], 4096u);
  EXPECT_EQ(got[0].accesses[0].count, 99u);
  EXPECT_EQ(got[1].index, 9u);
  EXPECT_TRUE(got[1].accesses.empty());
  std::remove(path.c_str());
}

TEST(AccessLog, CutShortFileIsAnError) {
  std::string path = temp_name();
  LoggedLaunch l;
  l.kernel = "k";
  l.accesses.resize(1);
  append_launch(path, l);
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() - 3);
  EXPECT_THROW(read_launches(path), LogError);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << "not a record";
  EXPECT_THROW(read_launches(path), LogError);
  std::remove(path.c_str());
}

TEST(AccessLog, SnapshotsFindTheFirstDifferentChunk) {
  std::vector<uint8_t> a(1000, 1), b = a;
  b[700] = 2;
  Snapshot x{3, {hash_region("allocation #0", a.data(), a.size())}};
  Snapshot y{3, {hash_region("allocation #0", b.data(), b.size())}};
  EXPECT_EQ(x.regions[0].chunks.size(), 4u);
  EXPECT_EQ(compare_snapshots({x}, {x}), "");
  EXPECT_EQ(compare_snapshots({x}, {y}),
            "after launch 3, allocation #0 (1000 bytes) differs from the original's, first "
            "within bytes [512, 768)");
  EXPECT_NE(compare_snapshots({x}, {}), "");
  std::string path = temp_name();
  append_snapshot(path, x);
  append_snapshot(path, y);
  auto got = read_snapshots(path);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(compare_snapshots({got[0]}, {x}), "");
  EXPECT_EQ(compare_snapshots({got[1]}, {y}), "");
  EXPECT_NE(compare_snapshots({got[0]}, {got[1]}), "");
  std::remove(path.c_str());
}

}  // namespace
}  // namespace smemlab::fix
