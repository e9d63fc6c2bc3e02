#!/usr/bin/env python3
"""Records test data for sass_test: one kernel's PTX (cut out of a module that
`nvcc -ptx -lineinfo -arch=sm_90` made) and nvdisasm's disassembly of what
ptxas makes of it, so the mapping is tested on recorded SASS even where
ptxas/nvdisasm are absent.

    record.py MODULE.ptx KERNEL OUT_BASE      (writes OUT_BASE.ptx, OUT_BASE.sass)

Uses ptxas from PATH and nvdisasm from PATH or $SMEMLAB_NVDISASM."""
import os, re, shutil, subprocess, sys, tempfile

src, kernel, out = sys.argv[1:4]
lines = open(src).read().split("\n")
keep, i = [], 0
entry = re.compile(r"^\.(visible|weak)?\s*\.?entry\s+(\S+)\(|^\.(visible|weak) \.entry (\S+)\(")
while i < len(lines):
    l = lines[i]
    m = re.match(r"^\.(?:visible |weak )?\.entry (\w+)\(", l) or re.match(r"^\.(?:visible |weak )?\.func", l)
    if m:
        # A whole function: to its closing brace at column 0.
        j = i
        while lines[j] != "}":
            j += 1
        if l.startswith(".visible .entry " + kernel + "(") or l.startswith(".entry " + kernel + "("):
            keep += lines[i:j + 1]
        i = j + 1
        continue
    keep.append(l)
    i += 1
ptx = "\n".join(keep)
open(out + ".ptx", "w").write(ptx)
nvdisasm = os.environ.get("SMEMLAB_NVDISASM") or shutil.which("nvdisasm")
with tempfile.TemporaryDirectory() as d:
    subprocess.run(["ptxas", "-arch=sm_90", "-lineinfo", "-o", d + "/k.cubin", out + ".ptx"], check=True)
    sass = subprocess.run([nvdisasm, "-g", "-c", d + "/k.cubin"], check=True, capture_output=True, text=True).stdout
open(out + ".sass", "w").write(sass)
