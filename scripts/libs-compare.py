#!/usr/bin/env python3
"""Compares two result dumps of a tests/programs/libs program (common.h's
format: records of name|kind|tol and raw values): the H100's (native) and
smemlab's. Each record must agree within 2x its check's tolerance, relative
to max(1, |native|); a tolerance of 0 means bit for bit. Prints one line per
record and exits 1 if any differs."""
import math
import re
import struct
import sys

SIZES = {"f": (4, "f"), "d": (8, "d"), "c": (8, "ff"), "z": (16, "dd"), "u": (4, "I")}


def read(path):
    recs = {}
    with open(path, "rb") as f:
        data = f.read()
    i = 0
    while i < len(data):
        (n,) = struct.unpack_from("<I", data, i)
        name = data[i + 4 : i + 4 + n].decode()
        i += 4 + n
        (b,) = struct.unpack_from("<I", data, i)
        raw = data[i + 4 : i + 4 + b]
        i += 4 + b
        label, kind, tol = name.split("|")
        size, fmt = SIZES[kind]
        vals = []
        for k in range(0, len(raw), size):
            v = struct.unpack_from("<" + fmt, raw, k)
            vals.append(complex(v[0], v[1]) if len(v) == 2 else v[0])
        recs[label] = (kind, float(tol), vals)
    return recs


def main():
    # --only REGEX: compare the records whose name matches (the others are
    # measurements smemlab does not claim, e.g. curand_probe's MTGP32).
    args = sys.argv[1:]
    only = None
    if args and args[0] == "--only":
        only, args = re.compile(args[1]), args[2:]
    sys.argv[1:] = args
    native, ours = read(sys.argv[1]), read(sys.argv[2])
    if only:
        native = {k: v for k, v in native.items() if only.search(k)}
    bad = 0
    for label, (kind, tol, nv) in native.items():
        if label not in ours:
            print(f"MISSING {label} (not in smemlab's dump)")
            bad += 1
            continue
        ov = ours[label][2]
        tol = ours[label][1]  # smemlab's dump states it exactly (%g)
        if len(ov) != len(nv):
            print(f"DIFFER {label}: {len(ov)} values, native {len(nv)}")
            bad += 1
            continue
        if tol == 0:
            same = sum(1 for a, b in zip(nv, ov) if a == b or (a != a and b != b))
            ok = same == len(nv)
            print(f"{'SAME' if ok else 'DIFFER'} {label}: {same}/{len(nv)} bit-exact")
        else:
            err = max((abs(a - b) / max(1.0, abs(a)) for a, b in zip(nv, ov)), default=0.0)
            ok = err <= 2 * tol or (math.isnan(err) is False and err == 0)
            print(f"{'SAME' if ok else 'DIFFER'} {label}: max rel diff {err:.3g} (tol {2 * tol:.1g})")
        bad += not ok
    print(f"{sys.argv[1]}: {len(native) - bad}/{len(native)} records agree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
