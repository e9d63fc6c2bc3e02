#!/usr/bin/env python3
"""check --json has one object shape in both modes (docs/json-schema.md):
runs `smemlab check --json` on a kernel (kernel mode) and on a program
(program mode, JSON Lines) and checks every object against the fields the
document's table declares: each field of the mode present with its type
(a type marked ", optional" may be absent), no field the table does not
declare.

  check_json_schema.py SMEMLAB DOC KERNEL.cu PROGRAM"""
import json, re, subprocess, sys

smemlab, doc, kernel, program = sys.argv[1:5]
fields = {}  # name -> (type, modes)
for line in open(doc, encoding="utf-8"):
    m = re.match(r"\|\s*`(\w+)`\s*\|\s*([^|]+?)\s*\|\s*(both|kernel|program)\s*\|", line)
    if m:
        fields[m.group(1)] = (m.group(2), m.group(3))
if "findings" not in fields or "launch" not in fields:
    sys.exit(f"{doc}: no field table found")
types = {"string": str, "integer": int, "array": list, "[x, y, z]": list}
errors = []


def validate(obj, mode, what):
    for name, (typ, modes) in fields.items():
        optional = typ.endswith(", optional")
        typ = typ.removesuffix(", optional")
        if modes in ("both", mode):
            if name not in obj:
                if not optional:
                    errors.append(f"{what}: missing {name}")
            elif not isinstance(obj[name], types[typ]):
                errors.append(f"{what}: {name} is not {typ}: {obj[name]!r}")
            elif typ == "[x, y, z]" and len(obj[name]) != 3:
                errors.append(f"{what}: {name} is not [x, y, z]")
        elif name in obj:
            errors.append(f"{what}: {name} is only for {modes} mode")
    for name in obj:
        if name not in fields:
            errors.append(f"{what}: {name} is not in {doc}")


k = subprocess.run([smemlab, "check", kernel, "--json", "-q"], capture_output=True, text=True,
                   timeout=300)
obj = json.loads(k.stdout)
validate(obj, "kernel", "kernel mode")
if not obj["findings"]:
    errors.append("kernel mode: expected findings in " + kernel)
p = subprocess.run([smemlab, "check", "--json", "--", program], capture_output=True, text=True,
                   timeout=300)
# (API error records, {"api_error": FINDING}, are the other shape of a line.)
lines = [l for l in (p.stdout + p.stderr).splitlines()
         if l.startswith("{") and "api_error" not in json.loads(l)]
if not lines:
    errors.append("program mode: no JSON line")
for i, l in enumerate(lines):
    o = json.loads(l)
    validate(o, "program", f"program mode line {i}")
    if o["launch"] != i:
        errors.append(f"program mode line {i}: launch {o['launch']}")
# The same launch's findings in both modes say the same.
if lines and obj["findings"] and {f["kind"] for f in obj["findings"]} != {
        f["kind"] for f in json.loads(lines[0])["findings"]}:
    errors.append("the two modes' findings differ in kind")
if errors:
    print("\n".join(errors))
    print(k.stdout[:2000], "\n", "\n".join(lines)[:2000])
    sys.exit(1)
print(f"ok: kernel mode and {len(lines)} program-mode launch(es) match {doc}")
