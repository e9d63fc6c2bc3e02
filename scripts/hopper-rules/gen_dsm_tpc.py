#!/usr/bin/env python3
"""Cases for `probe` family dsm_cl (h-hop28d, issue 28, run 11: sizing DSMEM's
cross-TPC excess). Run 10 found the per-peer sector rule undercounting (+1 or
+2) exactly when an instruction's atomics reach both ranks of a TPC pair that
is not the issuer's. Each family here varies one factor, every pattern sent to
ranks (2, 3) of a cluster of 4 from rank 0 (one other TPC: `_P`) and, as the
control, to ranks (1, 2) (two TPCs: `_C`, where the rule holds):
  n_K_M     lanes per target rank: K lanes to A, M to B, each its own sector
  rep_*     one repeat in A (a lane on a sector A already has; `w`: the same
            word, `s`: another word of the sector) beside M distinct B sectors,
            and where B's lanes sit relative to the repeat (order)
  word_K    K lanes of A on one word (K turns) beside 4 distinct B sectors
  alias_*   a B lane on the same offset as A's repeated sector, or not
  ord_*     one lane set in blocked, interleaved, B-first and reversed order
  op_*      a few patterns as atom, red, atom64 and red64 (8-byte words), ld
  h_*       the seven cluster_histogram atomics of runs 7/10 (cases10.txt's
            _c4f0_23 lanes) as red, atom64 and red64
    gen_dsm_tpc.py scripts/hopper-rules/cases10.txt > scripts/hopper-rules/cases12.txt
With `interleave` as the second argument: the second call's cases13.txt, sizing
what run 11 found (32-bit atomics only: A's sector repeats interleaved with B's
lanes cost; blocked, one repeat, or 64-bit, they do not):
  il_K      the interleaved pattern A0 B A0' B A1 B A1' B ... cut to K A-sectors
  ildrop_K  the 4-sector pattern without A-sector K
  ilpos16   the same in lanes 16..31
  ilswap    A on rank 3, B on rank 2
  ilgap_G   A0 A0' with G B lanes between, twice (A0, A1)
  ilw_D     the pairs' second word D bytes after the first (4, 8, 16, 28)
  ilbrep    B's lanes on one sector (its own repeats interleaved)
  ilmulti   one A sector taken by 4 lanes, B between each
  il2x2     A0 A0' B B A1 A1' B B ... (rank alternating every 2 lanes)
  illate    A0 B A1 B A0' B A1' B (each repeat two A lanes later)
  again_*   three run-11 cases again (is the count repeatable?)
Every line: NAME dsm_cl op=OP c=4 from=0 t=RANKS o=OFFSETS mask=HEX."""
import sys

PAIRS = {"P": (2, 3), "C": (1, 2)}


def case(name, lanes, op="atom", pairs="PC"):
    """lanes: [(lane, 'A'|'B', offset)]; unused lanes stay on rank 0, masked off."""
    out = []
    for p in pairs:
        a, b = PAIRS[p]
        t, o, mask = [0] * 32, [0] * 32, 0
        for lane, role, off in lanes:
            t[lane] = a if role == "A" else b
            o[lane] = off
            mask |= 1 << lane
        out.append(f"d12_{name}_{op}_{p} dsm_cl op={op} c=4 from=0 t={','.join(map(str, t))} "
                   f"o={','.join(map(str, o))} mask={mask:#x}")
    return out


def families():
    lines = []
    # lanes per rank, distinct sectors (32 B apart), A in lanes 0.., B in 16..
    for k, m in ((1, 1), (2, 2), (4, 4), (8, 8), (16, 16), (1, 8), (8, 1), (4, 12), (16, 1)):
        lanes = [(i, "A", 32 * i) for i in range(k)] + [(16 + j, "B", 32 * j + 1024) for j in range(m)]
        lanes = [(l % 32, r, off) for l, r, off in lanes]
        lines += case(f"n_{k}_{m}", lanes)
    # one repeat in A: lane 0 on sector 0, lane 1 on it again (w: word 0, s: word 1)
    for kind, off in (("w", 0), ("s", 4)):
        for m in (0, 1, 2, 4, 8):
            base = [(0, "A", 0), (1, "A", off)] + [(2 + j, "B", 32 * j + 1024) for j in range(m)]
            lines += case(f"rep{kind}_m{m}", base)
        # B's lanes between the two A lanes, and before both
        lines += case(f"rep{kind}_between", [(0, "A", 0)] + [(1 + j, "B", 32 * j + 1024) for j in range(4)] + [(5, "A", off)])
        lines += case(f"rep{kind}_bfirst", [(j, "B", 32 * j + 1024) for j in range(4)] + [(4, "A", 0), (5, "A", off)])
        # the repeat 16 lanes later, A with 4 other sectors
        lines += case(f"rep{kind}_far", [(0, "A", 0)] + [(1 + j, "A", 32 * (j + 1)) for j in range(4)]
                      + [(8 + j, "B", 32 * j + 1024) for j in range(4)] + [(16, "A", off)])
    # K lanes of A on one word (K turns), 4 distinct B sectors
    for k in (2, 4, 8, 16):
        lines += case(f"word_{k}", [(i, "A", 0) for i in range(k)] + [(16 + j, "B", 32 * j + 1024) for j in range(4)])
    # a B lane on the offset of A's repeated sector (another block's bytes, same offset), or not
    for kind, off in (("w", 0), ("s", 4)):
        for boff, tag in ((0, "same"), (4, "samesec"), (32, "next"), (1024, "far")):
            lines += case(f"alias{kind}_{tag}", [(0, "A", 0), (1, "B", boff), (2, "A", off)])
            lines += case(f"alias{kind}_{tag}_after", [(0, "A", 0), (1, "A", off), (2, "B", boff)])
    # order: 8 A lanes on 4 sectors (pairs, words 0 and 1) and 8 B lanes on 8 sectors
    a_l = [("A", 32 * (i // 2) + 4 * (i % 2)) for i in range(8)]
    b_l = [("B", 1024 + 32 * j) for j in range(8)]
    orders = {
        "blocked": a_l + b_l,
        "bfirst": b_l + a_l,
        "inter": [x for pair in zip(a_l, b_l) for x in pair],
        "rev": list(reversed(a_l + b_l)),
    }
    for name, seq in orders.items():
        lines += case(f"ord_{name}", [(i, r, off) for i, (r, off) in enumerate(seq)])
    return lines


def op_cases():
    lines = []
    pats = {
        "n_8_8": [(i, "A", 32 * i) for i in range(8)] + [(16 + j, "B", 1024 + 32 * j) for j in range(8)],
        "reps_m4": [(0, "A", 0), (1, "A", 4)] + [(2 + j, "B", 1024 + 32 * j) for j in range(4)],
        "word_4": [(i, "A", 0) for i in range(4)] + [(16 + j, "B", 1024 + 32 * j) for j in range(4)],
        "ord_inter": [(i, r, off) for i, (r, off) in enumerate(
            [x for pair in zip([("A", 32 * (i // 2) + 4 * (i % 2)) for i in range(8)],
                               [("B", 1024 + 32 * j) for j in range(8)]) for x in pair])],
    }
    for name, lanes in pats.items():
        for op in ("red", "atom64", "red64", "ld"):
            # 64-bit: every offset doubled keeps words distinct and 8-byte aligned
            l2 = [(l, r, 2 * off) for l, r, off in lanes] if op.endswith("64") else lanes
            lines += case(f"op_{name}", l2, op=op)
    return lines


def histogram(path):
    lines = []
    for line in open(path):
        f = line.split()
        if len(f) > 2 and f[0].endswith("_c4f0_23_atom"):
            name = f[0][len("d10_"):-len("_c4f0_23_atom")]
            kv = dict(x.split("=", 1) for x in f[2:])
            for op in ("atom", "red", "atom64", "red64"):
                o = kv["o"]
                if op.endswith("64"):  # the same words, 8 bytes apart
                    o = ",".join(str(2 * int(x)) for x in o.split(","))
                lines.append(f"d12_h_{name}_{op}_P dsm_cl op={op} c=4 from=0 t={kv['t']} o={o} mask={kv['mask']}")
    return lines


def inter(k, d=4, start=0, drop=None):
    """A0 B A0' B A1 B A1' B ... for k A-sectors (A's second word d bytes on)."""
    seq = []
    for i in range(k):
        for w in (0, d):
            seq.append(("A", 32 * i + w) if i != drop else None)
            seq.append(("B", 1024 + 32 * len([x for x in seq if x is None or x[0] == "B"])))
    return [(start + i, x[0], x[1]) for i, x in enumerate(seq) if x is not None]


def interleave_cases():
    lines = []
    for k in (1, 2, 3, 4, 6, 8):
        lines += case(f"il_{k}", inter(k), pairs="PC" if k in (2, 4) else "P")
    for k in range(4):
        lines += case(f"ildrop_{k}", inter(4, drop=k), pairs="P")
    lines += case("ilpos16", inter(4, start=16), pairs="P")
    swapped = [(l, "B" if r == "A" else "A", off) for l, r, off in inter(4)]
    lines += case("ilswap", swapped, pairs="P")
    for g in (1, 2, 3, 4):
        seq = []
        for i in range(2):
            seq.append(("A", 32 * i))
            seq += [("B", 1024 + 32 * (len(seq) + j)) for j in range(g)]
            seq.append(("A", 32 * i + 4))
        lines += case(f"ilgap_{g}", [(i, r, off) for i, (r, off) in enumerate(seq)], pairs="P")
    for d in (8, 16, 28):
        lines += case(f"ilw_{d}", inter(4, d=d), pairs="P")
    brep = [(l, r, off if r == "A" else 1024 + 4 * (l // 2)) for l, r, off in inter(4)]
    lines += case("ilbrep", brep, pairs="P")
    multi = []
    for w in range(4):
        multi += [(2 * w, "A", 4 * w), (2 * w + 1, "B", 1024 + 32 * w)]
    lines += case("ilmulti", multi, pairs="P")
    seq = []
    for i in range(4):
        seq += [("A", 32 * i), ("A", 32 * i + 4), ("B", 1024 + 64 * i), ("B", 1024 + 64 * i + 32)]
    lines += case("il2x2", [(i, r, off) for i, (r, off) in enumerate(seq)], pairs="P")
    seq = [("A", 0), ("B", 1024), ("A", 32), ("B", 1056), ("A", 4), ("B", 1088), ("A", 36), ("B", 1120)]
    lines += case("illate", [(i, r, off) for i, (r, off) in enumerate(seq)], pairs="PC")
    for op in ("atom64",):
        lines += case("il_4", [(l, r, 2 * off) for l, r, off in inter(4)], op=op, pairs="P")
    return lines


def main():
    print("# Generated by gen_dsm_tpc.py; NAME dsm_cl key=value ... (probe.cu)")
    if len(sys.argv) > 2 and sys.argv[2] == "interleave":
        for l in interleave_cases():
            print(l.replace("d12_", "d13_"))
        for l in families() + histogram(sys.argv[1]):  # run 11's, again
            if l.split()[0] in ("d12_ord_inter_atom_P", "d12_h_b0_w0_i4_atom_P", "d12_h_b3_w0_i0_atom_P"):
                print(l.replace("d12_", "d13_again_"))
        return
    for l in families() + op_cases() + histogram(sys.argv[1]):
        print(l)


main()
