#!/usr/bin/env python3
"""Cases for `probe` family dsm_cl (h-hop28f, issue 28, run 12): which lanes of
one DSMEM atomic to the two blocks of one other TPC share an output wavefront,
and which sector of one block gets sent twice. Runs 10 and 11 found the
per-peer sector rule 1 … 3 sectors low when one 32-bit atomic reaches both
ranks of a TPC pair other than the issuer's, and the output wavefronts
(`l1tex__t_output_wavefronts_..._op_atom`) 2 where one TPC takes 1 and 3 where
sectors exceed. These cases are small on purpose: two or three lanes, one
factor at a time, so that each launch's wavefront count says which two lanes
can travel together. Every pattern goes to ranks (2, 3) of a cluster of 4 from
rank 0 (one other TPC, SMs 16/17 in runs 8 … 11); `_C` ones to ranks (1, 2)
(two TPCs) as the control; `_c8` to (4, 5) and `_c16` to (8, 9) of larger
clusters (other GPCs); `_rev` with the ranks swapped.
  two_X      A@0 then B@X: can a lane of the other block at byte X travel with
             A@0? (X: every word of the first 128 bytes' sector starts, every
             32 bytes to 2 KiB, and 4 … 12 KiB)
  twoa_X     A@X then B@0 (the first lane not at 0)
  twor_X     B@X then A@0 (the other block first)
  tri_X      A@0, B@X, A@4: does B's lane between two lanes of one A sector
             split that sector (sectors 3, not 2)? X over the first 2 KiB on
             bank 1 (A@4's bank) and bank 0, and a few other banks
  trib_X     A@0, B@X, A@32 (A's second lane on another sector)
  line_K_X   A on K lines (0, 128, …) then B@X: how many lines one wavefront takes
  ila_*      run 11's interleaved pattern cut to A's second line (sectors 4 … 7)
             or with A's pairs moved: where the +3 saturation comes from
Every line: NAME dsm_cl op=atom c=C from=F t=RANKS o=OFFSETS mask=HEX.
    gen_dsm_pair.py > scripts/hopper-rules/cases14.txt"""

TARGETS = {"P": (4, 0, 2, 3), "C": (4, 0, 1, 2), "c8": (8, 0, 4, 5), "c16": (16, 0, 8, 9)}


def case(name, lanes, where="P", op="atom"):
    """lanes: [('A'|'B', offset)] in lane order from lane 0."""
    c, frm, a, b = TARGETS[where]
    t, o = [frm] * 32, [0] * 32
    for i, (role, off) in enumerate(lanes):
        t[i] = a if role == "A" else b
        o[i] = off
    mask = (1 << len(lanes)) - 1
    return (f"d14_{name}_{where} dsm_cl op={op} c={c} from={frm} t={','.join(map(str, t))} "
            f"o={','.join(map(str, o))} mask={mask:#x}")


def main():
    out = []
    xs = sorted(set([0, 4, 8, 28, 124] + list(range(32, 2049, 32)) + [4096, 8192, 12288]))
    for x in xs:
        out.append(case(f"two_{x}", [("A", 0), ("B", x)]))
    for x in (0, 4, 32, 128, 256, 512, 1024, 1056):
        out.append(case(f"two_{x}", [("A", 0), ("B", x)], "C"))
        out.append(case(f"two_{x}", [("A", 0), ("B", x)], "c8"))
        out.append(case(f"two_{x}", [("A", 0), ("B", x)], "c16"))
    for x in (32, 128, 256, 1024, 1056, 1152):
        out.append(case(f"twoa_{x}", [("A", x), ("B", 0)]))
    for x in (0, 32, 128, 1024):
        out.append(case(f"twor_{x}", [("B", x), ("A", 0)]))
    # B between two lanes of one A sector (A@0, A@4: banks 0 and 1)
    tx = sorted(set([0, 4, 8, 36, 128, 132, 256, 260, 512, 516, 1024, 1028, 1032, 1056, 1060, 1152, 1156,
                     2048, 2052, 4100]))
    for x in tx:
        out.append(case(f"tri_{x}", [("A", 0), ("B", x), ("A", 4)]))
    for x in (4, 132, 1028):
        out.append(case(f"tri_{x}", [("A", 0), ("B", x), ("A", 4)], "C"))
        out.append(case(f"tri_{x}", [("A", 0), ("B", x), ("A", 4)], "c16"))
    # B before both (does order matter?) and A's second lane on another sector
    for x in (4, 132, 1028):
        out.append(case(f"trif_{x}", [("B", x), ("A", 0), ("A", 4)]))
        out.append(case(f"tril_{x}", [("A", 0), ("A", 4), ("B", x)]))
    for x in (32, 36, 160, 1056, 1060, 1024):
        out.append(case(f"trib_{x}", [("A", 0), ("B", x), ("A", 32)]))
    # A on K lines of its block, then B
    for k in (1, 2, 3, 4, 5):
        for x in (0, 128 * k, 1024):
            out.append(case(f"line_{k}_{x}", [("A", 128 * i) for i in range(k)] + [("B", x)]))
    # B on 2 lines, A on line 0 after (does one B lane on A's line pull A in?)
    out.append(case("bline_0_1024", [("B", 0), ("B", 1024), ("A", 0), ("A", 4)]))
    out.append(case("bline_1024_0", [("B", 1024), ("B", 0), ("A", 0), ("A", 4)]))
    # run 11's interleaved pattern (A0 B A0' B A1 B A1' B ...) on A's second line
    def il(secs, boffs):
        lanes = []
        for s, (b1, b2) in zip(secs, boffs):
            lanes += [("A", 32 * s), ("B", b1), ("A", 32 * s + 4), ("B", b2)]
        return lanes
    b = [(1024 + 64 * i, 1056 + 64 * i) for i in range(8)]
    out.append(case("ila_4567", il([4, 5, 6, 7], b)))
    out.append(case("ila_0123", il([0, 1, 2, 3], b)))
    out.append(case("ila_0145", il([0, 1, 4, 5], b)))
    out.append(case("ila_01234567", il(list(range(8)), b)))
    out.append(case("ila_4567_0123", il([4, 5, 6, 7, 0, 1, 2, 3], b)))
    # B's lanes all on line 8's first sector words (banks 0 … 7) or on other lines
    out.append(case("ila_0123_bline", il([0, 1, 2, 3], [(1024 + 8 * i, 1028 + 8 * i) for i in range(4)])))
    out.append(case("ila_0123_bfar", il([0, 1, 2, 3], [(1024 + 256 * i, 1056 + 256 * i) for i in range(4)])))
    out.append(case("ila_0123_bsame", il([0, 1, 2, 3], [(32 * i + 16, 32 * i + 20) for i in range(4)])))
    # the same with B's lanes only between A's pairs' first lanes (no B after A's second lane)
    out.append(case("il1_0123", [x for s in range(4) for x in (("A", 32 * s), ("B", 1056 + 64 * s), ("A", 32 * s + 4))]))
    out.append(case("il1_0123_b1", [x for s in range(4) for x in (("A", 32 * s), ("B", 1060 + 64 * s), ("A", 32 * s + 4))]))
    for line in out:
        print(line)


main()
