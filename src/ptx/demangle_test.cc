#include "ptx/demangle.h"

#include <gtest/gtest.h>

namespace smemlab::ptx {
namespace {

TEST(Demangle, MangledEntry) {
  EXPECT_EQ(demangle("_Z3addPii"), "add(int*, int)");
  EXPECT_EQ(demangle("_Z12row_read_colIiLi0EEvPT_"), "void row_read_col<int, 0>(int*)");
}

TEST(Demangle, PlainNamesComeBackUnchanged) {
  EXPECT_EQ(demangle("setRowReadCol"), "setRowReadCol");
  EXPECT_EQ(demangle("_Z"), "_Z");
  EXPECT_EQ(demangle(""), "");
}

}  // namespace
}  // namespace smemlab::ptx
