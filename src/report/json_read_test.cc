#include <gtest/gtest.h>

#include <set>
#include <string>

#include "report/report.h"

namespace smemlab::report {
namespace {

check::Involved involved(const char* role, const char* file, int line, int ptx_line,
                         const char* instr, uint32_t thread) {
  check::Involved v;
  v.role = role;
  v.where.file = file;
  v.where.line = line;
  v.ptx_line = ptx_line;
  v.instr = instr;
  v.block = {2, 1, 0};
  v.thread = thread;
  return v;
}

check::Finding sample_finding() {
  check::Finding f;
  f.kind = check::FindingKind::WarpRace;
  f.severity = check::Severity::Warning;
  f.message = "lanes 3 and 7 write word 12";
  f.where = {"k.cu", 41};
  f.count = 5;
  f.involved.push_back(involved("write", "k.cu", 41, 120, "st.shared.u32", 35));
  f.involved.push_back(involved("read", "inc.h", 9, 131, "ld.shared.u32", 39));
  return f;
}

// The reader is the exact inverse of the writer: every field of a launch
// and its findings comes back (program mode's findings cross a process
// boundary this way).
TEST(JsonRead, CheckLaunchRoundTrips) {
  RunInfo run;
  run.kernel = "void tile<32>(float*)";
  run.mangled = "_Z4tileILi32EEvPf";
  run.source = "app.cubin";
  run.grid = {4, 2, 1};
  run.block = {128, 1, 1};
  run.dynamic_shared = 4096;
  run.blocks_total = 8;
  std::vector<check::Finding> findings = {sample_finding()};
  findings.push_back(sample_finding());
  findings.back().kind = check::FindingKind::Assert;
  findings.back().severity = check::Severity::Error;
  findings.back().involved.clear();
  const nlohmann::json written = check_launch_json(run, 3, findings, 17);
  CheckedLaunch back = read_check_launch(written);
  EXPECT_EQ(back.launch, 17);
  EXPECT_EQ(back.blocks_checked, 3u);
  EXPECT_EQ(back.run.kernel, run.kernel);
  EXPECT_EQ(back.run.grid, run.grid);
  ASSERT_EQ(back.findings.size(), 2u);
  EXPECT_EQ(back.findings[0].kind, check::FindingKind::WarpRace);
  EXPECT_EQ(back.findings[0].involved[1].where.file, "inc.h");
  EXPECT_EQ(back.findings[0].involved[1].thread, 39u);
  // Whole: written again, the record is the same.
  EXPECT_EQ(check_launch_json(back.run, back.blocks_checked, back.findings, back.launch), written);
  // Kernel mode has no launch index.
  EXPECT_EQ(read_check_launch(check_launch_json(run, 3, findings)).launch, -1);
}

TEST(JsonRead, RefusesWhatTheWriterNeverWrites) {
  nlohmann::json f = findings_json({sample_finding()});
  nlohmann::json bad = f;
  bad[0]["kind"] = "no-such-kind";
  EXPECT_THROW(read_findings(bad), std::exception);
  bad = f;
  bad[0]["severity"] = "fatal";
  EXPECT_THROW(read_findings(bad), std::exception);
  bad = f;
  bad[0].erase("accesses");
  EXPECT_THROW(read_findings(bad), std::exception);
  EXPECT_EQ(read_findings(f).size(), 1u);
}

// Program mode's SARIF: one run, a result per finding of every launch, each
// naming its launch, every ruleId declared.
TEST(JsonRead, ProgramSarifNamesEachResultsLaunch) {
  CheckedLaunch a, b;
  a.launch = 0;
  a.run.kernel = "first";
  a.run.grid = {1, 1, 1};
  a.findings = {sample_finding()};
  b.launch = 4;
  b.run.kernel = "second";
  b.run.block = {64, 1, 1};
  b.findings = {sample_finding(), sample_finding()};
  b.findings[1].kind = check::FindingKind::Trap;
  nlohmann::json log = program_check_sarif({a, b}, {"./app", "--n", "3"});
  ASSERT_EQ(log["runs"].size(), 1u);
  const nlohmann::json& run = log["runs"][0];
  ASSERT_EQ(run["results"].size(), 3u);
  EXPECT_EQ(run["results"][0]["properties"]["launch"], 0);
  EXPECT_EQ(run["results"][2]["properties"]["launch"], 4);
  EXPECT_EQ(run["results"][2]["properties"]["kernel"], "second");
  EXPECT_EQ(run["results"][2]["properties"]["block"], nlohmann::json::array({64, 1, 1}));
  EXPECT_EQ(run["results"][2]["ruleId"], "trap");
  EXPECT_EQ(run["results"][1]["locations"][0]["logicalLocations"][0]["name"], "second");
  EXPECT_EQ(run["properties"]["program"], nlohmann::json::array({"./app", "--n", "3"}));
  std::set<std::string> rules;
  for (const auto& r : run["tool"]["driver"]["rules"]) rules.insert(r["id"].get<std::string>());
  for (const auto& r : run["results"]) EXPECT_TRUE(rules.count(r["ruleId"].get<std::string>()));
}

TEST(JsonRead, ApiErrorRoundTripsAndIsAResultOfItsRule) {
  check::Finding leak;
  leak.kind = check::FindingKind::Leak;
  leak.severity = check::Severity::Error;
  leak.message = "device allocation of 256 bytes at 0x10 was not freed before exit";
  nlohmann::json j = api_error_json(leak);
  std::optional<check::Finding> back = read_api_error(j);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->kind, check::FindingKind::Leak);
  EXPECT_EQ(back->message, leak.message);
  EXPECT_EQ(back->severity, check::Severity::Error);
  // A launch record is not an API error.
  EXPECT_FALSE(read_api_error(check_launch_json(RunInfo{}, 1, {}, 0)).has_value());
  nlohmann::json log = program_check_sarif({}, {"./app"}, {leak});
  const nlohmann::json& run = log["runs"][0];
  ASSERT_EQ(run["results"].size(), 1u);
  EXPECT_EQ(run["results"][0]["ruleId"], "leak");
  EXPECT_EQ(run["results"][0]["properties"]["api"], true);
  EXPECT_FALSE(run["results"][0].contains("locations"));
  EXPECT_EQ(run["properties"]["api_errors"], 1);
  bool declared = false;
  for (const auto& r : run["tool"]["driver"]["rules"]) declared |= r["id"] == "leak";
  EXPECT_TRUE(declared);
}

TEST(JsonRead, ProgramAnalyzeSarifJoinsTheLaunchesResults) {
  nlohmann::json first =
      nlohmann::json::array({{{"ruleId", "bank-conflict"}, {"properties", {{"launch", 0}}}}});
  nlohmann::json second =
      nlohmann::json::array({{{"ruleId", "race"}, {"properties", {{"launch", 3}}}},
                             {{"ruleId", "uncoalesced"}, {"properties", {{"launch", 3}}}}});
  nlohmann::json log = program_analyze_sarif({first, second}, {"./app"});
  const nlohmann::json& run = log["runs"][0];
  ASSERT_EQ(run["results"].size(), 3u);
  EXPECT_EQ(run["results"][1]["ruleId"], "race");
  EXPECT_EQ(run["properties"]["launches_analyzed"], 2);
  std::set<std::string> rules;
  for (const auto& r : run["tool"]["driver"]["rules"]) rules.insert(r["id"].get<std::string>());
  for (const char* id : {"bank-conflict", "uncoalesced", "divergent-branch", "race", "leak"})
    EXPECT_TRUE(rules.count(id)) << id;
}

}  // namespace
}  // namespace smemlab::report
