#!/usr/bin/env python3
"""`analyze --arch` what-if times (issue 31) against an independent
reference: the GPUs' parameter tables (src/timing/*.def, read here) and the
formulas of docs/timing.md worked in Python from `analyze --json`'s own
counts. For a 1000-block launch of tiles.cu's setRowReadCol on sm_90,
sm_80, sm_89 and sm_70: one prediction per GPU of gpus.def, in order, each
labelled (only the H100 validated); each GPU's waves (blocks on the busiest
SM), occupancy (the CUDA calculator's warp, block and shared limits), shared
pipe term (that arch's wavefronts at its clock) and DRAM term (its bytes at
that GPU's bandwidth); and the text output's what-if lines.
Usage: timing_arch_test.py SMEMLAB SOURCE_ROOT"""
import json
import math
import os
import re
import subprocess
import sys

smemlab, root = sys.argv[1:3]
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def table(key):
    rows = re.findall(r"SMEMLAB_GPU_PARAM\((\w+), ([0-9.e+-]+),",
                      open(os.path.join(root, "src/timing", key.replace("-", "_") + ".def")).read())
    return {k: float(v) for k, v in rows}


gpus = re.findall(r'SMEMLAB_GPU\((\w+), "([^"]+)", "([^"]+)", "([^"]+)", (true|false)\)',
                  open(os.path.join(root, "src/timing/gpus.def")).read())
blocks = 1000
args = ["analyze", "kernels/tiles.cu", "--kernel", "setRowReadCol", "--grid", str(blocks),
        "--block", "32,32", "--arg", f"int[{blocks * 1024}]=zeros", "--arch", "sm_90,sm_80,sm_89,sm_70"]
p = subprocess.run([smemlab] + args + ["--json"], cwd=root, capture_output=True, text=True)
if p.returncode != 0:
    sys.exit(f"analyze --json exited {p.returncode}: {p.stderr}")
j = json.loads(p.stdout)
preds = [j["timing"]] + j.get("timing_what_if", [])
want = [(name, arch) for _, _, name, arch, _ in gpus if arch in ("sm_90", "sm_80", "sm_89", "sm_70")]
check([(t["gpu"], t["arch"]) for t in preds] == want, f"one prediction per GPU, in order: {want}")


def wavefronts(arch):
    totals = j["totals"] if arch == j["archs"][0] else j["what_if"][arch]["totals"]
    return sum(totals[op]["wavefronts"] for op in ("load", "store", "atomic"))


for (rows, key, name, arch, validated), t in zip([g for g in gpus if g[3] in dict(want).values()], preds):
    g = table(key)
    check(t["validated"] == (validated == "true") and
          (t.get("note") is None) == (validated == "true") and
          (validated == "true" or t["note"].startswith("unvalidated: no measurements on ")),
          f"{name}: labelled {'validated' if validated == 'true' else t.get('note')}")
    busiest = math.ceil(blocks / g["sms"])
    check(t["waves"]["blocks_on_busiest_sm"] == busiest,
          f"{name}: {busiest} blocks on the busiest of {g['sms']:.0f} SMs")
    warps = 32
    shared = (4096 + g["shared_reserved"] + g["shared_granule"] - 1) // g["shared_granule"] * g["shared_granule"]
    limit = min(g["max_blocks"], g["max_warps"] // warps, g["shared_per_sm"] // shared)
    o = t["occupancy"]
    check(o["blocks_per_sm"] == limit or (o["limited_by"] == "registers" and o["blocks_per_sm"] < limit),
          f"{name}: {o['blocks_per_sm']} blocks/SM ({o['limited_by']}), calculator without registers {limit:.0f}")
    ns = wavefronts(arch) * busiest / blocks / g["shared_wavefronts"] / g["clock_ghz"]
    check(math.isclose(t["resources_ns"]["shared pipe"], ns, rel_tol=1e-9),
          f"{name}: shared pipe {t['resources_ns']['shared pipe']:.1f} ns = {arch}'s "
          f"{wavefronts(arch)} wavefronts at {g['clock_ghz']} GHz")
    check(math.isclose(t["resources_ns"]["DRAM"], t["dram_bytes"] / g["dram_bandwidth_gbs"], rel_tol=1e-9),
          f"{name}: DRAM {t['dram_bytes']:.0f} B at {g['dram_bandwidth_gbs']:.0f} GB/s")
    check(math.isclose(t["launch_ns"], g["launch_ns"]), f"{name}: launch overhead {g['launch_ns']:.0f} ns")

p = subprocess.run([smemlab] + args, cwd=root, capture_output=True, text=True)
lines = [l.strip() for l in p.stdout.splitlines() if l.strip().startswith(("predicted ", "what-if sm_"))]
check(lines and lines[0].startswith("predicted ") and "on an H100" in lines[0], f"text: the main line {lines[:1]}")
for t, line in zip(preds[1:], lines[1:]):
    check(line.startswith(f"what-if {t['arch']}: predicted ") and f" on " in line and t["gpu"] in line
          and line.endswith("; " + t["note"]), f"text: {line}")
check(len(lines) == len(preds), f"text: {len(lines)} prediction lines for {len(preds)} GPUs")
sys.exit(1 if failures else 0)
