# Build speed (docs/robustness.md, "CI time"): a faster linker. It changes
# nothing that is compiled, checked or tested; it is used only where it is
# available and can be turned off. (Precompiled headers were measured and
# left out: the same docs section says why.)

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
