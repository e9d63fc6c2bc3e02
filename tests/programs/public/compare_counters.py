#!/usr/bin/env python3
"""Program mode against single-kernel mode (issue 11's target): one launch of
an unmodified public program, analyzed by `smemlab analyze --json -- APP`,
must give the same counters as `smemlab analyze FILE.cu --json` given the same
kernel, grid, block, dynamic shared memory and arguments as a recipe.

Usage: compare_counters.py SMEMLAB SOURCES CASE
  SOURCES is the directory holding the public programs' sources (ORIGIN.md);
  CASE names one entry of CASES below; programs are looked up in the current
  directory (the build's tests/programs).
"""
import json
import os
import subprocess
import sys

HERE = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else ""

# name: (program argv, launch selection, source, recipe and nvcc options)
CASES = {
    # NVIDIA developer blog, "Using Shared Memory in CUDA C/C++".
    "blog_shared_memory_static": (
        ["./blog_shared_memory"], ["-k", "staticReverse"],
        "blog-shared-memory/shared-memory.cu",
        ["--kernel", "staticReverse", "--grid", "1", "--block", "64",
         "--arg", "int[64]=iota", "--arg", "int=64"]),
    "blog_shared_memory_dynamic": (
        ["./blog_shared_memory"], ["-k", "dynamicReverse"],
        "blog-shared-memory/shared-memory.cu",
        ["--kernel", "dynamicReverse", "--grid", "1", "--block", "64", "--shared", "256",
         "--arg", "int[64]=iota", "--arg", "int=64"]),
    # "Professional CUDA C Programming", chapter 5.
    "textbook_row_col": (
        ["./textbook_smem_square"], ["-k", "^setRowReadCol\\("],
        "textbook-smem/examples/chapter05/checkSmemSquare.cu",
        ["--kernel", "setRowReadCol", "--grid", "1", "--block", "32,32",
         "--arg", "int[1024]=zeros"]),
    "textbook_dyn_pad": (
        ["./textbook_smem_square"], ["-k", "setRowReadColDynPad"],
        "textbook-smem/examples/chapter05/checkSmemSquare.cu",
        ["--kernel", "setRowReadColDynPad", "--grid", "1", "--block", "32,32",
         "--shared", "4224", "--arg", "int[1024]=zeros"]),
    # CUDA samples, 6_Performance/transpose (-dimX/-dimY: 64x64, 2x2 tiles).
    "samples_transpose_coalesced": (
        ["./samples_transpose", "-dimX=64", "-dimY=64"],
        ["-k", "transposeCoalesced", "--launch-count", "1"],
        "cuda-samples/Samples/6_Performance/transpose/transpose.cu",
        ["--kernel", "transposeCoalesced", "--grid", "2,2", "--block", "32,16",
         "--arg", "float[4096]=zeros", "--arg", "float[4096]=iota", "--arg", "int=64",
         "--arg", "int=64", "-I", os.path.join(HERE, "cuda-samples/Common")]),
    # CUDA samples, 2_Concepts_and_Techniques/reduction (-n/-threads: 4096 ints,
    # 128 threads; its default kernel 7, warp shuffles and __reduce_add_sync).
    "samples_reduction": (
        ["./samples_reduction", "-n=4096", "-threads=128"], ["--launch-count", "1"],
        "cuda-samples/Samples/2_Concepts_and_Techniques/reduction/reduction_kernel.cu",
        ["--kernel", "_Z7reduce7IiLj128ELb1EEvPKT_PS0_j", "--grid", "16", "--block", "128",
         "--shared", "20", "--arg", "int[4096]=random(1)", "--arg", "int[16]=zeros",
         "--arg", "unsigned=4096"]),
    # CUDA samples, 0_Introduction/matrixMul (-wA/-hA/-wB/-hB: 64x64 times 64x64).
    "samples_matrixmul": (
        ["./samples_matrixMul", "-wA=64", "-hA=64", "-wB=64", "-hB=64"],
        ["--launch-count", "1"],
        "cuda-samples/Samples/0_Introduction/matrixMul/matrixMul.cu",
        ["--kernel", "_Z13MatrixMulCUDAILi32EEvPfS0_S0_ii", "--grid", "2,2", "--block", "32,32",
         "--arg", "float[4096]=zeros", "--arg", "float[4096]=random(1)",
         "--arg", "float[4096]=random(2)", "--arg", "int=64", "--arg", "int=64",
         "-I", os.path.join(HERE, "cuda-samples/Common")]),
}


def run(argv, stream="stdout"):
    p = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        sys.exit(f"{' '.join(argv)}: exit {p.returncode}\n{p.stdout}\n{p.stderr}")
    return getattr(p, stream)


def main():
    smemlab, name = sys.argv[1], sys.argv[3]
    program, select, source, recipe = CASES[name]
    # Program mode writes its JSON lines where its other lines go: stderr.
    out = run([smemlab, "analyze", "--json", *select, "--", *program], "stderr")
    launches = [json.loads(l) for l in out.splitlines() if l.startswith("{")]
    if len(launches) < 1:
        sys.exit(f"{name}: program mode analyzed no launch\n{out}")
    got = launches[0]
    want = json.loads(run([smemlab, "analyze", os.path.join(HERE, source), "--json",
                           "--blocks", "all", *recipe]))
    failures = []
    if got["level"]["name"] != want["level"]["name"]:
        failures.append(f"level: program {got['level']} vs kernel {want['level']}")
    for counter, value in want["totals"].items():
        if got["totals"].get(counter) != value:
            failures.append(f"{counter}: program {got['totals'].get(counter)} vs kernel {value}")
    print(f"{name}: launch {got['launch']} {got['kernel']} grid {got['grid']} block "
          f"{got['block']} at {got['level']['name']} level")
    print(json.dumps(got["totals"], sort_keys=True))
    if failures:
        print("FAIL\n  " + "\n  ".join(failures))
        sys.exit(1)
    print(f"equal: {len(want['totals'])} counter groups")


main()
