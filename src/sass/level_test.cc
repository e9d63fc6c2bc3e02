#include "sass/level.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "emu/launch.h"

namespace smemlab::sass {
namespace {

struct Loaded {
  emu::Device dev;
  std::unique_ptr<emu::Module> module;
  std::string text;
  explicit Loaded(const std::string& kernel, const std::string& target = "") {
    std::ifstream in(std::string(SMEMLAB_SOURCE_DIR) + "/src/sass/testdata/" + kernel + ".ptx");
    std::stringstream s;
    s << in.rdbuf();
    text = s.str();
    if (!target.empty()) text.replace(text.find(".target sm_90"), 13, ".target " + target);
    module = emu::Module::load_text(dev, text, kernel + ".ptx");
  }
};

TEST(Level, PtxWhenAsked) {
  Loaded l("fir_best");
  KernelLevel k =
      choose_level(Level::Ptx, l.text, l.module->ptx(), "fir_best", l.module->kernel("fir_best"));
  EXPECT_EQ(k.level, Level::Ptx);
  EXPECT_EQ(k.reason, "--level ptx");
  EXPECT_FALSE(k.map.regroups());
}

// A missing tool falls back to the PTX level with the reason, never fails.
TEST(Level, MissingNvdisasmFallsBackSayingWhy) {
  Loaded l("fir_best");
  const char* old = std::getenv("SMEMLAB_NVDISASM");
  std::string saved = old ? old : "";
  setenv("SMEMLAB_NVDISASM", "/nonexistent/nvdisasm", 1);
  KernelLevel k =
      choose_level(Level::Sass, l.text, l.module->ptx(), "fir_best", l.module->kernel("fir_best"));
  if (old)
    setenv("SMEMLAB_NVDISASM", saved.c_str(), 1);
  else
    unsetenv("SMEMLAB_NVDISASM");
  EXPECT_EQ(k.level, Level::Ptx);
  EXPECT_NE(k.reason.find("nvdisasm not found"), std::string::npos) << k.reason;
}

TEST(Level, OldTargetFallsBackSayingWhy) {
  Loaded l("fir_best", "sm_35");
  KernelLevel k =
      choose_level(Level::Sass, l.text, l.module->ptx(), "fir_best", l.module->kernel("fir_best"));
  EXPECT_EQ(k.level, Level::Ptx);
  EXPECT_NE(k.reason.find("'sm_35'"), std::string::npos) << k.reason;
}

// Program mode: the fatbin's SASS is used as it is when it has the kernel
// (no tool runs: the disassembly is given), and the report says so.
TEST(ProgramLevel, FatbinSassUsedWhenItHasTheKernel) {
  Loaded l("fir_best");
  std::ifstream in(std::string(SMEMLAB_SOURCE_DIR) + "/src/sass/testdata/fir_best.sass");
  std::stringstream s;
  s << in.rdbuf();
  Disassembly d = parse_disassembly(s.str());
  ProgramSass p{"sm_90", &d, "sm_90 cubin of ./app (fatbin 0)"};
  KernelLevel k = choose_program_level(Level::Sass, l.text, l.module->ptx(), "fir_best",
                                       l.module->kernel("fir_best"), p);
  EXPECT_EQ(k.level, Level::Sass);
  EXPECT_EQ(k.target, "sm_90");
  EXPECT_NE(k.reason.find("SASS of the program's fatbin (sm_90 cubin of ./app (fatbin 0))"),
            std::string::npos)
      << k.reason;
  EXPECT_TRUE(k.map.regroups());  // fir_best's v4 loads narrowed to LDS.64
}

TEST(ProgramLevel, PtxWhenAskedAndOldGpuFallsBackSayingWhy) {
  Loaded l("fir_best");
  ProgramSass p{"sm_90", nullptr, "the fatbin has no sm_90 SASS"};
  KernelLevel k = choose_program_level(Level::Ptx, l.text, l.module->ptx(), "fir_best",
                                       l.module->kernel("fir_best"), p);
  EXPECT_EQ(k.level, Level::Ptx);
  EXPECT_EQ(k.reason, "--level ptx");
  p.target = "sm_35";
  k = choose_program_level(Level::Sass, l.text, l.module->ptx(), "fir_best",
                           l.module->kernel("fir_best"), p);
  EXPECT_EQ(k.level, Level::Ptx);
  EXPECT_NE(k.reason.find("sm_35"), std::string::npos) << k.reason;
}

}  // namespace
}  // namespace smemlab::sass
