#!/usr/bin/env python3
"""`analyze --sarif FILE -- APP` (docs/runtime.md): one SARIF 2.1.0 run for
the program, a result per hint (bank conflicts, uncoalesced accesses,
divergent branches) and, with --check, per finding of every analyzed launch,
each naming its launch; every ruleId a rule of the log. The reference is
the same program under `analyze --check --json` (one object per launch):
its findings, and its lines with excess shared-memory wavefronts.

  analyze_program_sarif.py SMEMLAB PROGRAM"""
import json, os, subprocess, sys, tempfile

smemlab, program = sys.argv[1:3]
errors = []
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "log.sarif")
    s = subprocess.run([smemlab, "analyze", "-q", "--check", "--sarif", path, "--", program],
                       capture_output=True, text=True, timeout=300)
    j = subprocess.run([smemlab, "analyze", "-q", "--check", "--json", "--", program],
                       capture_output=True, text=True, timeout=300)
    if s.returncode != j.returncode:
        errors.append(f"exit status {s.returncode} (--sarif), {j.returncode} (--json)")
    log = json.load(open(path))

if log.get("version") != "2.1.0" or len(log.get("runs", [])) != 1:
    sys.exit(f"not one SARIF 2.1.0 run: {json.dumps(log)[:400]}")
run = log["runs"][0]
rules = {r["id"] for r in run["tool"]["driver"]["rules"]}
if run["properties"]["program"] != [program]:
    errors.append(f"properties.program: {run['properties']['program']}")
launches = [json.loads(l) for l in (j.stdout + j.stderr).splitlines() if l.startswith("{")]
if run["properties"].get("launches_analyzed") != len(launches):
    errors.append(f"launches_analyzed {run['properties'].get('launches_analyzed')}, "
                  f"--json has {len(launches)} launches")
want_findings = sorted((l["launch"], f["kind"], f["message"], f["line"]) for l in launches
                       for f in l["findings"])


def excess(entry):
    return sum(entry.get(k, {}).get("excess", 0) for k in ("load", "store", "atomic"))


want_banks = sorted({(l["launch"], e["line"]) for l in launches for e in l.get("lines", [])
                     if excess(e) > 0})
got_findings, got_banks = [], set()
hints = {"bank-conflict", "uncoalesced", "divergent-branch"}
for r in run["results"]:
    p = r["properties"]
    if r["ruleId"] not in rules:
        errors.append(f"result of rule {r['ruleId']}, which the log does not declare")
    logical = r["locations"][0].get("logicalLocations", [{}])[0].get("name")
    if logical != p["kernel"]:
        errors.append(f"logical location {logical}, kernel {p['kernel']}")
    launch = next((l for l in launches if l["launch"] == p["launch"]), None)
    if launch is None or launch["grid"] != p["grid"] or launch["block"] != p["block"]:
        errors.append(f"result's launch {p['launch']} {p['grid']} {p['block']} is not one analyzed")
    line = r["locations"][0]["physicalLocation"]["region"]["startLine"]
    if r["ruleId"] == "bank-conflict":
        got_banks.add((p["launch"], line))
    elif r["ruleId"] not in hints:
        got_findings.append((p["launch"], r["ruleId"], r["message"]["text"], line))
if sorted(got_findings) != want_findings:
    errors.append(f"SARIF findings {sorted(got_findings)}\n  differ from --json's {want_findings}")
if sorted(got_banks) != want_banks:
    errors.append(f"bank-conflict results {sorted(got_banks)}\n  differ from --json's lines "
                  f"with excess wavefronts {want_banks}")
kinds = {g[1] for g in got_findings}
for k in ("race", "assert"):
    if k not in kinds:
        errors.append(f"no {k} result (kinds: {sorted(kinds)})")
if not got_banks:
    errors.append("no bank-conflict result")
if errors:
    print("\n".join(errors))
    sys.exit(1)
print(f"ok: {len(run['results'])} results over {len(launches)} launches, every rule declared")
