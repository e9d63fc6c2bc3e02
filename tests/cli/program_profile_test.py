#!/usr/bin/env python3
"""scripts/program-profile's attribution rules on a fixed `perf script` text
(tests/data/program_profile/samples.txt, one sample per case): a sample goes
to the first frame from the leaf up that a rule names, so a memcpy, a page
fault or a futex counts for its caller (block set-up, a kernel's loads, a
cudaMemcpy, the program's own copy, a synchronization); what no rule names is
counted by its leaf's object. A leaf-only classifier fails the first cases.
Usage: program_profile_test.py SOURCE_ROOT"""
import re
import subprocess
import sys

root = sys.argv[1]
out = subprocess.run([sys.executable, f"{root}/scripts/program-profile", "--script",
                      f"{root}/tests/data/program_profile/samples.txt", "--program-name", "scan",
                      "--freq", "10"], stdout=subprocess.PIPE, text=True, check=True).stdout
rows = {m.group(1): (int(m.group(2)), m.group(3))
        for m in re.finditer(r"^\| (.+?) \| (\d+) \| [0-9.]+ % \| ([0-9.]+) \|$", out, re.M)}
want = {
    "per-block set-up": 1,  # memcpy under init_warp
    "kernel instructions": 3,  # a page fault under lanes_access; the round loop; BlockRunner::run's own time
    "memcpy/memset calls": 2,  # memmove under Driver::copy (under the program's main); a memset under
    # a guarded entry point whose symbol holds " (" (template arguments)
    "the program's host code (and static cudart)": 2,  # memmove under main; scanExclusiveHost
    "waits (host threads, pool workers)": 2,  # futex under DeviceQueue::wait; the pool's loop
    "per-launch set-up": 1,
    "managed memory": 1,
    "stream/event bookkeeping": 1,
    "start-up (dynamic linking)": 1,
    "OS kernel (no smemlab or program frame)": 1,
    "unattributed (stack not unwound)": 2,  # [unknown]; __tls_get_addr without its caller (not start-up)
    "all": 17,
}
failures = []
for cat, n in want.items():
    got = rows.get(cat, (0, ""))[0]
    ok = got == n
    print(("ok   " if ok else "FAIL ") + f"{cat}: {got} samples (want {n})")
    if not ok:
        failures.append(cat)
# 17 samples at 10 per CPU second.
ok = rows.get("all", (0, ""))[1] == "1.7"
print(("ok   " if ok else "FAIL ") + "CPU seconds are samples / --freq")
if not ok:
    failures.append("seconds")
for extra in set(rows) - set(want):
    print(f"FAIL unexpected category {extra}")
    failures.append(extra)
sys.exit(1 if failures else 0)
