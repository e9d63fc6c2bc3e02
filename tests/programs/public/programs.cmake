# Unmodified public programs (ORIGIN.md): built with plain nvcc as their
# authors build them, run to completion under run / analyze / check, and one
# launch of each compared with single-kernel `analyze` of the same launch
# (compare_counters.py). Included from ../CMakeLists.txt (its program() and
# program_test()).
#
# Their sources are not in this repository (they are other people's code):
# ORIGIN.md names each file's repository, path and commit. Put them in one
# directory with that layout and configure with
# -DSMEMLAB_PUBLIC_PROGRAMS=/that/directory; without it these tests are not
# registered.
set(SMEMLAB_PUBLIC_PROGRAMS "" CACHE PATH
    "Directory holding the public CUDA programs of tests/programs/public/ORIGIN.md")
if(NOT SMEMLAB_PUBLIC_PROGRAMS)
  message(STATUS "smemlab: no SMEMLAB_PUBLIC_PROGRAMS: the public-program tests are not registered")
  return()
endif()
if(NOT EXISTS ${SMEMLAB_PUBLIC_PROGRAMS}/cuda-samples/Common/helper_cuda.h)
  message(FATAL_ERROR "SMEMLAB_PUBLIC_PROGRAMS=${SMEMLAB_PUBLIC_PROGRAMS}: no cuda-samples/Common/helper_cuda.h there (layout: tests/programs/public/ORIGIN.md)")
endif()
set(public ${SMEMLAB_PUBLIC_PROGRAMS})
set(samples_common ${public}/cuda-samples/Common)

# The CUDA samples' CMake builds SASS and PTX for a list of architectures
# (CMAKE_CUDA_ARCHITECTURES; two of them here): the fatbin holds sm_90 SASS
# built from its compute_90 PTX, which the SASS level reads as it is.
program(samples_transpose ${public}/cuda-samples/Samples/6_Performance/transpose/transpose.cu
        -I${samples_common} -lineinfo -gencode arch=compute_75,code=[compute_75,sm_75]
        -gencode arch=compute_90,code=[compute_90,sm_90])
program(samples_matrixMul ${public}/cuda-samples/Samples/0_Introduction/matrixMul/matrixMul.cu
        -I${samples_common} -lineinfo -gencode arch=compute_75,code=[compute_75,sm_75]
        -gencode arch=compute_90,code=[compute_90,sm_90])
set(reduction_dir ${public}/cuda-samples/Samples/2_Concepts_and_Techniques/reduction)
program(samples_reduction ${reduction_dir}/reduction_kernel.cu
        -I${samples_common} -lineinfo -gencode arch=compute_75,code=[compute_75,sm_75]
        -gencode arch=compute_90,code=[compute_90,sm_90]
        ${reduction_dir}/reduction.cpp)
# The blog's and the book's programs are built with nvcc's defaults, as their
# articles do (`nvcc shared-memory.cu`): compute_75 PTX and sm_75 SASS, so the
# SASS level compiles the PTX for the emulated sm_90 as the driver's JIT would.
program(blog_shared_memory ${public}/blog-shared-memory/shared-memory.cu -lineinfo)
program(blog_transpose ${public}/blog-transpose/transpose.cu -lineinfo)
program(textbook_smem_square ${public}/textbook-smem/examples/chapter05/checkSmemSquare.cu -lineinfo)

set(transpose_args -dimX=64 -dimY=64)
set(matmul_args -wA=64 -hA=64 -wB=64 -hB=64)

# Each program runs to completion and verifies itself.
program_test(public_samples_transpose_run 0 EXPECT "Test passed" "808 kernel launches emulated"
             ARGS run -- ./samples_transpose ${transpose_args})
program_test(public_samples_transpose_analyze 0
             EXPECT "Test passed" "launch 303: transposeCoalesced\\(float\\*, float\\*, int, int\\)"
                    "level sass \\(SASS of the program's fatbin \\(sm_90 cubin of"
                    "808 kernel launches, 1 analyzed"
             ARGS analyze -k transposeCoalesced --launch-count 1 -- ./samples_transpose ${transpose_args})
program_test(public_samples_transpose_check 0 EXPECT "Test passed" "ERROR SUMMARY: 0 errors"
             ARGS check -k "transpose(Coalesced|NoBankConflicts)" --launch-count 2
                  -- ./samples_transpose ${transpose_args})
program_test(public_samples_matrixMul_run 0 EXPECT "Result = PASS" "301 kernel launches emulated"
             ARGS run -- ./samples_matrixMul ${matmul_args})
program_test(public_samples_matrixMul_analyze 0
             EXPECT "Result = PASS" "launch 0: void MatrixMulCUDA<32>" "301 kernel launches, 1 analyzed"
             ARGS analyze --launch-count 1 -- ./samples_matrixMul ${matmul_args})
program_test(public_samples_matrixMul_check 0 EXPECT "Result = PASS" "ERROR SUMMARY: 0 errors"
             ARGS check --launch-count 2 -- ./samples_matrixMul ${matmul_args})
set(reduction_args -n=4096 -threads=128)
program_test(public_samples_reduction_run 0 EXPECT "Test passed" "201 kernel launches emulated"
             ARGS run -- ./samples_reduction ${reduction_args})
program_test(public_samples_reduction_analyze 0
             EXPECT "Test passed" "launch 1: void reduce7<int, 128u, true>" "201 kernel launches, 2 analyzed"
             ARGS analyze --launch-count 2 -- ./samples_reduction ${reduction_args})
program_test(public_samples_reduction_check 0 EXPECT "Test passed" "ERROR SUMMARY: 0 errors"
             ARGS check --launch-count 3 -- ./samples_reduction ${reduction_args})
program_test(public_blog_shared_memory_analyze 0
             EXPECT "launch 0: staticReverse" "launch 1: dynamicReverse" "2 kernel launches, 2 analyzed"
                    "level sass \\(SASS of ptxas -arch=sm_90 on the module's compute_75 PTX"
             ARGS analyze -- ./blog_shared_memory)
program_test(public_blog_shared_memory_analyze_ptx 0
             EXPECT "level ptx \\(--level ptx\\)" "2 kernel launches, 2 analyzed"
             ARGS analyze --level ptx -- ./blog_shared_memory)
# The blog's program never frees its buffer: a true leak, as
# compute-sanitizer --leak-check full reports it.
program_test(public_blog_shared_memory_check 1
             EXPECT "ERROR leak: device allocation of 256 bytes" "ERROR SUMMARY: 1 errors \\(0 in 2 checked kernel launches, 1 in API calls\\)"
             ARGS check -- ./blog_shared_memory)
program_test(public_textbook_smem_square_analyze 0
             EXPECT "Bank Mode:4-Byte" "launch 5: setRowReadColDynPad" "6 kernel launches, 6 analyzed"
             ARGS analyze -- ./textbook_smem_square)
program_test(public_textbook_smem_square_check 0 EXPECT "ERROR SUMMARY: 0 errors"
             ARGS check -- ./textbook_smem_square)
# The blog's transpose has no size options: 505 launches of 1024 blocks each
# (1 minute here with one of them analyzed, ORIGIN.md).
program_test(public_blog_transpose_analyze 0
             EXPECT "coalesced transpose" "conflict-free transpose"
                    "launch 303: transposeCoalesced\\(float\\*, float const\\*\\)"
                    "shared ld +32768 req +1048576 wavefronts \\(ideal 32768, excess 1015808\\), 32\\.00 avg / 32 max ways"
                    "505 kernel launches, 1 analyzed"
             ARGS analyze -k transposeCoalesced --launch-count 1 -- ./blog_transpose)
# PolyBench-ACC's mvt (issue 32): its kernels race (eight warps of a block
# accumulate into one x1[i]), benignly on the GPU, where a block's warps all
# load x1[i] before any stores it (0 outputs off on an H100). The default
# schedule gives the GPU's answer; serial does not; check reports the race.
# Built as its README says for CUDA 13 (-DcudaThreadSynchronize=...).
if(EXISTS ${public}/polybench/CUDA/linear-algebra/kernels/mvt/mvt.cu)
  set(polybench ${public}/polybench/CUDA)
  program(polybench_mvt ${polybench}/linear-algebra/kernels/mvt/mvt.cu -O3 -lineinfo -arch=sm_90
          -I${polybench}/utilities -DcudaThreadSynchronize=cudaDeviceSynchronize)
  program_test(public_mvt_run 0 EXPECT "Beyond Error Threshold of 0.05 Percent: 0$"
               ARGS run -- ./polybench_mvt)
  program_test(public_mvt_serial 0 EXPECT "Beyond Error Threshold of 0.05 Percent: 8190"
               ARGS run --schedule serial -- ./polybench_mvt)
endif()
option(SMEMLAB_LONG_TESTS "Also run the public programs that take many minutes on the emulator" OFF)
if(SMEMLAB_LONG_TESTS)
  # Every launch analyzed (`analyze -- ./blog_transpose`): 58 s wall here (2026-11-23, idle
  # 2-core machine; about 25 minutes before the emulator work of that day).
  program_test(public_blog_transpose_analyze_all 0
               EXPECT "conflict-free transpose" "505 kernel launches, 505 analyzed"
               ARGS analyze -- ./blog_transpose)
  set_tests_properties(programs.public_blog_transpose_analyze_all PROPERTIES TIMEOUT 3600
                       ENVIRONMENT SMEMLAB_TEST_TIMEOUT=3500)
endif()

# Counter equality with single-kernel `analyze` (compare_counters.py CASES).
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  foreach(c blog_shared_memory_static blog_shared_memory_dynamic textbook_row_col textbook_dyn_pad
            samples_transpose_coalesced samples_matrixmul samples_reduction)
    add_test(NAME programs.public_equal_${c}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/public/compare_counters.py
                     $<TARGET_FILE:smemlab> ${public} ${c}
             WORKING_DIRECTORY ${out_dir})
    set_tests_properties(programs.public_equal_${c} PROPERTIES TIMEOUT 300)
  endforeach()
endif()

# The CUDA samples that call cuBLAS and cuFFT, on smemlab's own libraries
# (src/libs/); each verifies its own results.
if(TARGET smemlab_cublas)
  set(samples_libs ${public}/cuda-samples/Samples/4_CUDA_Libraries)
  program(samples_simpleCUBLAS ${samples_libs}/simpleCUBLAS/simpleCUBLAS.cpp -I${samples_common} -arch=sm_90 -lcublas)
  program(samples_simpleCUFFT ${samples_libs}/simpleCUFFT/simpleCUFFT.cu -I${samples_common} -arch=sm_90 -lcufft)
  program(samples_batchCUBLAS ${samples_libs}/batchCUBLAS/batchCUBLAS.cpp -I${samples_common} -arch=sm_90 -lcublas)
  program_test(public_samples_simpleCUBLAS_run 0 EXPECT "simpleCUBLAS test passed" "cublasSgemm_v2 1"
               ARGS run -- ./samples_simpleCUBLAS)
  program_test(public_samples_simpleCUFFT_run 0 EXPECT "Transforming signal back cufftExecC2C" "cufftExecC2C 3"
               "1 kernel launches emulated" ARGS run -- ./samples_simpleCUFFT)
  program_test(public_samples_batchCUBLAS_run 0 EXPECT "0 error\\(s\\)" "cublasDgemmBatched 1"
               ARGS run -- ./samples_batchCUBLAS)
endif()
