#!/usr/bin/env python3
"""`check --sarif FILE -- APP` (docs/runtime.md): one SARIF 2.1.0 run for the
program, a result per finding of every checked launch naming its launch and
per API error (the program's leak), every ruleId a rule of the log. The reference is the same program under
`check --json` (JSON Lines, one object per launch): the SARIF results are
its findings, launch by launch, in order.

  check_program_sarif.py SMEMLAB PROGRAM"""
import json, os, re, subprocess, sys, tempfile

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
records = [json.loads(l) for l in (j.stdout + j.stderr).splitlines() if l.startswith("{")]
launches = [r for r in records if "api_error" not in r]
want = [(l["launch"], l["kernel"], f["kind"], f["message"], f["line"]) for l in launches
        for f in l["findings"]]
# API errors (the program leaks its buffer): results of their kind's rule,
# with no location, in the order --json printed them.
# (Addresses differ between the two runs.)
def unaddressed(text):
    return re.sub(r"0x[0-9a-f]+", "0x?", text)


want_api = [(r["api_error"]["kind"], unaddressed(r["api_error"]["message"])) for r in records
            if "api_error" in r]
got, got_api = [], []
for r in run["results"]:
    p = r["properties"]
    if p.get("api"):
        if r["ruleId"] not in rules:
            errors.append(f"API error of rule {r['ruleId']}, which the log does not declare")
        got_api.append((r["ruleId"], unaddressed(r["message"]["text"])))
        continue
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
if got_api != want_api or not any(k == "leak" for k, _ in got_api):
    errors.append(f"SARIF API errors {got_api}\n  differ from check --json's {want_api} "
                  "(or no leak)")
if run["properties"].get("api_errors") != len(want_api):
    errors.append(f"properties.api_errors {run['properties'].get('api_errors')}")
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
