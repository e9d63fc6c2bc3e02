#!/usr/bin/env python3
"""The course material's memory-and-warps examples, checked through
`smemlab analyze --json` (issue 7): row vs column walks, reads at stride s,
branching by threadIdx.x % 3 vs by warp, interleaved vs sequential reduction.
Usage: course_test.py SMEMLAB REPO_ROOT"""
import json, os, subprocess, sys

smemlab, root = sys.argv[1], sys.argv[2]
failures = []


def analyze(path, *args):
    p = subprocess.run([smemlab, "analyze", os.path.join(root, path), "--json", *args],
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        sys.exit(f"analyze {path} {args}: exit {p.returncode}: {p.stderr}")
    return json.loads(p.stdout)["totals"]


def check(what, ok, detail):
    print(("ok   " if ok else "FAIL ") + what + ": " + detail)
    if not ok:
        failures.append(what)


def per_request(t, cls):
    return t[cls]["sectors"] / t[cls]["requests"]


walk = "tests/analysis/matrix_walk.cu"
rows, cols = analyze(walk, "--kernel", "walkRows"), analyze(walk, "--kernel", "walkColumns")
check("4x4 walks read the same bytes", rows["global_load"]["bytes"] == cols["global_load"]["bytes"] == 64,
      f"{rows['global_load']['bytes']} and {cols['global_load']['bytes']} bytes")
check("4x4 matrix fits two sectors either way", rows["global_load"]["sectors"] == 2 == cols["global_load"]["sectors"],
      f"rows {rows['global_load']['sectors']}, columns {cols['global_load']['sectors']} sectors")
r64, c64 = analyze(walk, "--kernel", "walkRows64"), analyze(walk, "--kernel", "walkColumns64")
check("64x64 row walk: 4 sectors per request", per_request(r64, "global_load") == 4.0, f"{per_request(r64, 'global_load')}")
check("64x64 column walk: 32 sectors per request", per_request(c64, "global_load") == 32.0, f"{per_request(c64, 'global_load')}")

demos = "kernels/demos.cu"
last = 0
for s in [1, 2, 4, 8, 16, 32, 64]:
    t = analyze(demos, "--kernel", "strideRead", "--grid", "2", "--block", "128",
                "--arg", "int[65536]=random(1)", "--arg", "int[1024]=zeros", "--arg", "long=1024", "--arg", f"int={s}")
    spr = per_request(t, "global_load")
    # A warp reads 32 words s apart: min(32, 4s) sectors (n = 1024: full warps only).
    want = min(32, 4 * s)
    check(f"stride {s}: sectors per request", spr == want and spr >= last, f"{spr:.2f} (expected {want})")
    last = spr

mod3 = analyze(demos, "--kernel", "divergenceMod3")
warp = analyze(demos, "--kernel", "divergenceByWarp")
check("branch by threadIdx.x % 3 splits warps", mod3["branches"]["divergent"] > 0, f"{mod3['branches']}")
check("branch by warp never splits a warp", warp["branches"]["divergent"] == 0, f"{warp['branches']}")

red = "kernels/reduction.cu"
inter = analyze(red, "--kernel", "reduce_interleaved_divergent")
seq = analyze(red, "--kernel", "reduce_sequential")
check("interleaved reduction diverges more than sequential", inter["branches"]["divergent"] > seq["branches"]["divergent"],
      f"interleaved {inter['branches']['divergent']}, sequential {seq['branches']['divergent']}")
strided = analyze(red, "--kernel", "reduce_interleaved_strided")
check("strided index: bank conflicts; sequential: none",
      strided["load"]["bank_conflicts"] > 0 and seq["load"]["bank_conflicts"] == 0,
      f"strided {strided['load']['bank_conflicts']}, sequential {seq['load']['bank_conflicts']}")

print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
