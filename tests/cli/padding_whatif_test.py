#!/usr/bin/env python3
"""The padding what-if against the padded kernels: for each conflicted tile
kernel of kernels/tiles.cu, `analyze --json` predicts the wavefronts of its
shared buffer with k words of row padding (padding_what_if); the same file
has the kernel padded by hand (PAD elements per row). The predicted k must
be the kernel's padding (in 4-byte words) and the predicted wavefronts per
operation what `analyze --json` measures on the padded kernel, which then
has no conflict left to pad.
Usage: padding_whatif_test.py SMEMLAB SOURCE_DIR"""
import json
import subprocess
import sys

smemlab, source_dir = sys.argv[1:3]
failures = []

# (conflicted kernel, the padded one, its padding in 4-byte words)
CASES = [
    ("setRowReadCol", "setRowReadColPad", 1),
    ("setRowReadColDyn", "setRowReadColDynPad", 1),
    ("setRowReadColRect", "setRowReadColRectPad", 2),
    ("setRowReadColRectDyn", "setRowReadColRectDynPad", 2),
    ("setRowReadCol8", "setRowReadColPad8", 2),
    ("setRowReadColDyn8", "setRowReadColDynPad8", 2),
]


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def analyze(kernel):
    p = subprocess.run([smemlab, "analyze", "kernels/tiles.cu", "--kernel", kernel, "--json"],
                       cwd=source_dir, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"analyze --kernel {kernel} exited {p.returncode}:\n{p.stderr}")
    return json.loads(p.stdout)


for kernel, padded, words in CASES:
    before, after = analyze(kernel), analyze(padded)
    pads = before.get("padding_what_if", [])
    check(len(pads) == 1, f"{kernel}: one conflicted buffer in padding_what_if ({len(pads)})")
    if not pads:
        continue
    p = pads[0]
    check(p["pad_words"] == words, f"{kernel}: pad {p['pad_words']} words, the kernel's {words}")
    check(p["removes_conflicts"], f"{kernel}: the padding removes the conflicts")
    for op in ("load", "store"):
        want = after["totals"][op]["wavefronts"]
        got = p[op]["padded_wavefronts"] if op in p else None
        check(got == want, f"{kernel} {op}: predicted {got} wavefronts, {padded} measures {want}")
        check(p[op]["wavefronts"] == before["totals"][op]["wavefronts"],
              f"{kernel} {op}: the what-if's before equals the totals")
    check("padding_what_if" not in after, f"{padded}: nothing left to pad")

if failures:
    sys.exit(f"{len(failures)} check(s) failed")
print("all padding predictions equal the padded kernels")
