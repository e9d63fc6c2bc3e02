#!/usr/bin/env python3
"""Runs `smemlab check --json -- PROGRAM` on one Hopper protocol program and
compares the findings with the `// EXPECT: KIND` lines of its source
(README.md). A planted defect: every EXPECT reported at its line (a finding
or one of its accesses), no other error, and no race or warp-race beside an
early-read/stage-overwrite of the same accesses. A clean_* program: no finding at
all and its own PASS line.

  run_hopper.py SMEMLAB PROGRAM SOURCE.cu"""
import json, os, re, subprocess, sys

smemlab, program, source = sys.argv[1:4]
name = os.path.basename(source)
expected = []
for n, line in enumerate(open(source, encoding="utf-8"), start=1):
    m = re.search(r"//\s*EXPECT:\s*([a-z-]+)", line)
    if m:
        expected.append((m.group(1), n))
clean = name.startswith("clean_")
if clean == bool(expected):
    sys.exit(f"{name}: a clean_ program has no EXPECT line, a planted defect at least one")

p = subprocess.run([smemlab, "check", "--json", "--", program], capture_output=True, text=True,
                   timeout=280)
out = p.stdout + p.stderr
# (API error records, {"api_error": ...}, are not launches: a planted
# defect that stops the program leaves its buffers unfreed.)
launches = [o for o in (json.loads(l) for l in out.splitlines() if l.startswith("{"))
            if "api_error" not in o]
if not launches:
    sys.exit(f"{name}: no JSON launch record (exit {p.returncode}):\n{out[-3000:]}")
findings = [f for o in launches for f in o["findings"]]
if p.returncode not in (0, 1) or (p.returncode == 1) != bool(findings):
    sys.exit(f"{name}: exit {p.returncode} with {len(findings)} findings:\n{out[-3000:]}")


def lines_of(f):
    return {f.get("line")} | {a.get("line") for a in f.get("accesses", [])}


errors = []
if clean:
    if not re.search(r"^PASS ", out, re.M):
        errors.append("the program did not print PASS")
    errors += [f"unexpected: {f['kind']} at line {f.get('line')}: {f['message'][:300]}"
               for f in findings]
else:
    for kind, line in expected:
        if not any(f["kind"] == kind and line in lines_of(f) for f in findings):
            errors.append(f"missing: {kind} at line {line}")
    lines = {l for _, l in expected}
    # One finding per pair of accesses: no plain race beside the Hopper kind
    # that names the same instructions (docs/check-hopper.md).
    def ptx_pair(f):
        return frozenset(a.get("ptx_line") for a in f.get("accesses", []))
    specific = {ptx_pair(f) for f in findings if f["kind"] in ("early-read", "stage-overwrite")}
    errors += [f"duplicate: {f['kind']} beside the Hopper kind for the same accesses"
               for f in findings if f["kind"] in ("race", "warp-race") and ptx_pair(f) in specific]
    for f in findings:
        if not (lines_of(f) & lines) and f["severity"] == "error":
            errors.append(f"unexpected: {f['kind']} at line {f.get('line')}: {f['message'][:300]}")
if errors:
    print(f"{name}:\n" + "\n".join(errors))
    print(json.dumps(findings, indent=1)[:4000])
    sys.exit(1)
print(f"ok {name}: {len(expected)} expected finding(s), {len(findings)} reported")
