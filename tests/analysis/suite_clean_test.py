#!/usr/bin/env python3
"""Every launch recipe of kernels/ runs to completion in the emulator with no
finding from the checkers (issue 6: the suite gives zero findings).
Usage: suite_clean_test.py SMEMLAB REPO_ROOT"""
import json, subprocess, sys

smemlab, root = sys.argv[1], sys.argv[2]
p = subprocess.run([smemlab, "report", "--json", "--kernels", root + "/kernels"],
                   capture_output=True, text=True, timeout=1200)
if p.returncode != 0:
    sys.exit(f"report exit {p.returncode}: {p.stderr}")
rows = json.loads(p.stdout)["kernels"]
bad = [r for r in rows if r["findings"] or r.get("error")]
for r in bad:
    print(f"FAIL {r['file']} {r['kernel']} #{r['recipe']}: {r['findings']} findings {r.get('error', '')}")
print(f"{len(rows)} recipes, {len(bad)} with findings or errors")
sys.exit(1 if bad or not rows else 0)
