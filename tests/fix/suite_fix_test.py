#!/usr/bin/env python3
"""The suite's bank-conflicted kernels each get a verified fix that reaches
the ideal wavefronts on sm_90, and its patch applies with `patch -p1`;
conflict-free kernels get "nothing to fix"; a kernel whose output depends on
the layout has every proven candidate rejected.

usage: suite_fix_test.py SMEMLAB SOURCE_ROOT [KERNEL_FILE:KERNEL ...]
(with no kernels: the whole list below; ctest runs one kernel per test)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

CONFLICTED = [
    "kernels/tiles.cu:setRowReadCol",
    "kernels/tiles.cu:setColReadCol",
    "kernels/tiles.cu:setRowReadColDyn",
    "kernels/tiles.cu:setRowReadColRect",
    "kernels/tiles.cu:setRowReadColRectDyn",
    "kernels/tiles.cu:setRowReadCol8",
    "kernels/tiles.cu:setColReadCol8",
    "kernels/tiles.cu:setRowReadColRect8",
    "kernels/transpose.cu:transposeCoalesced",
    "kernels/reduction.cu:reduce_interleaved_strided",
]
CLEAN = [
    "kernels/tiles.cu:setRowReadRow",
    "kernels/tiles.cu:setRowReadColPad",
    "kernels/transpose.cu:transposeSwizzled",
    "kernels/filter.cu:fir_two_per_thread",
    "kernels/reduction.cu:reduce_sequential",
]
LAYOUT_DEPENDENT = ["tests/fix/raw_dump.cu:dumpTile"]


def fix_json(smemlab, root, spec):
    path, kernel = spec.split(":")
    p = subprocess.run([smemlab, "fix", path, "--kernel", kernel, "--json"], cwd=root,
                       capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise AssertionError(f"{spec}: exit {p.returncode}\n{p.stderr}")
    return p.returncode, json.loads(p.stdout)


def check_conflicted(smemlab, root, spec):
    code, j = fix_json(smemlab, root, spec)
    assert code == 0, f"{spec}: exit {code}: no verified fix"
    assert not j["nothing_to_fix"], f"{spec}: reported nothing to fix"
    for a in j["arrays"]:
        if a["skipped"]:
            continue
        verified = [c for c in a["candidates"] if c["verified"] == "yes"]
        assert verified, f"{spec}: array {a['name']}: no verified candidate"
        best = verified[0]["after"]["sm_90"]
        assert best["wavefronts"] == best["ideal"], (
            f"{spec}: array {a['name']}: best verified {verified[0]['change']} costs "
            f"{best['wavefronts']} wavefronts, ideal {best['ideal']}")
        # The rebuilt kernel, measured: with one array, the whole kernel is ideal.
        measured = verified[0]["measured_sm_90"]
        if len(j["arrays"]) == 1:
            assert measured["wavefronts"] == measured["ideal"] and measured["requests"] > 0, (
                f"{spec}: rebuilt kernel measured {measured}")
    # The patch applies to a copy of the tree with patch -p1.
    path, kernel = spec.split(":")
    patch = subprocess.run([smemlab, "fix", path, "--kernel", kernel, "--patch"], cwd=root,
                           capture_output=True, text=True, check=True).stdout
    assert patch.startswith(f"--- a/{path}\n"), f"{spec}: patch header:\n{patch[:200]}"
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, os.path.dirname(path)))
        shutil.copy(os.path.join(root, path), os.path.join(tmp, path))
        p = subprocess.run(["patch", "-p1", "--dry-run"], cwd=tmp, input=patch, text=True,
                           capture_output=True)
        assert p.returncode == 0, f"{spec}: patch -p1 --dry-run failed:\n{p.stdout}{p.stderr}"


def check_clean(smemlab, root, spec):
    code, j = fix_json(smemlab, root, spec)
    assert code == 0 and j["nothing_to_fix"], f"{spec}: expected nothing to fix, got {j}"


def check_layout_dependent(smemlab, root, spec):
    code, j = fix_json(smemlab, root, spec)
    assert code == 1, f"{spec}: expected exit 1 (no verified fix), got {code}"
    tried = [c for a in j["arrays"] for c in a["candidates"] if c["verified"] in ("yes", "no")]
    assert tried, f"{spec}: no candidate was proven"
    for c in tried:
        assert c["verified"] == "no" and "differs" in c["reason"], f"{spec}: {c}"


def main():
    smemlab, root = sys.argv[1], sys.argv[2]
    specs = sys.argv[3:] or CONFLICTED + CLEAN + LAYOUT_DEPENDENT
    for spec in specs:
        if spec in CONFLICTED:
            check_conflicted(smemlab, root, spec)
        elif spec in CLEAN:
            check_clean(smemlab, root, spec)
        elif spec in LAYOUT_DEPENDENT:
            check_layout_dependent(smemlab, root, spec)
        else:
            raise SystemExit(f"unknown kernel {spec}")
        print(f"ok {spec}")


if __name__ == "__main__":
    main()
