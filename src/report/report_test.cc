#include "report/report.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "check/event_builder.h"
#include "ptx/line_table.h"
#include "report/progress.h"

namespace smemlab::report {
namespace {

struct Fixture {
  ptx::LineTable table;
  emu::InstrInfo ld, gl;
  check::BankAnalysis banks{[] {
    std::vector<std::unique_ptr<bank::Model>> v;
    v.push_back(bank::make_model("sm_90"));
    v.push_back(bank::make_model("sm_35:4"));
    return v;
  }()};
  check::AccessAnalysis access;
  std::vector<check::Finding> findings;
  Analysis a;
  Fixture() {
    table.add_file(1, "k.cu");
    ld = check::testing::instr(3, 30, "ld.shared.u32", table.add(1, 7, 1, "", false, 0, 0, 0));
    gl = check::testing::instr(4, 31, "ld.global.u32", table.add(1, 6, 1, "", false, 0, 0, 0));
    emu::KernelInfo k;
    k.lines = &table;
    banks.on_kernel_begin(k);
    access.on_kernel_begin(k);
    auto b = banks.make_block_observer({0, 0, 0});
    auto c = access.make_block_observer({0, 0, 0});
    auto col = check::testing::access(emu::Space::Shared, emu::MemOp::Load, 4, &ld, 0,
                                      [](unsigned i) { return 128ull * i; });
    auto glob = check::testing::access(emu::Space::Global, emu::MemOp::Load, 4, &gl, 0,
                                       [](unsigned i) { return 4096 + 4ull * i; });
    b->on_memory(col);
    c->on_memory(glob);
    banks.finish_block({0, 0, 0}, std::move(b));
    access.finish_block({0, 0, 0}, std::move(c));
    a.run = {"k.cu", "colRead(int*)",  "_Z7colReadPi", {1, 1, 1}, {32, 1, 1}, 0, 1, 1,
             "",     sass::Level::Ptx, "--level ptx",  {},        0};
    a.banks = &banks;
    a.access = &access;
    a.findings = &findings;
  }
};

TEST(Report, JsonHasTheDocumentedFields) {
  Fixture f;
  auto j = analyze_json(f.a);
  EXPECT_EQ(j["kernel"], "colRead(int*)");
  EXPECT_EQ(j["arch"], "sm_90");
  EXPECT_EQ(j["totals"]["load"]["requests"], 1);
  EXPECT_EQ(j["totals"]["load"]["wavefronts"], 32);
  EXPECT_EQ(j["totals"]["load"]["ideal"], 1);
  EXPECT_EQ(j["totals"]["load"]["bank_conflicts"], 31);
  EXPECT_EQ(j["totals"]["store"]["requests"], 0);
  EXPECT_EQ(j["totals"]["global_load"]["sectors"], 4);
  EXPECT_EQ(j["totals"]["global_store"]["requests"], 0);
  EXPECT_EQ(j["totals"]["branches"]["divergent"], 0);
  ASSERT_EQ(j["lines"].size(), 2u);
  EXPECT_EQ(j["lines"][0]["line"], 6);
  EXPECT_EQ(j["lines"][0]["global_load"]["ideal_sectors"], 4);
  EXPECT_EQ(j["lines"][1]["line"], 7);
  EXPECT_EQ(j["lines"][1]["file"], "k.cu");
  EXPECT_EQ(j["lines"][1]["load"]["wavefronts"], 32);
  EXPECT_EQ(j["what_if"]["sm_35:4"]["totals"]["load"]["wavefronts"], 16);
  EXPECT_TRUE(j["findings"].is_array());
  EXPECT_EQ(j["level"]["name"], "ptx");
  EXPECT_EQ(j["level"]["reason"], "--level ptx");
  EXPECT_EQ(j["totals"]["global_atomic"]["sectors"], 0);
  EXPECT_EQ(j["totals"]["global_reduction"]["sectors"], 0);
}

// Every format says which level it counted at, and names unmapped accesses.
TEST(Report, LevelInEveryFormat) {
  Fixture f;
  f.a.run.level = sass::Level::Sass;
  f.a.run.level_reason = "SASS of ptxas";
  f.a.run.unmapped.push_back({"k.cu:7", 12, "ld.shared.f32", "no shared load SASS instruction"});
  auto j = analyze_json(f.a);
  EXPECT_EQ(j["level"]["name"], "sass");
  EXPECT_EQ(j["level"]["unmapped"][0]["ptx_line"], 12);
  EXPECT_EQ(analyze_sarif(f.a)["runs"][0]["properties"]["level"]["unmapped"][0]["where"], "k.cu:7");
  std::string t = analyze_text(f.a, {});
  EXPECT_NE(t.find("level sass (SASS of ptxas)\n  counted at PTX level: k.cu:7 ld.shared.f32 (PTX "
                   "line 12): no shared load SASS instruction"),
            std::string::npos)
      << t;
}

TEST(Report, SarifHasOneResultPerConflictingLine) {
  Fixture f;
  auto s = analyze_sarif(f.a);
  EXPECT_EQ(s["version"], "2.1.0");
  auto& results = s["runs"][0]["results"];
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0]["ruleId"], "bank-conflict");
  EXPECT_EQ(results[0]["locations"][0]["physicalLocation"]["region"]["startLine"], 7);
  EXPECT_EQ(results[0]["properties"]["excess_wavefronts"], 31);
}

TEST(Report, TextAnnotatesTheSource) {
  Fixture f;
  std::vector<std::string> src = {"a", "b", "c", "d", "e", "  x = g[i];", "  y = s[i][0];", "}"};
  std::string t = analyze_text(f.a, src);
  EXPECT_NE(t.find("     7 |   y = s[i][0];\n        shared ld"), std::string::npos) << t;
  EXPECT_NE(t.find("32 wavefronts (ideal 1, excess 31)"), std::string::npos) << t;
  EXPECT_NE(t.find("sm_35:4 16"), std::string::npos) << t;
  EXPECT_NE(t.find("worst request at k.cu:7"), std::string::npos) << t;
}

// Source text (and SVG markup) inside the page's JSON must not end its
// <script> element; program-mode sections round-trip through JSON.
TEST(Report, HtmlPageEscapesClosingTagsInItsData) {
  Fixture f;
  std::vector<std::string> src = {"</script><script>alert(1)</script>",
                                  "b",
                                  "c",
                                  "d",
                                  "e",
                                  "  x = g[i];",
                                  "  y = s[i][0];",
                                  "}"};
  HtmlSection s{"k<<<>>>", f.a, src, 3};
  std::string page = analyze_html({s}, "t");
  size_t closes = 0;
  for (size_t p = page.find("</script>"); p != std::string::npos; p = page.find("</script>", p + 1))
    ++closes;
  EXPECT_EQ(closes, 2u);  // the data element's and the script's own
  EXPECT_NE(page.find("<\\/script><script>alert(1)<\\/script>"), std::string::npos);
  EXPECT_NE(page.find("<\\/g>"), std::string::npos);  // the bank maps' legend
  nlohmann::json j = html_section_json(s);
  EXPECT_EQ(j["launch_index"], 3);
  EXPECT_EQ(j["lines"]["k.cu:7"]["banks"]["sm_90"]["load"]["excess"], 31);
  // Line 7's bank map, as data for the page's drawer: 32 wavefronts of one
  // conflicted cell each (a column read).
  auto fig = nlohmann::json::parse(j["lines"]["k.cu:7"]["bank_map"]["sm_90"].get<std::string>());
  EXPECT_EQ(fig["wavefronts"], 32);
  ASSERT_EQ(fig["rows"].size(), 32u);
  for (const auto& row : fig["rows"]) {
    ASSERT_EQ(row[1].size(), 1u);
    EXPECT_EQ(row[1][0][4], 1) << row;  // conflict, not broadcast
  }
  EXPECT_FALSE(j["lines"]["k.cu:7"]["banks"]["sm_90"].contains("store"));  // no store: left out
  EXPECT_EQ(sections_html({j}, "t"), page);
}

}  // namespace
}  // namespace smemlab::report

namespace smemlab::report {
namespace {

TEST(Progress, RateAndTimeLeft) {
  EXPECT_EQ(progress_text("k", 0, 100, 0.0), "k: 0/100 blocks");
  EXPECT_EQ(progress_text("k", 0, 100, 2.0), "k: 0/100 blocks, 0 blocks/s");
  EXPECT_EQ(progress_text("k", 25, 100, 5.0), "k: 25/100 blocks, 5 blocks/s, 15 s left");
  EXPECT_EQ(progress_text("launch 3: k", 10, 1000, 1.0),
            "launch 3: k: 10/1000 blocks, 10 blocks/s, 1 min 39 s left");
  EXPECT_EQ(progress_text("k", 1, 7201, 1.0), "k: 1/7201 blocks, 1 blocks/s, 2 h 0 min left");
  EXPECT_EQ(progress_text("k", 100, 100, 4.0), "k: 100/100 blocks, 25 blocks/s");
}

TEST(Progress, NothingWhenStderrIsNoTerminal) {
  // ctest runs tests with stderr on a pipe or file.
  if (isatty(STDERR_FILENO)) GTEST_SKIP() << "stderr is a terminal here";
  EXPECT_FALSE(terminal_progress("k"));
}

}  // namespace
}  // namespace smemlab::report
