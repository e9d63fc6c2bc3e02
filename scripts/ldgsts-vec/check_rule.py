#!/usr/bin/env python3
"""Checks run 10's rule for the predicated LDGSTS (docs/bank-model.md, ".cg's
predicated form") against ncu's per-instruction rows of sgemm_async_*_vec
(tests/validation/hopper/h100-run10-ldgsts-sass.tsv), independently of
smemlab's C++: the lanes of each B copy are worked out from kernels/matmul.cu's
indexing for each sa_driver launch (scripts/ldgsts-vec/sa_driver.cu's CASES),
the plain form's wavefronts re-implemented here.
    check_rule.py tests/validation/hopper/h100-run10-ldgsts-sass.tsv
Prints one line per predicated instruction row that differs and the count."""
import collections, sys

CASES = {  # name: (tile, grid x, grid y, M, N, K), as sa_driver.cu
    "suite128": (128, 2, 2, 130, 132, 70), "suite64": (64, 2, 3, 130, 132, 70),
    "int128_p528": (128, 1, 1, 128, 132, 64), "int128_p512": (128, 1, 1, 128, 128, 64),
    "edge128_p528_all": (128, 1, 1, 127, 132, 64), "edge128_p512_all": (128, 1, 1, 127, 128, 64),
    "edge128_p528_k70": (128, 1, 1, 127, 132, 70), "edge128_p512_k70": (128, 1, 1, 127, 128, 70),
    "edge128_col": (128, 1, 1, 127, 4, 64), "edge128_col8": (128, 1, 1, 127, 8, 64),
    "edge128_col68": (128, 1, 1, 127, 68, 64), "edge128_col132x": (128, 2, 1, 127, 132, 64),
    "edge128_k16": (128, 1, 1, 127, 132, 16), "edge128_k8": (128, 1, 1, 127, 132, 8),
    "edge64_p528_all": (64, 1, 1, 63, 132, 64), "edge64_p528_k70": (64, 1, 1, 63, 132, 70)}


def plain_wavefronts(lanes):
    """The plain .cg form (bank/hopper_async.cc): one lane per shared
    destination, pairs within half-warps, groups by global line, shared line,
    sector half and (shared - global) mod 64, each the most requests on one
    global 16-byte chunk. lanes: [(lane, shared, global)]"""
    dest, pairs = set(), collections.defaultdict(list)
    for l, s, g in lanes:
        if s in dest:
            continue
        dest.add(s)
        pairs[(l // 16, s // 32, g // 32, (s - g) % 32)].append((s, g))
    groups = collections.defaultdict(collections.Counter)
    for v in pairs.values():
        s, g = min(x[0] for x in v), min(x[1] for x in v)
        half = 2 if len(v) == 2 else (g >> 4) & 1
        groups[(g >> 7, s >> 7, half, (s - g) % 64)][g // 16] += 1
    return sum(max(c.values()) for c in groups.values())


def predicated(lanes, p0):
    """lanes: 32 (shared, global, reads). Contiguous 16-byte lanes: the
    shared-side pass is one wavefront per quarter-warp."""
    shared_pass = 4
    if p0:
        return shared_pass
    zero_at = collections.Counter(g for s, g, r in lanes if not r)
    kept = [(l, s, g) for l, (s, g, r) in enumerate(lanes) if r or zero_at[g] == 1]
    return (plain_wavefronts(kept) if kept else 0) + (shared_pass if len(kept) < 32 else 0)


def b_copies(case):
    """(slot, lanes) per warp executing a checked B copy; slots in SASS order:
    the prologue's slices 0-2 then the loop's, copy i within."""
    tile, gx, gy, M, N, K = CASES[case]
    BN, BK, threads = 128, 16, 256 if tile == 128 else 128
    slices = (K + BK - 1) // BK
    out = []
    for by in range(gy):
        for bx in range(gx):
            row0, col0 = by * tile, bx * BN
            interior = row0 + tile <= M and col0 + BN <= N
            for s in range(slices):
                if interior and s * BK + BK <= K:
                    continue  # the plain form (cp_async16_at)
                for i in range(BK * BN // 4 // threads):
                    dk = i * (threads // 32)
                    for w in range(threads // 32):
                        lanes = []
                        for l in range(32):
                            k = s * BK + w + dk
                            ok = col0 + 4 * l < N and k < K
                            lanes.append(((w + dk) * BN * 4 + 16 * l, (k * N + col0 + 4 * l) * 4 if ok else 0, ok))
                        out.append(((0, s, i) if s < 3 else (1, 0, i), lanes))
    return out


def main():
    rows = collections.defaultdict(list)
    for line in open(sys.argv[1]):
        f = line.rstrip("\n").split("\t")
        if line.startswith("#") or f[0] == "launch" or "BYPASS" not in f[1]:
            continue
        op = f[1].split(",")
        if len(op) > 2 and op[-2].strip().lstrip("!").startswith("P"):  # `..., P3, [R0+..]`: predicated
            rows[f[0]].append((op[-2].strip(), int(f[2]), int(f[4])))
    same = n = 0
    for case in CASES:
        copies = b_copies(case)
        slots = sorted(set(s for s, _ in copies))
        for slot, (pred, execs, measured) in zip(slots, rows[case]):
            got = [predicated(l, pred == "P0") for s, l in copies if s == slot]
            n += 1
            if len(got) == execs and sum(got) == measured:
                same += 1
            else:
                print(f"{case} {slot} {pred}: ncu {measured} over {execs}, rule {sum(got)} over {len(got)}")
    print(f"{same} of {n} predicated-instruction rows equal")
    return 0 if same == n else 1


sys.exit(main())
