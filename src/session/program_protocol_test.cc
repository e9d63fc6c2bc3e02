#include "session/program_protocol.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace smemlab::session::protocol {
namespace {

// A file in /tmp removed at the end of the test.
struct TempFile {
  std::string path;
  TempFile() {
    char name[] = "/tmp/smemlab-protocol-test-XXXXXX";
    int fd = mkstemp(name);
    if (fd >= 0) close(fd);
    path = name;
  }
  ~TempFile() { std::remove(path.c_str()); }
  void write(const std::string& text) const { std::ofstream(path, std::ios::trunc) << text; }
};

TEST(ProgramProtocol, StatusRoundTrips) {
  ProgramStatus s;
  s.finished = true;
  s.launches = 9;
  s.analyzed = 4;
  s.findings = 3;
  s.api_errors = 2;
  s.failed_kernels = 1;
  s.excess_wavefronts = 77;
  s.library_calls = {{"cublasSgemm_v2", 3}, {"cufftExecC2C", 1}};
  TempFile f;
  f.write(status_json(s).dump() + "\n");
  ProgramStatus back;
  ASSERT_TRUE(read_status(f.path, &back));
  EXPECT_EQ(status_json(back), status_json(s));
  EXPECT_EQ(back.library_calls.at("cublasSgemm_v2"), 3u);
}

TEST(ProgramProtocol, StatusOfAProgramThatNeverLoadedTheDriverOrCrashed) {
  ProgramStatus back;
  EXPECT_FALSE(read_status("/nonexistent/smemlab-status", &back));
  TempFile f;
  f.write("{\"launches\": 3, \"anal");  // cut short mid-write
  back.launches = 5;
  ASSERT_TRUE(read_status(f.path, &back));
  EXPECT_EQ(back.launches, 0u);
}

TEST(ProgramProtocol, RecordsComeBackWholeAndInOrder) {
  report::RunInfo run;
  run.kernel = "k";
  check::Finding race;
  race.kind = check::FindingKind::Race;
  race.message = "RAW";
  check::Involved write;
  write.role = "write";
  write.where.file = "k.cu";
  write.where.line = 3;
  write.instr = "st.shared.u32";
  race.involved.push_back(write);
  TempFile f;
  f.write(report::check_launch_json(run, 1, {race}, 0).dump() + "\n" +
          report::check_launch_json(run, 1, {}, 2).dump() + "\n" +
          "{\"kernel\": \"k\", \"find");  // the last one cut short by a crash
  std::vector<report::CheckedLaunch> got = read_records(f.path);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].launch, 0);
  ASSERT_EQ(got[0].findings.size(), 1u);
  EXPECT_EQ(got[0].findings[0].involved[0].instr, "st.shared.u32");
  EXPECT_EQ(got[1].launch, 2);
  // A complete line of another shape is no launch record: an error, not a skip.
  f.write("{\"kernel\": \"k\"}\n");
  EXPECT_THROW(read_records(f.path), std::exception);
  EXPECT_TRUE(read_records("/nonexistent/smemlab-records").empty());
}

TEST(ProgramProtocol, ApiErrorLinesAreNotLaunchRecords) {
  check::Finding bad;
  bad.kind = check::FindingKind::DoubleFree;
  bad.severity = check::Severity::Error;
  bad.message = "cudaFree(0x10): the allocation was already freed";
  TempFile f;
  f.write(report::check_launch_json(report::RunInfo{}, 1, {}, 0).dump() + "\n" +
          report::api_error_json(bad).dump() + "\n");
  EXPECT_EQ(read_records(f.path).size(), 1u);
  std::vector<check::Finding> api = read_api_errors(f.path);
  ASSERT_EQ(api.size(), 1u);
  EXPECT_EQ(api[0].kind, check::FindingKind::DoubleFree);
  EXPECT_EQ(api[0].message, bad.message);
}

}  // namespace
}  // namespace smemlab::session::protocol
