#!/usr/bin/env python3
"""Cases for `probe` family dsm_cl (h-hop28f, issue 28, run 13, second call):
pinning the DSMEM slice function found in the first call (cases14.txt).
Two lanes of one atomic, to ranks a and b at byte offsets 0 and X, share an
output wavefront unless their slices are equal; the slice of (rank, offset)
is a 2-bit XOR of the offset's 128-byte line bits and the rank bits. These
two-lane cases pin the bits the first call left open:
  sb_BIT_K   ranks (2, 3) (slices 1 apart), X = 2^BIT + 128 K (BIT 11, 13)
  sr_A_B_K_F ranks A and B of a cluster of C from rank F, X = 128 K
             (K = 0 … 3 walks X's slice through all four values)
and `rnd_N` are random patterns (clusters of 4, 8 and 16, random issuer,
ranks, offsets below 16 KiB, 8 … 32 lanes, some on few words) predicted by
the rule before the call (the out-of-sample check).
    gen_dsm_slice.py > scripts/hopper-rules/cases15.txt"""
import random


def case(name, c, frm, lanes):
    t, o = [frm] * 32, [0] * 32
    for i, (r, off) in enumerate(lanes):
        t[i], o[i] = r, off
    mask = (1 << len(lanes)) - 1
    return (f"d15_{name} dsm_cl op=atom c={c} from={frm} t={','.join(map(str, t))} "
            f"o={','.join(map(str, o))} mask={mask:#x}")


def main():
    out = []
    for bit in (11, 12, 13):
        for k in range(4):
            x = (1 << bit) + 128 * k
            out.append(case(f"sb_{bit}_{k}", 4, 0, [(2, 0), (3, x)]))
            out.append(case(f"sbc_{bit}_{k}", 4, 0, [(1, 0), (2, x)]))
    pairs = [(8, 0, 1, 5), (8, 0, 2, 6), (8, 0, 3, 7), (8, 1, 0, 4), (8, 0, 1, 2), (8, 0, 1, 3), (8, 0, 2, 4),
             (8, 0, 3, 4), (8, 0, 1, 6), (8, 0, 5, 6), (8, 0, 4, 7), (8, 2, 0, 1), (8, 5, 6, 7), (4, 1, 2, 3),
             (4, 3, 0, 1), (4, 1, 0, 2), (4, 2, 1, 3), (16, 0, 1, 9), (16, 0, 2, 10), (16, 0, 3, 12),
             (16, 0, 7, 8), (16, 0, 6, 13), (16, 5, 4, 12), (16, 0, 8, 9), (16, 0, 14, 15), (16, 3, 1, 15)]
    for c, f, a, b in pairs:
        for k in range(4):
            out.append(case(f"sr_{a}_{b}_{k}_c{c}f{f}", c, f, [(a, 0), (b, 128 * k)]))
    rng = random.Random(28)
    for n in range(48):
        c = rng.choice((4, 8, 16))
        f = rng.randrange(c)
        peers = [r for r in range(c) if r != f]
        use = rng.sample(peers, min(len(peers), rng.choice((2, 2, 3, 4))))
        nl = rng.choice((8, 16, 24, 32))
        words = rng.choice((8, 64, 4096))  # few words (repeats, turns) … spread over 16 KiB
        base = rng.randrange(0, 16384 - 4 * words + 4, 4)
        lanes = [(rng.choice(use), base + 4 * rng.randrange(words)) for _ in range(nl)]
        out.append(case(f"rnd_{n}_c{c}f{f}", c, f, lanes))
    for line in out:
        print(line)


main()
