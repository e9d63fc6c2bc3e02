#!/usr/bin/env python3
"""`check --sarif FILE -- APP` (docs/runtime.md): one SARIF 2.1.0 run for the
program, a result per finding of every checked launch naming its launch,
every ruleId a rule of the log. The reference is the same program under
`check --json` (JSON Lines, one object per launch): the SARIF results are
its findings, launch by launch, in order.

  check_program_sarif.py SMEMLAB PROGRAM"""
import json, os, subprocess, sys, tempfile

smemlab, program = sys.argv[1:3]
errors = []
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "log.sarif")
    s = subprocess.run([smemlab, "check", "-q", "--sarif", path, "--", program],
                       capture_output=True, text=True, timeout=300)
    j = subprocess.run([smemlab, "check", "-q", "--json", "--", program], capture_output=True,
                       text=True, timeout=300)
    if s.returncode != 1 or j.returncode != 1:
        errors.append(f"exit status {s.returncode} (--sarif), {j.returncode} (--json); want 1")
    log = json.load(open(path))

if log.get("version") != "2.1.0" or len(log.get("runs", [])) != 1:
    sys.exit(f"not one SARIF 2.1.0 run: {json.dumps(log)[:400]}")
run = log["runs"][0]
rules = {r["id"] for r in run["tool"]["driver"]["rules"]}
if run["properties"]["program"] != [program]:
    errors.append(f"properties.program: {run['properties']['program']}")
launches = [json.loads(l) for l in (j.stdout + j.stderr).splitlines() if l.startswith("{")]
want = [(l["launch"], l["kernel"], f["kind"], f["message"], f["line"]) for l in launches
        for f in l["findings"]]
got = []
for r in run["results"]:
    p = r["properties"]
    if r["ruleId"] not in rules:
        errors.append(f"result of rule {r['ruleId']}, which the log does not declare")
    logical = r["locations"][0].get("logicalLocations", [{}])[0].get("name")
    if logical != p["kernel"]:
        errors.append(f"logical location {logical}, kernel {p['kernel']}")
    launch = next((l for l in launches if l["launch"] == p["launch"]), None)
    if launch is None or launch["grid"] != p["grid"] or launch["block"] != p["block"]:
        errors.append(f"result's launch {p['launch']} {p['grid']} {p['block']} is not one checked")
    got.append((p["launch"], p["kernel"], r["ruleId"], r["message"]["text"],
                r["locations"][0]["physicalLocation"]["region"]["startLine"]))
if got != want:
    errors.append(f"SARIF results {got}\n  differ from check --json's findings {want}")
kinds = {g[2] for g in got}
for k in ("race", "assert"):
    if k not in kinds:
        errors.append(f"no {k} result (kinds: {sorted(kinds)})")
if len({g[0] for g in got}) < 2:
    errors.append("the results name fewer than two launches")
if errors:
    print("\n".join(errors))
    sys.exit(1)
print(f"ok: {len(got)} results over {len({g[0] for g in got})} launches, every rule declared")
