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

}  // namespace
}  // namespace smemlab::sass
