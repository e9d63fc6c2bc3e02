#!/usr/bin/env python3
"""Writes cases.txt for probe.cu (scripts/hopper-rules): the launches whose
Nsight Compute counters pin down Hopper's shared-memory rules. Each family
has a baseline (count=0: the same scaffolding without the probed
instruction) and parameter sweeps chosen so that every counter should move
with a parameter (a rule, not one point); a few count=2 cases check that a
counter grows by the same amount per instruction.
    gen_cases.py > cases.txt
    gen_cases.py targeted > cases2.txt   (the second call: global and remote
        sides of TMA/bulk copies, DSMEM sectors, cp.async's shared side)
    gen_cases.py cp.async > cases3.txt   (the third: cp.async lanes at
        arbitrary addresses, for the .cg shared side)"""

out = []


def case(name, family, **kv):
    out.append(f"{name} {family} " + " ".join(f"{k}={v}" for k, v in kv.items()))


# --- TMA (cp.async.bulk.tensor), es=4 unless said; box = inner elements, rows
SPAN = {0: 0, 1: 32, 2: 64, 3: 128}
for mode in ("load", "store"):
    m = mode[0]
    case(f"tma_{m}_base", "tma", mode=mode, sw=0, box="4,1", count=0)
    for sw in range(4):
        inners = [16, 32, 48, 64, 96, 128, 256, 1024] if sw == 0 else \
                 [b for b in (16, 32, 48, 64, 96, 128) if b <= SPAN[sw]]
        for inner in inners:
            soffs = [0]
            if sw == 0 and inner in (16, 48, 96):
                soffs += [384]
            if sw:
                soffs += [384]
            if sw == 3 and inner == 16:
                soffs += [128, 640]
            for rows in (1, 8):
                for soff in soffs:
                    case(f"tma_{m}_sw{sw}_i{inner}_r{rows}_o{soff}", "tma", mode=mode, sw=sw,
                         box=f"{inner // 4},{rows}", soff=soff)
    for sw, inner in ((0, 16), (0, 64), (3, 128), (1, 32)):
        for rows in (2, 4, 16, 64):
            case(f"tma_{m}_sw{sw}_i{inner}_r{rows}_o0", "tma", mode=mode, sw=sw, box=f"{inner // 4},{rows}")
    case(f"tma_{m}_sw3_i128_r8_es2", "tma", mode=mode, sw=3, es=2, box="64,8")
    case(f"tma_{m}_sw3_i128_r8_es1", "tma", mode=mode, sw=3, es=1, box="128,8")
    case(f"tma_{m}_sw0_i16_r8_es1", "tma", mode=mode, sw=0, es=1, box="16,8")
    case(f"tma_{m}_sw2_i64_r8_es2", "tma", mode=mode, sw=2, es=2, box="32,8")
    case(f"tma_{m}_sw0_3d_i64_r4x2", "tma", mode=mode, sw=0, box="16,4,2")
    case(f"tma_{m}_sw3_3d_i128_r4x2", "tma", mode=mode, sw=3, box="32,4,2")
    case(f"tma_{m}_sw3_i128_r8_c2", "tma", mode=mode, sw=3, box="32,8", count=2)
    case(f"tma_{m}_sw0_i48_r8_c2", "tma", mode=mode, sw=0, box="12,8", count=2)

# --- bulk copies (cp.async.bulk, no tensor map)
for mode in ("load", "store"):
    m = mode[0]
    case(f"bulk_{m}_base", "bulk", mode=mode, bytes=16, count=0)
    for b in (16, 32, 48, 64, 128, 256, 512, 1024, 4096):
        case(f"bulk_{m}_b{b}_o0", "bulk", mode=mode, bytes=b)
    for b in (16, 64, 128, 256):
        for soff in (16, 48, 80):
            case(f"bulk_{m}_b{b}_o{soff}", "bulk", mode=mode, bytes=b, soff=soff)
    case(f"bulk_{m}_b256_o0_c2", "bulk", mode=mode, bytes=256, count=2)


# --- wgmma operand reads (m64nNk16 f16). Descriptor: start/LBO/SBO >> 4,
# base offset bits 49-51, swizzle bits 62-63 (0 none, 1 128B, 2 64B, 3 32B).
CODE = {0: 0, 128: 1, 64: 2, 32: 3}
A_AT, B_AT = 0, 0x10000


def desc(start, lbo, sbo, sw, base=0):
    return hex((start >> 4) | ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (base << 49) | (CODE[sw] << 62))


def canon(sw, mn_major, n):
    """(LBO, SBO) of the canonical layout of an n-row operand, K = 16 f16."""
    if not mn_major:
        return {0: (128, 256), 32: (0, 256), 64: (0, 512), 128: (0, 1024)}[sw]
    if sw == 0:
        return ((n // 8) * 128, 128)  # k-adjacent core matrices after all mn ones
    return {32: (512, 256), 64: (1024, 512), 128: (2048, 1024)}[sw]


def gmma(name, n, ss=0, ta=0, tb=0, a=None, b=None, count=1):
    da = a if a is not None else desc(A_AT, *canon(0, ta, 64), 0)
    case(name, "gmma", n=n, ss=ss, ta=ta, tb=tb, da=da, db=b, count=count)


gmma("gmma_rs_base", 8, b=desc(B_AT, *canon(0, 0, 8), 0), count=0)
gmma("gmma_ss_base", 8, ss=1, b=desc(B_AT, *canon(0, 0, 8), 0), count=0)
for sw in (0, 32, 64, 128):
    for n in (8, 16, 32, 64, 128, 256):
        gmma(f"gmma_rs_bk_sw{sw}_n{n}", n, b=desc(B_AT, *canon(sw, 0, n), sw))
    for n in (8, 16, 64, 256):
        gmma(f"gmma_rs_bmn_sw{sw}_n{n}", n, tb=1, b=desc(B_AT, *canon(sw, 1, n), sw))
    gmma(f"gmma_ss_ak_sw{sw}_n8", 8, ss=1, a=desc(A_AT, *canon(sw, 0, 64), sw),
         b=desc(B_AT, *canon(0, 0, 8), 0))
    gmma(f"gmma_ss_amn_sw{sw}_n8", 8, ss=1, ta=1, a=desc(A_AT, *canon(sw, 1, 64), sw),
         b=desc(B_AT, *canon(0, 0, 8), 0))
gmma("gmma_ss_ak_sw128_bk_sw128_n256", 256, ss=1, a=desc(A_AT, *canon(128, 0, 64), 128),
     b=desc(B_AT, *canon(128, 0, 256), 128))
gmma("gmma_rs_bk_sw128_n64_c2", 64, b=desc(B_AT, *canon(128, 0, 64), 128), count=2)
gmma("gmma_rs_bk_sw0_n64_c2", 64, b=desc(B_AT, *canon(0, 0, 64), 0), count=2)
gmma("gmma_ss_ak_sw0_n64_c2", 64, ss=1, b=desc(B_AT, *canon(0, 0, 64), 0), count=2)
# start address off the swizzle repeat, base offset 0 and matching
for sw, offs in ((128, (128, 256, 512, 896)), (64, (128, 256)), (32, (128,))):
    for off in offs:
        gmma(f"gmma_rs_bk_sw{sw}_n64_at{off}_base0", 64, b=desc(B_AT + off, *canon(sw, 0, 64), sw))
        if sw == 128:
            gmma(f"gmma_rs_bk_sw{sw}_n64_at{off}_base{(off >> 7) & 7}", 64,
                 b=desc(B_AT + off, *canon(sw, 0, 64), sw, (off >> 7) & 7))
# k-steps inside a swizzled row (CUTLASS advances the start by 32 bytes)
for sw, ks in ((128, (32, 64, 96)), (64, (32,))):
    for k in ks:
        gmma(f"gmma_rs_bk_sw{sw}_n64_k{k}", 64, b=desc(B_AT + k, *canon(sw, 0, 64), sw))
        gmma(f"gmma_ss_ak_sw{sw}_k{k}_n8", 8, ss=1, a=desc(A_AT + k, *canon(sw, 0, 64), sw),
             b=desc(B_AT, *canon(0, 0, 8), 0))
# strides other than the canonical ones
for lbo, sbo in ((1024, 128), (128, 512), (2048, 256), (64, 256), (16, 256), (128, 128), (256, 1024)):
    gmma(f"gmma_rs_bk_sw0_n64_l{lbo}_s{sbo}", 64, b=desc(B_AT, lbo, sbo, 0))
for sw, sbos in ((128, (2048, 1152, 512, 128)), (64, (1024, 576, 256)), (32, (512, 288, 128))):
    for sbo in sbos:
        gmma(f"gmma_rs_bk_sw{sw}_n64_s{sbo}", 64, b=desc(B_AT, 0, sbo, sw))
for lbo, sbo in ((128, 256), (1024, 1024), (128, 2048)):
    gmma(f"gmma_rs_bmn_sw0_n64_l{lbo}_s{sbo}", 64, tb=1, b=desc(B_AT, lbo, sbo, 0))
for lbo in (1024, 4096):
    gmma(f"gmma_rs_bmn_sw128_n256_l{lbo}", 256, tb=1, b=desc(B_AT, lbo, 1024, 128))

# --- ldmatrix / stmatrix
for op in ("st", "ld"):
    case(f"mat_{op}_base", "mat", op=op, x=1, stride=16, count=0)
for x in (1, 2, 4):
    for stride, swz in ((16, 0), (32, 0), (48, 0), (64, 0), (128, 0), (128, 1), (256, 0)):
        case(f"mat_st_x{x}_s{stride}{'z' if swz else ''}", "mat", op="st", x=x, stride=stride, swz=swz)
for stride, swz in ((16, 0), (128, 0), (128, 1)):
    case(f"mat_st_x4t_s{stride}{'z' if swz else ''}", "mat", op="st", x=4, trans=1, stride=stride, swz=swz)
    case(f"mat_ld_x4t_s{stride}{'z' if swz else ''}", "mat", op="ld", x=4, trans=1, stride=stride, swz=swz)
for x, stride, swz in ((4, 16, 0), (4, 32, 0), (4, 128, 0), (4, 128, 1), (1, 16, 0), (1, 128, 0), (2, 64, 0)):
    case(f"mat_ld_x{x}_s{stride}{'z' if swz else ''}", "mat", op="ld", x=x, stride=stride, swz=swz)
case("mat_st_x4_s16_c2", "mat", op="st", x=4, stride=16, count=2)
case("mat_ld_x4_s128_c2", "mat", op="ld", x=4, stride=128, count=2)

# --- distributed shared memory (block 0 -> block 1 of a cluster of 2)
case("dsm_base", "dsm", op="none")
for op in ("ld", "st"):
    for width, strides in ((4, (4, 8, 128, 0, 132)), (8, (8, 16, 256, 0)), (16, (16, 32, 512, 0))):
        for s in strides:
            case(f"dsm_{op}{width}_s{s}", "dsm", op=op, width=width, stride=s)
    case(f"dsm_{op}4_s4_half", "dsm", op=op, width=4, stride=4, mask="0x0000ffff")
    case(f"dsm_{op}4_s4_one", "dsm", op=op, width=4, stride=4, mask="0x1")
    case(f"dsm_{op}4_s4_self", "dsm", op=op, width=4, stride=4, target=0)
    case(f"dsm_{op}4_s4_generic", "dsm", op=op, width=4, stride=4, generic=1)
for op, strides in (("atom", (4, 8, 128, 0)), ("red", (4, 128, 0))):
    for s in strides:
        case(f"dsm_{op}_s{s}", "dsm", op=op, width=4, stride=s)
case("dsm_ld4_s4_c2", "dsm", op="ld", width=4, stride=4, count=2)

# --- cp.async (LDGSTS)
case("ldgsts_base", "ldgsts", size=4, count=0)
for size in (4, 8, 16):
    for ss in (size, 2 * size, 128, 0):
        for gs in (size, 128):
            case(f"ldgsts_ca{size}_s{ss}_g{gs}", "ldgsts", size=size, sstride=ss, gstride=gs)
for ss in (16, 32, 128, 0):
    for gs in (16, 128):
        case(f"ldgsts_cg16_s{ss}_g{gs}", "ldgsts", size=16, cg=1, sstride=ss, gstride=gs)
case("ldgsts_ca4_s4_g4_half", "ldgsts", size=4, sstride=4, gstride=4, mask="0x0000ffff")
case("ldgsts_ca16_s16_g16_half", "ldgsts", size=16, sstride=16, gstride=16, mask="0x0000ffff")
case("ldgsts_ca4_s4_g4_one", "ldgsts", size=4, sstride=4, gstride=4, mask="0x1")
case("ldgsts_ca16_s16_g16_c2", "ldgsts", size=16, sstride=16, gstride=16, count=2)

main_cases = out
out = []

# ---- second, targeted call: the global/remote sides and cp.async's shared side
for mode in ("load", "store", "reduce"):
    m = mode[0]
    case(f"tma2_{m}_base", "tma", mode=mode, sw=0, box="4,1", count=0)
    for inner in (16, 48, 64, 128, 160, 256):
        for off in (0, 16, 112):
            for rows in (1, 4):
                case(f"tma2_{m}_i{inner}_c{off}_r{rows}", "tma", mode=mode, sw=0, box=f"{inner // 4},{rows}",
                     c=f"{off // 4},0")
    for sw in (1, 2, 3):
        case(f"tma2_{m}_sw{sw}_i{SPAN[sw]}_c16_r4", "tma", mode=mode, sw=sw, box=f"{SPAN[sw] // 4},4", c="4,0")
    for off in (0, 16):
        case(f"tma2_{m}_pitch800_i64_c{off}_r4", "tma", mode=mode, sw=0, dim0=200, box="16,4", c=f"{off // 4},0")
    case(f"tma2_{m}_pitch784_i16_c0_r8", "tma", mode=mode, sw=0, dim0=196, box="4,8")
    case(f"tma2_{m}_oobrows_i64_r4", "tma", mode=mode, sw=0, box="16,4", c="0,62")
    case(f"tma2_{m}_oobcols_i128_r2", "tma", mode=mode, sw=0, box="32,2", c="240,0")
    if mode != "reduce":  # .add has no u16 form
        case(f"tma2_{m}_es2_i48_c16_r4", "tma", mode=mode, sw=0, es=2, box="24,4", c="8,0")
    case(f"tma2_{m}_i64_r4_c2", "tma", mode=mode, sw=0, box="16,4", count=2)
for mode in ("load", "store"):
    m = mode[0]
    for b in (16, 48, 64, 112, 128, 256, 1024):
        for goff in (0, 16, 48, 96):
            case(f"bulk2_{m}_b{b}_g{goff}", "bulk", mode=mode, bytes=b, goff=goff)
case("dsm2_base", "dsm", op="none")
for op in ("ld", "st"):
    for s_, perm in ((4, 0), (12, 0), (16, 0), (32, 0), (64, 0), (256, 0), (4, 1), (4, 2), (8, 3), (4, 3)):
        case(f"dsm2_{op}4_s{s_}_p{perm}", "dsm", op=op, width=4, stride=s_, perm=perm)
    case(f"dsm2_{op}4_s4_o4", "dsm", op=op, width=4, stride=4, soff=4)
    case(f"dsm2_{op}4_s4_o64", "dsm", op=op, width=4, stride=4, soff=64)
    case(f"dsm2_{op}4_s4_m55", "dsm", op=op, width=4, stride=4, mask="0x55555555")
    case(f"dsm2_{op}4_s4_m0f", "dsm", op=op, width=4, stride=4, mask="0x0000000f")
    for s_ in (8, 24, 64, 128):
        case(f"dsm2_{op}8_s{s_}", "dsm", op=op, width=8, stride=s_)
    for s_ in (16, 48, 64, 128, 256):
        case(f"dsm2_{op}16_s{s_}", "dsm", op=op, width=16, stride=s_)
    case(f"dsm2_{op}16_s16_o16", "dsm", op=op, width=16, stride=16, soff=16)
for op in ("atom", "red"):
    for s_, perm in ((4, 0), (12, 0), (32, 0), (128, 0), (0, 0), (4, 3), (8, 1)):
        case(f"dsm2_{op}_s{s_}_p{perm}", "dsm", op=op, width=4, stride=s_, perm=perm)
    case(f"dsm2_{op}_s4_half", "dsm", op=op, width=4, stride=4, mask="0x0000ffff")
case("ldgsts2_base", "ldgsts", size=4, count=0)
for tag, kv in (
        ("ca4_s4_g4", dict(size=4)), ("ca4_s4_g4_srev", dict(size=4, sperm=1)),
        ("ca4_s4_g4_sx1", dict(size=4, sperm=2)), ("ca4_s4_g8", dict(size=4, gstride=8)),
        ("ca4_s4_g16", dict(size=4, gstride=16)), ("ca4_s4_g32", dict(size=4, gstride=32)),
        ("ca4_s4_g64", dict(size=4, gstride=64)), ("ca4_s4_g0", dict(size=4, gstride=0)),
        ("ca4_s4_g4_go64", dict(size=4, goff=64)), ("ca4_s8_g4", dict(size=4, sstride=8)),
        ("ca4_s12_g4", dict(size=4, sstride=12)), ("ca4_s4q_g4", dict(size=4, sperm=3)),
        ("ca4_s4_g4_grev", dict(size=4, gperm=1)), ("ca4_s128_g0", dict(size=4, sstride=128, gstride=0)),
        ("ca4_s4_g4q", dict(size=4, gperm=3)), ("ca4_s4_g4_so64", dict(size=4, soff=64)),
        ("ca8_s8_g8", dict(size=8)), ("ca8_s8_g16", dict(size=8, gstride=16)),
        ("ca8_s8_g0", dict(size=8, gstride=0)), ("ca8_s8_g8_go64", dict(size=8, goff=64)),
        ("ca8_s16_g8", dict(size=8, sstride=16)), ("ca8_s8_g8_srev", dict(size=8, sperm=1)),
        ("ca8_s8_g8_sx1", dict(size=8, sperm=2)), ("ca8_s24_g8", dict(size=8, sstride=24)),
        ("ca16_s16_g16_go16", dict(size=16, goff=16)), ("ca16_s16_g0", dict(size=16, gstride=0)),
        ("ca16_s16_g32", dict(size=16, gstride=32)), ("ca16_s16_g16_grev", dict(size=16, gperm=1)),
        ("ca16_s16_g16_srev", dict(size=16, sperm=1)), ("ca16_s16_g16_sx1", dict(size=16, sperm=2)),
        ("ca16_s48_g16", dict(size=16, sstride=48)), ("ca16_s16_g64", dict(size=16, gstride=64)),
        ("ca16_s16_g16_so64", dict(size=16, soff=64)), ("ca16_s16q_g16", dict(size=16, sperm=3)),
        ("ca16_s16_g16q", dict(size=16, gperm=3)), ("ca16_s32_g32", dict(size=16, sstride=32, gstride=32)),
        ("cg16_s16_g16", dict(size=16, cg=1)),
        ("cg16_s16_g16_go16", dict(size=16, cg=1, goff=16)), ("cg16_s16_g0", dict(size=16, cg=1, gstride=0)),
        ("cg16_s16_g32", dict(size=16, cg=1, gstride=32)), ("cg16_s16_g16_grev", dict(size=16, cg=1, gperm=1)),
        ("cg16_s16_g16_srev", dict(size=16, cg=1, sperm=1)), ("cg16_s16_g16_sx1", dict(size=16, cg=1, sperm=2)),
        ("cg16_s48_g16", dict(size=16, cg=1, sstride=48)), ("cg16_s16_g64", dict(size=16, cg=1, gstride=64)),
        ("cg16_s16_g16_so64", dict(size=16, cg=1, soff=64)), ("cg16_s16q_g16", dict(size=16, cg=1, sperm=3)),
        ("cg16_s16_g16q", dict(size=16, cg=1, gperm=3)), ("cg16_s32_g32", dict(size=16, cg=1, sstride=32, gstride=32)),
        ("cg16_s0_g0", dict(size=16, cg=1, sstride=0, gstride=0)), ("cg16_s32_g16", dict(size=16, cg=1, sstride=32)),
        ("cg16_s16_g16_half", dict(size=16, cg=1, mask="0x0000ffff")),
        ("cg16_s16_g16_one", dict(size=16, cg=1, mask="0x1")),
        ("cg16_s0_g16", dict(size=16, cg=1, sstride=0)), ("cg16_s16_g0_srev", dict(size=16, cg=1, gstride=0, sperm=1)),
        ("cg16_s16_g16_c2", dict(size=16, cg=1, count=2))):
    kv.setdefault("sstride", kv["size"])
    kv.setdefault("gstride", kv["size"])
    case(f"ldgsts2_{tag}", "ldgsts", **kv)
gmma("gmma2_rs_base", 8, b=desc(B_AT, *canon(0, 0, 8), 0), count=0)
gmma("gmma2_rs_bk_sw0_n64", 64, b=desc(B_AT, *canon(0, 0, 64), 0))
gmma("gmma2_rs_bk_sw128_n256", 256, b=desc(B_AT, *canon(128, 0, 256), 128))
gmma("gmma2_ss_ak_sw128_bk_sw128_n256", 256, ss=1, a=desc(A_AT, *canon(128, 0, 64), 128),
     b=desc(B_AT, *canon(128, 0, 256), 128))
gmma("gmma2_rs_bk_sw0_n64_l16_s256", 64, b=desc(B_AT, 16, 256, 0))
gmma("gmma2_rs_bmn_sw64_n16", 16, tb=1, b=desc(B_AT, *canon(64, 1, 16), 64))
targeted = out

targeted = out
out = []

# ---- third call: cp.async lanes at arbitrary addresses (the .cg shared side)
import random


def table(name, s, gl, mask=0xffffffff, z=None, **kv):
    s = list(s) + [0] * (32 - len(s))
    gl = list(gl) + [0] * (32 - len(gl))
    extra = {"z": ",".join(map(str, z))} if z else {}
    case(name, "ldgsts_table", s=",".join(map(str, s)), g=",".join(map(str, gl)), mask=hex(mask), **extra, **kv)


for cg in (1, 0):
    k = "cg" if cg else "ca"
    for s1 in (16, 32, 48, 64, 128, 144, 160, 256):
        for g1 in (16, 32, 48, 64, 128, 144, 160, 256):
            table(f"lt_{k}_pair_s{s1}_g{g1}", [0, s1], [0, g1], 0x3, size=16, cg=cg)
    for so in range(0, 128, 16):
        for go in range(0, 128, 16):
            table(f"lt_{k}_q_so{so}_go{go}", [so + 16 * i for i in range(8)], [go + 16 * i for i in range(8)], 0xff,
                  size=16, cg=cg)
    for r in range(1, 8):
        table(f"lt_{k}_q_srot{r}", [16 * ((i + r) % 8) for i in range(8)], [16 * i for i in range(8)], 0xff,
              size=16, cg=cg)
        table(f"lt_{k}_q_grot{r}", [16 * i for i in range(8)], [16 * ((i + r) % 8) for i in range(8)], 0xff,
              size=16, cg=cg)
    rng = random.Random(28 + cg)
    for n in range(24):
        sh = rng.sample(range(0, 2048, 16), 32)
        gl = [rng.randrange(0, 4096, 16) for _ in range(32)]
        table(f"lt_{k}_rand{n}", sh, gl, size=16, cg=cg)
    for n in range(12):  # quarters of nearby chunks: few lines on each side
        sh = [rng.randrange(0, 512, 16) for _ in range(32)]
        gl = [rng.randrange(0, 512, 16) for _ in range(32)]
        table(f"lt_{k}_near{n}", sh, gl, size=16, cg=cg)
table("lt_ca4_zfill_odd", [4 * i for i in range(32)], [4 * i for i in range(32)], z=[4 if i % 2 == 0 else 0 for i in range(32)],
      size=4, cg=0)
table("lt_ca4_zfill_all", [4 * i for i in range(32)], [4 * i for i in range(32)], z=[0] * 32, size=4, cg=0)
table("lt_ca4_zfill_none", [4 * i for i in range(32)], [128 * i for i in range(32)], z=[4] * 32, size=4, cg=0)
table("lt_ca4_zfill_odd_g128", [4 * i for i in range(32)], [128 * i for i in range(32)],
      z=[4 if i % 2 == 0 else 0 for i in range(32)], size=4, cg=0)
cgtable = out

# ---- seventh call (issue 28, h-hop28b): the gaps session 15 left
out = []
rng = random.Random(2807)
# cp.async.cg with a src-size operand (z7_): random lanes, read/zero-fill
# mixes, sgemm-like row tiles with rows cut at the edge, partial src-sizes;
# the rule derived from run 4 predicts each (hopper_async.cc).
for n in range(20):
    sh = rng.sample(range(0, 1024, 16), 32)
    gl = [rng.randrange(0, 2048, 16) for _ in range(32)]
    z = [0 if rng.random() < 0.3 else 16 for _ in range(32)]
    table(f"z7_rand{n}", sh, gl, z=z, size=16, cg=1)
for n in range(8):  # nearby chunks: pairs and shared lines
    sh = [rng.randrange(0, 256, 16) for _ in range(32)]
    gl = [rng.randrange(0, 512, 16) for _ in range(32)]
    z = [0 if rng.random() < 0.4 else 16 for _ in range(32)]
    table(f"z7_near{n}", sh, gl, z=z, size=16, cg=1)
for pitch in (528, 560, 1040):  # 4 lanes per 64-byte row, 8 rows; rows >= cut zero-fill
    for cut in (8, 5, 3):
        sh = [(i // 4) * 64 + (i % 4) * 16 for i in range(32)]
        gl = [(i // 4) * pitch + (i % 4) * 16 for i in range(32)]
        z = [16 if i // 4 < cut else 0 for i in range(32)]
        table(f"z7_tile_p{pitch}_c{cut}", sh, gl, z=z, size=16, cg=1)
for part in (4, 8, 12):
    table(f"z7_part{part}_all", [16 * i for i in range(32)], [16 * i for i in range(32)], z=[part] * 32, size=16, cg=1)
    table(f"z7_part{part}_odd", [16 * i for i in range(32)], [16 * i for i in range(32)],
          z=[part if i % 2 else 16 for i in range(32)], size=16, cg=1)
# .ca with bank conflicts on both sides (c7_): one quarter-warp of 16-byte
# copies (mask 0xff) with chosen 16-byte slots on each side; a lane on slot k
# of line j is at 128 j + 16 k, so lanes on one slot and different lines conflict.
def slots(ks, lines):
    return [128 * l + 16 * k for k, l in zip(ks, lines)]
pats = {
    "s2g2same": ([0, 0, 1, 1, 2, 2, 3, 3], [0, 0, 1, 1, 2, 2, 3, 3]),
    "s2g2cross": ([0, 0, 1, 1, 2, 2, 3, 3], [0, 1, 0, 1, 2, 3, 2, 3]),
    "s2g2shift": ([0, 0, 1, 1, 2, 2, 3, 3], [0, 1, 1, 2, 2, 3, 3, 0]),
    "s2g1": ([0, 0, 1, 1, 2, 2, 3, 3], [0, 1, 2, 3, 4, 5, 6, 7]),
    "s4g2same": ([0, 0, 0, 0, 1, 1, 1, 1], [0, 0, 1, 1, 2, 2, 3, 3]),
    "s4g2cross": ([0, 0, 0, 0, 1, 1, 1, 1], [0, 1, 2, 3, 0, 1, 2, 3]),
    "s4g4same": ([0, 0, 0, 0, 1, 1, 1, 1], [0, 0, 0, 0, 1, 1, 1, 1]),
    "s4g4cross": ([0, 0, 0, 0, 1, 1, 1, 1], [0, 1, 0, 1, 0, 1, 0, 1]),
    "s8g2": ([0] * 8, [0, 0, 1, 1, 2, 2, 3, 3]),
    "s2g8": ([0, 0, 1, 1, 2, 2, 3, 3], [0] * 8),
    "s3g2": ([0, 0, 0, 1, 2, 3, 4, 5], [0, 0, 1, 2, 3, 4, 5, 6]),
    "s3g2b": ([0, 0, 0, 1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 6, 0, 0]),
    "s2g2one": ([0, 0, 1, 2, 3, 4, 5, 6], [0, 0, 1, 2, 3, 4, 5, 6]),
    "s2g2two": ([0, 0, 1, 2, 3, 4, 5, 6], [1, 2, 0, 0, 3, 4, 5, 6]),
    "s2g2chain": ([0, 0, 1, 2, 3, 4, 5, 6], [1, 2, 2, 3, 4, 5, 6, 0]),
}
for name, (ks, kg) in pats.items():
    sl = [sum(1 for j in range(i) if ks[j] == ks[i]) for i in range(8)]  # line: index among lanes on the slot
    gline = [sum(1 for j in range(i) if kg[j] == kg[i]) for i in range(8)]
    table(f"c7_{name}", slots(ks, sl), [2048 + x for x in slots(kg, gline)], 0xff, size=16, cg=0)
    if name in ("s2g2same", "s2g2cross", "s4g2cross", "s3g2"):  # the same in all four quarters
        s4 = [256 * q + x for q in range(4) for x in slots(ks, sl)]
        g4 = [2048 + 1024 * q + x for q in range(4) for x in slots(kg, gline)]
        table(f"c7_{name}_w", s4, g4, size=16, cg=0)
for n in range(8):  # random quarters, both sides over 4 lines
    ks = [rng.randrange(8) for _ in range(8)]; kg = [rng.randrange(8) for _ in range(8)]
    sl = [sum(1 for j in range(i) if ks[j] == ks[i]) for i in range(8)]
    gl = [sum(1 for j in range(i) if kg[j] == kg[i]) for i in range(8)]
    table(f"c7_rand{n}", slots(ks, sl), [2048 + x for x in slots(kg, gl)], 0xff, size=16, cg=0)
# Conflict graphs (c7_g_*): each S/G set names lanes sharing one shared /
# global bank (same 16-byte slot, different lines); other lanes get slots of
# their own. Chains, stars, cycles and their lane orders.
def graph_case(name, s_sets, g_sets):
    def side(sets, base):
        slot = list(range(8)); line = [0] * 8
        free = 0
        for k, st in enumerate(sets):
            for j, l in enumerate(st):
                slot[l], line[l] = 8 + k, j  # slots 8+ are set apart below
        used = {slot[l] for l in range(8) if slot[l] >= 8}
        taken = set(); out = []
        mapping = {v: i for i, v in enumerate(sorted(used))}
        lone = [l for l in range(8) if slot[l] < 8]
        nxt = len(mapping)
        for l in range(8):
            if slot[l] >= 8: out.append(base + 128 * line[l] + 16 * mapping[slot[l]])
            else: out.append(base + 16 * nxt); nxt += 1
        return out
    table(f"c7_g_{name}", side(s_sets, 0), side(g_sets, 2048), 0xff, size=16, cg=0)
for name, (ss, gg) in {
        "s01_g12": ([[0, 1]], [[1, 2]]), "s01_g02": ([[0, 1]], [[0, 2]]), "s12_g01": ([[1, 2]], [[0, 1]]),
        "s02_g12": ([[0, 2]], [[1, 2]]), "s07_g37": ([[0, 7]], [[3, 7]]), "s01_g01": ([[0, 1]], [[0, 1]]),
        "s01_g10": ([[0, 1]], [[1, 0]]), "s01_g23": ([[0, 1]], [[2, 3]]), "s01_g12_s23": ([[0, 1], [2, 3]], [[1, 2]]),
        "path4": ([[0, 1], [2, 3]], [[1, 2], [3, 4]]), "path5": ([[0, 1], [2, 3], [4, 5]], [[1, 2], [3, 4]]),
        "cycle6": ([[0, 1], [2, 3], [4, 5]], [[1, 2], [3, 4], [5, 0]]),
        "cycle8": ([[0, 1], [2, 3], [4, 5], [6, 7]], [[1, 2], [3, 4], [5, 6], [7, 0]]),
        "s012_g23": ([[0, 1, 2]], [[2, 3]]), "s012_g03": ([[0, 1, 2]], [[0, 3]]), "s012_g34": ([[0, 1, 2]], [[3, 4]]),
        "s01_g0_2_3": ([[0, 1]], [[0, 2, 3]]), "s0123_g45": ([[0, 1, 2, 3]], [[4, 5]]),
        "s0123_g34": ([[0, 1, 2, 3]], [[3, 4]]), "s0123_g04": ([[0, 1, 2, 3]], [[0, 4]]),
        "s0123_g0_4_5": ([[0, 1, 2, 3]], [[0, 4, 5]]), "s01_s23_g02": ([[0, 1], [2, 3]], [[0, 2]]),
        "s01_s23_g13": ([[0, 1], [2, 3]], [[1, 3]]), "s01_s23_g03": ([[0, 1], [2, 3]], [[0, 3]]),
        "s01_s23_g12": ([[0, 1], [2, 3]], [[1, 2]]), "s04_g15": ([[0, 4]], [[1, 5]]), "s04_g45": ([[0, 4]], [[4, 5]]),
        "s67_g56": ([[6, 7]], [[5, 6]]), "s67_g07": ([[6, 7]], [[0, 7]]),
}.items():
    graph_case(name, ss, gg)
for name, (sst, gst) in {"s8g8": (8, 8), "s8g16": (8, 16), "s16g8": (16, 8), "s8g8x": (8, 8)}.items():
    # 4-byte copies, the warp one group: stride conflicts on both sides
    sh = [sst * i for i in range(32)]
    g = [gst * (i ^ 1 if name.endswith("x") else i) for i in range(32)]
    table(f"c7_w4_{name}", sh, g, size=4, cg=0)
caserows = out
out = []

# DSMEM atomics whose lanes reach several peers (d7_): the six of run 6's
# cluster_histogram instructions whose sectors exceed the per-peer rule,
# re-measured whole, without the block's own lanes, one peer at a time and
# the peer with repeated addresses beside each other peer; then minimal
# patterns (a repeated word beside other peers, lanes, sectors, own lanes).
import os
here = os.path.dirname(os.path.abspath(__file__))
run6 = {}
for line in open(os.path.join(here, "../../tests/validation/hopper/probe-cases-6.txt")):
    f = line.split()
    if len(f) > 2 and f[0].startswith("cs4_"):
        kv = dict(x.split("=", 1) for x in f[2:])
        run6[f[0]] = ([int(v) for v in kv["t"].split(",")], [int(v) for v in kv["o"].split(",")])
def dsm(name, t, o, mask=0xffffffff, op="atom"):
    case(name, "dsm_table", op=op, t=",".join(map(str, t)), o=",".join(map(str, o)), mask=hex(mask))
def lanes_of(t, ranks):
    return sum(1 << i for i in range(32) if t[i] in ranks)
for src_name in ("cs4_b0_w0_i4", "cs4_b0_w0_i5", "cs4_b2_w0_i3", "cs4_b3_w0_i0", "cs4_b3_w0_i1", "cs4_b3_w0_i2",
                 "cs4_b0_w0_i3"):
    t, o = run6[src_name]
    k = src_name[4:]
    dsm(f"d7_{k}_full", t, o)
    dsm(f"d7_{k}_noself", t, o, lanes_of(t, {1, 2, 3}))
    dsm(f"d7_{k}_ld", t, o, op="ld")
    for r in (1, 2, 3):
        dsm(f"d7_{k}_p{r}", t, o, lanes_of(t, {r}))
        for r2 in (1, 2, 3):
            if r2 > r:
                dsm(f"d7_{k}_p{r}{r2}", t, o, lanes_of(t, {r, r2}))
Z = [0] * 32
def pat(name, lanes, mask=None):  # lanes: {lane: (rank, offset)}
    t, o = list(Z), list(Z)
    for l, (r, off) in lanes.items():
        t[l], o[l] = r, off
    dsm(name, t, o, mask if mask is not None else sum(1 << l for l in lanes))
# The lanes of ranks 2 and 3 of each instruction above sent to other pairs
# of ranks (d7_*_r12, _r13, _r32: rank 2 -> a, rank 3 -> b): whether the
# excess follows the pattern or the two blocks (the probe prints each
# block's SM, "smid NAME r0 r1 r2 r3").
for src_name in ("cs4_b0_w0_i4", "cs4_b0_w0_i5", "cs4_b2_w0_i3", "cs4_b3_w0_i0", "cs4_b3_w0_i1", "cs4_b3_w0_i2"):
    t, o = run6[src_name]
    k = src_name[4:]
    for a, b in ((1, 2), (1, 3), (3, 2), (2, 1)):
        t2 = [a if r == 2 else b if r == 3 else r for r in t]
        dsm(f"d7_{k}_r{a}{b}", t2, o, lanes_of(t, {2, 3}))
pat("d7_dup01", {0: (1, 0), 1: (1, 0)})
pat("d7_dup0_16", {0: (1, 0), 16: (1, 0)})
pat("d7_dup01_p2", {0: (1, 0), 1: (1, 0), 2: (2, 4)})
pat("d7_dup01_p2same", {0: (1, 0), 1: (1, 0), 2: (2, 0)})
pat("d7_dup01_p1sec", {0: (1, 0), 1: (1, 0), 2: (1, 4)})
pat("d7_dup01_self", {0: (1, 0), 1: (1, 0), 2: (0, 4)})
pat("d7_dup01_selfsame", {0: (1, 0), 1: (1, 0), 2: (0, 0)})
pat("d7_dup01_p2p3", {0: (1, 0), 1: (1, 0), 2: (2, 32), 3: (3, 64)})
pat("d7_dup01_p2x8", dict([(0, (1, 0)), (1, (1, 0))] + [(2 + i, (2, 32 * i)) for i in range(8)]))
pat("d7_dup01_p1x8", dict([(0, (1, 252)), (1, (1, 252))] + [(2 + i, (1, 32 * i)) for i in range(7)]))
pat("d7_dup_2_20_p3x8", dict([(2, (3, 252)), (20, (3, 252))] + [(l, (3, 32 * i)) for i, l in enumerate((0, 1, 11, 15, 16, 21, 27))]))
pat("d7_dup_2_20_p3x8_p1", dict([(2, (3, 252)), (20, (3, 252)), (3, (1, 96))] + [(l, (3, 32 * i)) for i, l in enumerate((0, 1, 11, 15, 16, 21, 27))]))
pat("d7_dup_2_20_p3x8_p1x8", dict([(2, (3, 252)), (20, (3, 252))] + [(l, (3, 32 * i)) for i, l in enumerate((0, 1, 11, 15, 16, 21, 27))]
                                  + [(l, (1, 32 * i + 4)) for i, l in enumerate((3, 4, 5, 6, 7, 8, 9, 10))]))
for nlanes in (2, 3, 4, 6, 8):  # one peer, n lanes on one word, peer 2 has 8 distinct sectors
    pat(f"d7_dupn{nlanes}_p2x8", dict([(i, (1, 0)) for i in range(nlanes)] + [(8 + i, (2, 32 * i)) for i in range(8)]))
    pat(f"d7_dupn{nlanes}_p1x8", dict([(i, (1, 0)) for i in range(nlanes)] + [(8 + i, (1, 32 * i + 4)) for i in range(8)]))
dsm7 = out
out = []
# TMA boxes whose chunks lie partly inside the tensor (t7_): rows that end
# inside a 16-byte chunk (dim0 * es not a multiple of 16; pitch 272 bytes),
# boxes across that edge at coordinates a multiple of 16 bytes (others trap,
# docs/emulator.md); loads and stores.
for es, dims in ((4, (65, 66, 67)), (2, (129, 131, 134)), (1, (257, 263, 270))):
    per = 16 // es
    for d0 in dims:
        for mode in ("load", "store"):
            m = mode[0]
            e = (d0 // per) * per  # the partial chunk's first element (coordinate 0: 16-byte steps)
            for box, c in (((per * 2, 1), e - per), ((per * 8, 1), e - per * 4), ((per * 8, 4), e - per * 3),
                           ((per * 2, 8), e), ((per * 4, 2), e - per)):
                case(f"t7_{m}_e{es}_d{d0}_b{box[0]}x{box[1]}_c{c}", "tma", mode=mode, es=es, sw=0,
                     box=f"{box[0]},{box[1]}", dim0=d0, dim1=100, pitch=272, c=f"{c},0")
tma7 = out

# ---- ninth call (issue 28, h-ldgsts28): the predicated form. A src-size of
# `z ? SIZE : 0` (pred=1) compiles to LDGSTS without .ZFILL, its last operand
# a predicate (kernels/matmul.cu's edge copies); the same tables as runs 4
# and 7's .ZFILL cases where every size is 0 or SIZE, so each pair differs in
# the form alone, plus sgemm-like rows cut at an edge and .ca.
out = []
import os
here = os.path.dirname(os.path.abspath(__file__))
for f in ("cases4.txt", "cases7.txt"):
    seen = set()
    for line in open(os.path.join(here, f)):
        w = line.split()
        if len(w) < 2 or w[1] != "ldgsts_table" or w[0] in seen:
            continue
        kv = dict(x.split("=", 1) for x in w[2:])
        size = int(kv.get("size", 16))
        if not kv.get("z") or any(int(v) not in (0, size) for v in kv["z"].split(",")):
            continue
        seen.add(w[0])
        out.append(f"p9_{w[0]} " + " ".join(w[1:]) + " pred=1")
rng = random.Random(2809)
for goff in (0, 16, 64):  # a warp's 512-byte row (sgemm_async's B tile), lanes cut
    for cut in (0, 1, 4, 7, 8, 16, 24, 31, 32):
        table(f"p9_row_g{goff}_c{cut}", [16 * i for i in range(32)], [goff + 16 * i for i in range(32)],
              z=[16 if i < cut else 0 for i in range(32)], size=16, cg=1, pred=1)
    table(f"p9_row_g{goff}_hi", [16 * i for i in range(32)], [goff + 16 * i for i in range(32)],
          z=[16 if i >= 16 else 0 for i in range(32)], size=16, cg=1, pred=1)
for pitch in (64, 528, 4096):  # rows of 4 lanes, rows >= cut read nothing
    for cut in (0, 3, 5, 8):
        table(f"p9_tile_p{pitch}_c{cut}", [(i // 4) * 64 + (i % 4) * 16 for i in range(32)],
              [(i // 4) * pitch + (i % 4) * 16 for i in range(32)], z=[16 if i // 4 < cut else 0 for i in range(32)],
              size=16, cg=1, pred=1)
for n in range(6):  # shared conflicts: lanes on few shared lines
    sh = [rng.randrange(0, 256, 16) for _ in range(32)]
    gl = [16 * i for i in range(32)]
    table(f"p9_sconf{n}", sh, gl, z=[0 if rng.random() < 0.3 else 16 for _ in range(32)], size=16, cg=1, pred=1)
for size in (4, 16):  # .ca
    for n in range(4):
        sh = rng.sample(range(0, 1024, size), 32)
        gl = [rng.randrange(0, 2048, size) for _ in range(32)]
        z = [0 if rng.random() < 0.3 else size for _ in range(32)]
        table(f"p9_ca{size}_rand{n}", sh, gl, z=z, size=size, cg=0, pred=1)
        table(f"p9_ca{size}_rand{n}_zf", sh, gl, z=z, size=size, cg=0)
pred9 = out

import sys
print("# Generated by gen_cases.py; NAME FAMILY key=value ... (probe.cu says what each key means)")
print("\n".join({"targeted": targeted, "cp.async": cgtable, "edges": caserows + dsm7 + tma7, "pred": pred9}.get(sys.argv[1] if sys.argv[1:] else "", main_cases)))
