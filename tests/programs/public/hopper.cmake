# Hopper programs written outside the project (issue 27; manifest in
# ORIGIN.md, "Hopper programs"): CUTLASS 3's TMA + wgmma GEMM examples, run
# unmodified under `smemlab run|check|analyze -- APP` and required to pass
# their own checks. Neither their sources nor a recipe that builds them is
# kept here: build each as ORIGIN.md says, put the executables in one
# directory and configure with -DSMEMLAB_HOPPER_PROGRAMS=/that/directory.
# Each test is registered when its executable is there. Included from
# ../CMakeLists.txt (its program_test()).
set(SMEMLAB_HOPPER_PROGRAMS "" CACHE PATH
    "Directory holding the Hopper programs of tests/programs/public/ORIGIN.md, built")
if(NOT SMEMLAB_HOPPER_PROGRAMS)
  return()
endif()
set(hopper ${SMEMLAB_HOPPER_PROGRAMS})

# 48_hopper_warp_specialized_gemm: f32 inputs through tf32 wgmma, TMA loads
# multicast over clusters of 4 x 2, a warp-specialized persistent kernel;
# its own check compares D with a reference GEMM on the device.
if(EXISTS ${hopper}/48_hopper_warp_specialized_gemm)
  set(ex48_args --m=512 --n=256 --k=64 --iterations=0)
  program_test(hopper_cutlass48_run 0 EXPECT "Disposition: Passed" "6 kernel launches emulated"
               ARGS run -- ${hopper}/48_hopper_warp_specialized_gemm ${ex48_args})
  program_test(hopper_cutlass48_check 1
               EXPECT "Disposition: Passed"
                      "ERROR SUMMARY: 5 errors \\(0 in 6 checked kernel launches, 5 in API calls\\)"
               ARGS check -- ${hopper}/48_hopper_warp_specialized_gemm ${ex48_args})
  program_test(hopper_cutlass48_analyze 0
               EXPECT "Disposition: Passed" "grid \\(4,2,1\\) block \\(384,1,1\\), dynamic shared 229760 B"
                      "6 kernel launches, 1 analyzed"
               ARGS analyze -k GemmUniversal -- ${hopper}/48_hopper_warp_specialized_gemm ${ex48_args})
endif()

# 49_hopper_gemm_with_collective_builder: seven f16 GEMMs the collective
# builder makes (auto, 5 stages, TMA, warp-specialized, ping-pong,
# cooperative stream-K, an epilogue visitor tree), each checked against a
# reference GEMM on the device.
if(EXISTS ${hopper}/49_collective_builder)
  program_test(hopper_cutlass49_run 0
               EXPECT "Automatically-selected schedule and stage count: Passed"
                      "Automatically-selected schedule with 5 stages: Passed"
                      "TMA schedule with automatically-selected stage count: Passed"
                      "Warp-specialized TMA schedule with automatically-selected stage count: Passed"
                      "Ping-pong warp-specialized TMA schedule with automatically-selected stage count: Passed"
                      "Cooperative warp-specialized TMA schedule using stream-K with automatically-selected stage count: Passed"
                      "Cooperative warp-specialized TMA schedule using custom epilogue visitor tree with automatically-selected stage count: Passed"
                      "42 kernel launches emulated"
               ARGS run -- ${hopper}/49_collective_builder --m=256 --n=256 --k=128)
  # Its ping-pong and cooperative kernels sync their consumer warpgroups on
  # named barriers with a thread count after the producer warps exited.
  program_test(hopper_cutlass49_check 0
               EXPECT "Ping-pong warp-specialized TMA schedule with automatically-selected stage count: Passed"
                      "ERROR SUMMARY: 0 errors \\(0 in 42 checked kernel launches, 0 in API calls\\)"
               ARGS check -- ${hopper}/49_collective_builder --m=256 --n=256 --k=128)
  set_tests_properties(programs.hopper_cutlass49_run programs.hopper_cutlass49_check
                       PROPERTIES TIMEOUT 1800)
endif()
