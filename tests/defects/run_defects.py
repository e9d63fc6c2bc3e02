#!/usr/bin/env python3
"""Runs `smemlab check --json` on one planted-defect kernel and compares the
findings with its `// EXPECT: KIND` lines (see README.md). Exit 0 when every
expected finding is reported at its line and no other error is reported."""
import json, re, subprocess, sys

smemlab, path = sys.argv[1], sys.argv[2]
expected = []
for n, line in enumerate(open(path, encoding="utf-8"), start=1):
    m = re.search(r"//\s*EXPECT:\s*([a-z-]+)", line)
    if m:
        expected.append((m.group(1), n))

p = subprocess.run([smemlab, "check", path, "--json"], capture_output=True, text=True, timeout=300)
if p.returncode not in (0, 1):
    sys.exit(f"smemlab check exited {p.returncode}: {p.stderr.strip()}")
findings = json.loads(p.stdout)["findings"]
if (p.returncode == 1) != bool(findings):
    sys.exit(f"exit code {p.returncode} does not match {len(findings)} findings")


def lines_of(f):
    return {f["line"]} | {a["line"] for a in f.get("accesses", [])}


errors = []
# Every kind reported is declared in src/check/finding_kinds.def: the SARIF
# log's rules come from that table and mark any other kind undeclared.
sarif = subprocess.run([smemlab, "check", path, "--sarif"], capture_output=True, text=True,
                       timeout=300)
if sarif.returncode != p.returncode:
    errors.append(f"check --sarif exited {sarif.returncode}, check --json {p.returncode}")
else:
    run = json.loads(sarif.stdout)["runs"][0]
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    for r in run["results"]:
        rule = rules.get(r["ruleId"])
        if rule is None or rule.get("properties", {}).get("undeclared"):
            errors.append(f"SARIF result of kind {r['ruleId']} has no declared rule")
for kind, line in expected:
    if not any(f["kind"] == kind and line in lines_of(f) for f in findings):
        errors.append(f"missing: {kind} at line {line}")
clean = path.split("/")[-1].startswith("clean_")
expected_lines = {l for _, l in expected}
for f in findings:
    # One defect may show as several hazards (RAW and WAR between the same
    # lines): findings touching an expected line belong to it.
    if lines_of(f) & expected_lines:
        continue
    if clean or f["severity"] == "error":
        errors.append(f"unexpected: {f['kind']} at line {f['line']}: {f['message']}")
if errors:
    print("\n".join(errors))
    print(json.dumps(findings, indent=1)[:4000])
    sys.exit(1)
print(f"ok: {len(expected)} expected finding(s), {len(findings)} reported")
