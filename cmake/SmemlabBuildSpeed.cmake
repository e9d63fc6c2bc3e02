# Build speed (docs/robustness.md, "CI time"): a faster linker and
# precompiled headers. Neither changes what is compiled, checked or tested;
# each is used only where it is available and can be turned off.

# --- Linker -----------------------------------------------------------------
# Many test executables link the same static libraries; GNU ld spends most of
# the link time of the asan build. mold or lld (Debian's `mold`, `lld`;
# scripts/setup installs lld) when the compiler can use it, else the default.
set(SMEMLAB_LINKER "auto" CACHE STRING "Linker for C++ links: auto (mold, then lld, else the compiler's default), mold, lld or default")
set_property(CACHE SMEMLAB_LINKER PROPERTY STRINGS auto mold lld default)

include(CheckLinkerFlag)
set(_smemlab_linkers)
if(SMEMLAB_LINKER STREQUAL "auto")
  set(_smemlab_linkers mold lld)
elseif(SMEMLAB_LINKER MATCHES "^(mold|lld)$")
  set(_smemlab_linkers ${SMEMLAB_LINKER})
elseif(NOT SMEMLAB_LINKER STREQUAL "default")
  message(FATAL_ERROR "SMEMLAB_LINKER=${SMEMLAB_LINKER}: expected auto, mold, lld or default")
endif()
set(SMEMLAB_LINKER_USED "default")
foreach(ld ${_smemlab_linkers})
  # The test links a program, so a linker that is missing or that fails with
  # this compiler and these flags (the sanitizers) is not chosen.
  check_linker_flag(CXX "-fuse-ld=${ld}" SMEMLAB_CAN_LINK_WITH_${ld})
  if(SMEMLAB_CAN_LINK_WITH_${ld})
    set(SMEMLAB_LINKER_USED ${ld})
    break()
  endif()
endforeach()
if(NOT SMEMLAB_LINKER STREQUAL "auto" AND NOT SMEMLAB_LINKER STREQUAL "default"
   AND SMEMLAB_LINKER_USED STREQUAL "default")
  message(FATAL_ERROR "SMEMLAB_LINKER=${SMEMLAB_LINKER}: ${CMAKE_CXX_COMPILER} cannot link with "
                      "-fuse-ld=${SMEMLAB_LINKER} (install it, or use SMEMLAB_LINKER=auto)")
endif()
if(NOT SMEMLAB_LINKER_USED STREQUAL "default")
  # C++ links only: nvcc (the CUDA device links) does not take -fuse-ld.
  add_link_options($<$<LINK_LANGUAGE:CXX>:-fuse-ld=${SMEMLAB_LINKER_USED}>)
endif()
message(STATUS "smemlab: linker ${SMEMLAB_LINKER_USED}")

# --- Precompiled headers ----------------------------------------------------
# CLI11, nlohmann/json, GoogleTest and fmt (header-only) are parsed again by
# every translation unit that includes them; a precompiled header parses them
# once per target (or once for all unit tests, REUSE_FROM). ccache cannot
# cache compilations that use a PCH unless its sloppiness allows it, so the
# default is ON only without a compiler launcher (CI's fresh clone); a
# ccache build keeps its cache hits instead.
if(CMAKE_CXX_COMPILER_LAUNCHER)
  set(_smemlab_pch_default OFF)
else()
  set(_smemlab_pch_default ON)
endif()
option(SMEMLAB_PCH "Precompile the heavy third-party headers (default: ON unless a compiler launcher is set)"
       ${_smemlab_pch_default})
message(STATUS "smemlab: precompiled headers ${SMEMLAB_PCH}")

# smemlab_pch(TARGET HEADER...): TARGET's C++ sources include HEADERs first
# (CMake makes a PCH for C and C++ only, so a target's .cu files are untouched).
function(smemlab_pch target)
  if(SMEMLAB_PCH)
    target_precompile_headers(${target} PRIVATE ${ARGN})
  endif()
endfunction()

# The unit tests' shared PCH: one small executable compiles it, every
# smemlab_test reuses it (same flags: the tests add only include paths and
# definitions that the headers do not use; -Winvalid-pch, which CMake adds,
# turns a mismatch into a build error under SMEMLAB_WERROR).
function(smemlab_test_pch target)
  if(NOT SMEMLAB_PCH)
    return()
  endif()
  if(NOT TARGET smemlab_test_pch)
    # An executable, as the tests are: its PCH is compiled with their -fPIE
    # (an OBJECT or static library's would be -fPIC, which GCC rejects).
    file(WRITE ${CMAKE_BINARY_DIR}/smemlab_test_pch.cc
         "// Only the owner of the unit tests' precompiled header.\nint main() { return 0; }\n")
    add_executable(smemlab_test_pch EXCLUDE_FROM_ALL ${CMAKE_BINARY_DIR}/smemlab_test_pch.cc)
    target_link_libraries(smemlab_test_pch PRIVATE GTest::gtest fmt::fmt-header-only)
    target_precompile_headers(smemlab_test_pch PRIVATE <gtest/gtest.h> <fmt/format.h> <string> <vector>
                              <map> <algorithm> <memory> <sstream> <fstream>)
    smemlab_warnings(smemlab_test_pch)
  endif()
  target_precompile_headers(${target} REUSE_FROM smemlab_test_pch)
  # GCC uses a PCH only where the macros it was made with (FMT_HEADER_ONLY)
  # are defined alike; a test that does not use fmt is unaffected by it.
  target_link_libraries(${target} PRIVATE fmt::fmt-header-only)
endfunction()
