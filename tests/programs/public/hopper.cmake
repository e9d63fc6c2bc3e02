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
  # (run_test.sh's own limit too: each takes about 5 minutes of wall time on
  # the loaded 2-core development VM, 1.5 of CPU)
  set_tests_properties(programs.hopper_cutlass49_run programs.hopper_cutlass49_check
                       PROPERTIES TIMEOUT 1800 ENVIRONMENT SMEMLAB_TEST_TIMEOUT=1700)
endif()

# 54_hopper_fp8_warp_specialized_gemm: e4m3 x e4m3 -> f32 wgmma, clusters of
# 1 x 2, an epilogue with per-row bias, ReLU, an amax reduction (max.NaN.f32)
# and an aux output through st.shared and TMA stores; host fills and a host
# reference compared element for element (TensorEquals): one launch. check:
# nothing in the launch; the 11 device allocations of its global HostTensors
# are still held at exit (their destructors run after the runtime's), as in 48.
if(EXISTS ${hopper}/54_hopper_fp8_warp_specialized_gemm)
  set(ex54_args --m=256 --n=256 --k=128 --iterations=0)
  program_test(hopper_cutlass54_run 0 EXPECT "Disposition: Passed" "1 kernel launches emulated"
               ARGS run -- ${hopper}/54_hopper_fp8_warp_specialized_gemm ${ex54_args})
  program_test(hopper_cutlass54_check 1
               EXPECT "Disposition: Passed"
                      "ERROR SUMMARY: 11 errors \\(0 in 1 checked kernel launches, 11 in API calls\\)"
               ARGS check -- ${hopper}/54_hopper_fp8_warp_specialized_gemm ${ex54_args})
endif()

# Every launch of the CUTLASS examples of tests/validation/hopper/public/
# cutlass.txt (paths there under .device/hop28g/, here under this directory)
# against the H100's ncu counters of run 14 (docs/validation.md): each
# counter analyze reports must equal ncu's. Registered when all three exist.
if(EXISTS ${hopper}/48_hopper_warp_specialized_gemm AND EXISTS ${hopper}/49_collective_builder
   AND EXISTS ${hopper}/54_hopper_fp8_warp_specialized_gemm)
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
  file(READ ${CMAKE_SOURCE_DIR}/tests/validation/hopper/public/cutlass.txt cutlass_list)
  string(REPLACE ".device/hop28g/" "${hopper}/" cutlass_list "${cutlass_list}")
  file(WRITE ${out_dir}/cutlass_programs.txt "${cutlass_list}")
  add_test(NAME programs.hopper_cutlass_counters
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/run_test.sh 0 "ok   cutlass48 launch 5"
                   "ok   cutlass54 launch 0" "ok   cutlass49 launch 41" --
                   ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/validate-ncu
                   --smemlab $<TARGET_FILE:smemlab> --only-programs
                   --programs ${out_dir}/cutlass_programs.txt
                   --ncu-dir ${CMAKE_SOURCE_DIR}/tests/validation/hopper/public/h100-run14/ncu
                   --out ${out_dir}/cutlass_counters
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  set_tests_properties(programs.hopper_cutlass_counters PROPERTIES TIMEOUT 1800
                       ENVIRONMENT SMEMLAB_TEST_TIMEOUT=1700)
endif()

# pranjalssh/fast.cu's GEMM kernels 2, 5, 9 and 12 (tests/validation/hopper/
# public/ORIGIN.md: scripts/public-hopper-programs builds them, with OUT_DIR
# this directory), at the sizes of that directory's programs.txt; each checks
# C exactly. check: kernels 2 and 5 leak their tensor maps (2 API errors);
# kernel 9's consumers' last remote arrive and kernel 12's are ordered
# before no peer's exit (cluster-exit), kernel 12's stmatrix writes reach
# its TMA store with no fence.proxy.async (proxy-fence). Their counters
# against the H100's (run 12's ncu CSVs): every one equal but kernel 12's
# hardware ld/st bank-conflict counters (docs/validation.md §5, run 12).
set(fastcu_sizes "2:128 128 128" "5:256 512 256" "9:2048 2048 256" "12:256 512 256")
set(fastcu_check_2 1 "ERROR SUMMARY: 2 errors \\(0 in 1 checked kernel launches, 2 in API calls\\)")
set(fastcu_check_5 1 "ERROR SUMMARY: 2 errors \\(0 in 1 checked kernel launches, 2 in API calls\\)")
set(fastcu_check_9 1 "matmul_9.cuh:526: error: .*\\[cluster-exit\\]"
    "ERROR SUMMARY: 1 errors \\(1 in 1 checked kernel launches, 0 in API calls\\)")
set(fastcu_check_12 1 "matmul_12.cuh:500: error: .*\\[cluster-exit\\]"
    "matmul_12.cuh:519: error: TMA store read .*\\[proxy-fence\\]"
    "ERROR SUMMARY: 19 errors \\(18 in 1 checked kernel launches, 1 in API calls\\)")
set(fastcu_list ${out_dir}/fastcu_programs.txt)
file(WRITE ${fastcu_list} "")
foreach(entry ${fastcu_sizes})
  string(REPLACE ":" ";" parts "${entry}")
  list(GET parts 0 k)
  list(GET parts 1 size)
  separate_arguments(size_args UNIX_COMMAND "${size}")
  if(NOT EXISTS ${hopper}/fastcu_${k})
    continue()
  endif()
  set(pass "fast.cu kernel ${k}, M=[0-9]+ N=[0-9]+ K=[0-9]+: PASS \\(0 of")
  program_test(hopper_fastcu${k}_run 0 EXPECT "${pass}" "1 kernel launches emulated"
               ARGS run -- ${hopper}/fastcu_${k} ${size_args})
  list(GET fastcu_check_${k} 0 code)
  list(SUBLIST fastcu_check_${k} 1 -1 expect)
  program_test(hopper_fastcu${k}_check ${code} EXPECT "${pass}" ${expect}
               ARGS check -- ${hopper}/fastcu_${k} ${size_args})
  file(APPEND ${fastcu_list} "fastcu_${k} ${hopper}/fastcu_${k} ${size}\n")
endforeach()
if(EXISTS ${hopper}/fastcu_12)
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
  add_test(NAME programs.hopper_fastcu_counters
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/run_test.sh 1 "ok   fastcu_2 launch 0"
                   "ok   fastcu_5 launch 0" "ok   fastcu_9 launch 0" "DIFF fastcu_12 launch 0" --
                   ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/validate-ncu
                   --smemlab $<TARGET_FILE:smemlab> --only-programs --programs ${fastcu_list}
                   --ncu-dir ${CMAKE_SOURCE_DIR}/tests/validation/hopper/public/h100-run12
                   --out ${out_dir}/fastcu_counters
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})  # (validate-ncu runs from the repository root)
  set_tests_properties(programs.hopper_fastcu_counters PROPERTIES TIMEOUT 600)
endif()
