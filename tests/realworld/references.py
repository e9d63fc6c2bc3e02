"""CPU references for the real-world kernels, written from what each kernel
computes (not from the emulator): REFERENCES[kernel name as in the recipe,
without spaces](case) records mismatches in case.errors."""
import math
import struct

REFERENCES = {}


def ref(*names):
    def put(f):
        for n in names:
            REFERENCES[n] = f
        return f
    return put


class Case:
    def __init__(self, args, outs, stdout, errors):
        self.args, self.outs, self.stdout, self.errors = args, outs, stdout, errors

    def inp(self, i):  # buffer i as the recipe initialized it
        return self.args[i].values

    def out(self, i):  # buffer i after the run
        return self.outs[i]

    def val(self, i):  # scalar argument i
        return self.args[i].value

    def expect(self, i, want, rtol=0.0, atol=0.0):
        got = self.outs[i]
        if len(want) > len(got):
            self.errors.append(f"arg {i}: {len(got)} values, reference has {len(want)}")
            return
        for k, w in enumerate(want):
            g = got[k]
            if w is None:
                continue
            if isinstance(w, float) and (math.isnan(w) or math.isinf(w)):
                ok = (math.isnan(w) and math.isnan(g)) or w == g
            else:
                ok = abs(g - w) <= atol + rtol * abs(w)
            if not ok:
                self.errors.append(f"arg {i}[{k}]: got {g}, reference {w}")
                if len(self.errors) >= 10:
                    return

    def expect_text(self, lines):
        got = self.stdout.splitlines()
        for ln in lines:
            if ln not in got:
                self.errors.append(f"stdout lacks line {ln!r}")


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def f16(x):
    return struct.unpack("<e", struct.pack("<e", x))[0]


def bf16(x):
    u = struct.unpack("<I", struct.pack("<f", f32(x)))[0]
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16 & 0xFFFF
    return struct.unpack("<f", struct.pack("<I", u << 16))[0]


def tf32(x):  # the low 13 mantissa bits ignored, as the tensor cores do
    u = struct.unpack("<I", struct.pack("<f", x))[0] & 0xFFFFE000
    return struct.unpack("<f", struct.pack("<I", u))[0]


# ---- warp_llm.cu -------------------------------------------------------------
@ref("softmaxForward")
def _(c):
    x, N, C = c.inp(1), c.val(2), c.val(3)
    want = []
    for r in range(N):
        row = x[r * C:(r + 1) * C]
        m = max(row)
        e = [math.exp(v - m) for v in row]
        s = sum(e)
        want += [v / s for v in e]
    c.expect(0, want, rtol=1e-5)


@ref("layernormForward")
def _(c):
    x, w, b, N, C = c.inp(1), c.inp(2), c.inp(3), c.val(4), c.val(5)
    want = []
    for r in range(N):
        row = x[r * C:(r + 1) * C]
        mean = sum(row) / C
        var = sum((v - mean) ** 2 for v in row) / C
        rstd = 1 / math.sqrt(var + 1e-5)
        want += [(row[i] - mean) * rstd * w[i] + b[i] for i in range(C)]
    c.expect(0, want, rtol=1e-4, atol=1e-5)


@ref("reduceDouble")
def _(c):
    c.expect(1, [math.fsum(c.inp(0)[:c.val(2)])], rtol=1e-13)


# ---- device_runtime.cu -------------------------------------------------------
@ref("debugPrint")
def _(c):
    x, n = c.inp(0), c.val(1)
    lines = [f"block {i // 4} thread {i % 4}: x={x[i]:.2f} sq={i * i} {'odd' if i % 2 else 'even'}"
             for i in range(n)]
    c.expect_text(lines)
    got = [ln for ln in c.stdout.splitlines() if ln.startswith("block ")]
    if got != lines:  # printf output in block order, lanes in order
        c.errors.append(f"printf order: {got}")


@ref("checkedScale")
def _(c):
    c.expect(1, [f32(v * c.val(3)) for v in c.inp(0)[:c.val(2)]])


@ref("perThreadScratch")
def _(c):
    k = c.val(1)
    c.expect(0, [sum(t + i for i in range(k)) + sum(i * t for i in range(k)) for t in range(64)])


# ---- wmma_gemm.cu ------------------------------------------------------------
def matmul(M, N, K, a, b):  # a(m, k), b(k, n) accessors; exact sums
    return [[math.fsum(a(m, k) * b(k, n) for k in range(K)) for n in range(N)] for m in range(M)]


@ref("wmmaGemm<__half,float>", "wmmaGemm<__nv_bfloat16,float>")
def _(c):
    A, B, C0 = c.inp(0), c.inp(1), c.inp(2)
    M, N, K, alpha, beta = c.val(3), c.val(4), c.val(5), c.val(6), c.val(7)
    P = matmul(M, N, K, lambda m, k: A[m * K + k], lambda k, n: B[k * N + n])
    c.expect(2, [alpha * P[m][n] + beta * C0[m * N + n] for m in range(M) for n in range(N)],
             rtol=1e-5, atol=1e-5)


@ref("wmmaGemmTf32")
def _(c):
    A, B, M, N, K = c.inp(0), c.inp(1), c.val(3), c.val(4), c.val(5)
    # __float_to_tf32 rounds (cvt.rna); the tensor core then uses those bits
    P = matmul(M, N, K, lambda m, k: tf32_rna(A[m * K + k]), lambda k, n: tf32_rna(B[n * K + k]))
    c.expect(2, [P[m][n] for m in range(M) for n in range(N)], rtol=1e-6)


@ref("wmmaGemmF64")
def _(c):
    A, B, M, N, K = c.inp(0), c.inp(1), c.val(3), c.val(4), c.val(5)
    P = matmul(M, N, K, lambda m, k: A[m * K + k], lambda k, n: B[k * N + n])
    c.expect(2, [P[m][n] for n in range(N) for m in range(M)], rtol=1e-14)


@ref("wmmaGemmS8", "wmmaGemmU8")
def _(c):
    A, B, M, N, K = c.inp(0), c.inp(1), c.val(3), c.val(4), c.val(5)
    P = matmul(M, N, K, lambda m, k: A[m * K + k], lambda k, n: B[n * K + k])
    c.expect(2, [int(P[m][n]) for m in range(M) for n in range(N)])


@ref("wmmaHalfAcc")
def _(c):
    A, B, K = c.inp(0), c.inp(1), c.val(3)
    P = matmul(16, 16, K, lambda m, k: A[k * 16 + m], lambda k, n: B[n * K + k])
    c.expect(2, [f16(P[m][n]) for n in range(16) for m in range(16)], rtol=1e-3)


# ---- mma_inline.cu -----------------------------------------------------------
@ref("mmaF16Ldmatrix", "mmaBf16Ldmatrix")
def _(c):
    A, Bt, N, K = c.inp(0), c.inp(1), c.val(3), c.val(4)
    M = len(A) // K
    P = matmul(M, N, K, lambda m, k: A[m * K + k], lambda k, n: Bt[n * K + k])
    c.expect(2, [f32(P[m][n]) for m in range(M) for n in range(N)], rtol=1e-6)


@ref("mmaM16n8k8F16")
def _(c):
    A, B = c.inp(0), c.inp(1)
    P = matmul(16, 8, 8, lambda m, k: A[m * 8 + k], lambda k, n: B[k * 8 + n])
    c.expect(2, [f32(P[m][n]) for m in range(16) for n in range(8)], rtol=1e-6)


def tf32_rna(x):  # cvt.rna.tf32.f32: round to 10 mantissa bits, ties away
    u = struct.unpack("<I", struct.pack("<f", x))[0]
    u = (u + 0x1000) & 0xFFFFE000
    return struct.unpack("<f", struct.pack("<I", u))[0]


@ref("mmaTf32")
def _(c):
    A, B, C0 = c.inp(0), c.inp(1), c.inp(2)
    P = matmul(16, 8, 8, lambda m, k: tf32_rna(A[m * 8 + k]), lambda k, n: tf32_rna(B[k * 8 + n]))
    c.expect(2, [f32(P[m][n] + C0[m * 8 + n]) for m in range(16) for n in range(8)], rtol=1e-6)


@ref("mmaS8")
def _(c):
    A, Bt = c.inp(0), c.inp(1)
    P = matmul(16, 8, 32, lambda m, k: A[m * 32 + k], lambda k, n: Bt[n * 32 + k])
    c.expect(2, [int(P[m][n]) for m in range(16) for n in range(8)])


@ref("stmatrixTranspose")
def _(c):
    x = c.inp(0)
    c.expect(1, [x[j * 16 + i] for i in range(16) for j in range(16)])


# ---- async_copy.cu -----------------------------------------------------------
@ref("pipelineStencil")
def _(c):
    x, chunks = c.inp(0), c.val(2)
    want = []
    for b in range(2):
        for ch in range(chunks):
            r = x[(b * chunks + ch) * 128:(b * chunks + ch + 1) * 128]
            want += [f32(f32(f32(0.25 * r[max(t - 1, 0)]) + f32(0.5 * r[t])) + f32(0.25 * r[min(t + 1, 127)]))
                     for t in range(128)]
    c.expect(1, want, rtol=1e-6)


@ref("barrierTileSum")
def _(c):
    x = c.inp(0)
    c.expect(1, [math.fsum(x[b * 512:(b + 1) * 512]) for b in range(3)], rtol=1e-5)


@ref("multiStagePipeline")
def _(c):
    x, batches = c.inp(0), c.val(2)
    c.expect(1, [sum(x[blk * 64 * batches + b * 64 + t] * (b + 1) for b in range(batches))
                 for blk in range(2) for t in range(64)])


@ref("cgMemcpyAsync")
def _(c):
    x = c.inp(0)
    c.expect(1, [x[b * 192 + 191 - i] for b in range(2) for i in range(192)])


@ref("cpAsyncZfill")
def _(c):
    x, n = c.inp(0), c.val(2)
    s = [x[e] if e < n else 0.0 for e in range(256)]
    c.expect(1, [f32(s[255 - i] + 1.0) for i in range(256)])


# ---- coop_groups.cu ----------------------------------------------------------
@ref("cgReduceSum")
def _(c):
    c.expect(1, [sum(c.inp(0)[:c.val(2)])])


@ref("cgTileMax")
def _(c):
    x = c.inp(0)
    c.expect(1, [max(x[k * 16:(k + 1) * 16]) for k in range(16)])


@ref("cgBallotCount")
def _(c):
    x = c.inp(0)
    ws = [x[w * 32:(w + 1) * 32] for w in range(4)]
    c.expect(1, [sum(1 for v in w if v % 2 == 0) for w in ws])
    c.expect(2, [(1 if any(v < 500 for v in w) else 0) | (2 if all(v < 500 for v in w) else 0)
                 for w in ws])


@ref("cgCoalescedAppend")
def _(c):
    x, limit = c.inp(0), c.val(3)
    sel = sorted(v for v in x if v < limit)
    c.expect(2, [len(sel)])
    got = sorted(c.out(1)[:len(sel)])
    if got != sel:
        c.errors.append(f"appended values {got} != {sel}")


@ref("cgTileScan")
def _(c):
    x = c.inp(0)
    want = []
    for t in range(64):
        seg = x[t - t % 16:t + 1]
        want.append(sum(seg) * 1000 + sum(seg[:-1]))
    c.expect(1, want)


# ---- cub_block.cu ------------------------------------------------------------
@ref("blockReduceSum<128,4>")
def _(c):
    x = c.inp(0)
    c.expect(1, [math.fsum(x[b * 512:(b + 1) * 512]) for b in range(3)], rtol=1e-5)


@ref("blockScanExclusive")
def _(c):
    x, want = c.inp(0), []
    for b in range(2):
        s = 0
        for v in x[b * 256:(b + 1) * 256]:
            want.append(s)
            s += v
    c.expect(1, want)


@ref("warpReduceMax")
def _(c):
    x = c.inp(0)
    c.expect(1, [max(x[w * 32:(w + 1) * 32]) for w in range(8)])


@ref("blockRadixSort")
def _(c):
    x = c.inp(0)
    c.expect(1, sorted(x[:256]) + sorted(x[256:]))


@ref("blockHistogram")
def _(c):
    h = [0] * 256
    for v in c.inp(0):
        h[v] += 1
    c.expect(1, h)


# ---- half_math.cu ------------------------------------------------------------
@ref("half2Axpy")
def _(c):
    x, y, a = c.inp(0), c.inp(1), f16(c.val(3))
    c.expect(2, [f16(a * x[i] + y[i]) for i in range(256)])  # fma: one rounding


@ref("geluHalf")
def _(c):
    want = []
    for v in c.inp(0):
        x = v * 4.0 - 2.0
        want.append(0.5 * x * (1 + math.tanh(0.7978845608 * (x + 0.044715 * x ** 3))))
    c.expect(1, want, rtol=2e-3, atol=2e-3)  # half precision of the stored result


@ref("bf16Dot")
def _(c):
    a, b = c.inp(0), c.inp(1)
    c.expect(2, [math.fsum(bf16(a[i] * b[i]) for i in range(k * 256, (k + 1) * 256))
                 for k in range(2)], rtol=1e-5)


@ref("halfCompareSelect")
def _(c):
    x, y = c.inp(0), c.inp(1)
    c.expect(2, [x[i] if x[i] > y[i] else y[i] for i in range(64)])
    c.expect(3, [sum(1 for i in range(64) if x[i] < y[i])])


# ---- atomics_scoped.cu -------------------------------------------------------
@ref("scopedCounters")
def _(c):
    c.expect(0, [512, 1024, 128 + 3])


@ref("atomicRefSum")
def _(c):
    c.expect(0, [sum(i * i for i in range(c.val(1)))])


@ref("floatAtomicMax")
def _(c):
    c.expect(1, [max(c.inp(0))])


@ref("sharedHistogram")
def _(c):
    h = [0] * 16
    for v in c.inp(0):
        h[v % 16] += 1
    c.expect(1, h)


@ref("lastBlockReduce")
def _(c):
    x = c.inp(0)
    parts = [math.fsum(x[b * 64:(b + 1) * 64]) for b in range(4)]
    c.expect(1, parts, rtol=1e-5)
    c.expect(2, [4])  # atomicInc(ticket, gridDim.x): 0, 1, 2, 3 -> 4 (wraps only above 4)
    c.expect(3, [sum(parts)], rtol=1e-5)


# ---- templates_structs.cu ----------------------------------------------------
@ref("elementwise<Relu,float>")
def _(c):
    c.expect(1, [v if v > 0.5 else 0.0 for v in c.inp(0)])


@ref("elementwise<Square,double>")
def _(c):
    c.expect(1, [v * v for v in c.inp(0)])


@ref("affineRows")
def _(c):
    rows, cols, scale, shift = struct.unpack("<iiff", c.val(2))
    c.expect(1, [f32(f32(v * scale) + shift) for v in c.inp(0)[:rows * cols]], rtol=1e-7)


@ref("multiTensorScale")
def _(c):
    l0, l1, l2, factor = struct.unpack("<iiif", c.val(4))
    for i, n in ((0, l0), (1, l1), (2, l2)):
        c.expect(i, [v * factor for v in c.inp(i)[:n]])


@ref("vectorCopy")
def _(c):
    x = c.inp(0)
    c.expect(1, [f32(v + 1) if i % 4 == 0 else f32(v - 1) if i % 4 == 3 else v
                 for i, v in enumerate(x)])


@ref("stmatrixEpilogue")
def _(c):
    c.expect(1, [f16(f32(v)) for v in c.inp(0)])


# ---- texture_surface.cu ------------------------------------------------------
def quant(a):  # the texture unit's 1.8 fixed-point filter weights (CUDA guide, "Linear filtering")
    return round(a * 256) / 256


@ref("resizeBilinear")
def _(c):
    T, (W, H) = c.inp(0), c.args[0].extent
    w, h = c.val(2), c.val(3)
    tex = lambda i, j: T[min(max(j, 0), H - 1) * W + min(max(i, 0), W - 1)]  # clamp
    want = []
    for y in range(h):
        for x in range(w):
            xt, yt = f32((x + 0.5) / w) * W - 0.5, f32((y + 0.5) / h) * H - 0.5
            i, j = math.floor(xt), math.floor(yt)
            a, b = quant(xt - i), quant(yt - j)
            want.append((1 - a) * (1 - b) * tex(i, j) + a * (1 - b) * tex(i + 1, j) +
                        (1 - a) * b * tex(i, j + 1) + a * b * tex(i + 1, j + 1))
    c.expect(1, want, rtol=1e-5, atol=1e-6)


@ref("wrapLookup")
def _(c):
    T = c.inp(0)
    c.expect(1, [T[i % 16] for i in range(64)])


@ref("rgbaToGray")
def _(c):
    p = c.inp(0)
    c.expect(1, [0.299 * p[4 * k] / 255 + 0.587 * p[4 * k + 1] / 255 + 0.114 * p[4 * k + 2] / 255
                 for k in range(32)], rtol=1e-5)


@ref("gatherFetch")
def _(c):
    T, idx = c.inp(0), c.inp(1)
    c.expect(2, [T[i % 20] for i in idx])


@ref("boxFilterSurface")
def _(c):
    S, w, h = c.inp(0), c.val(2), c.val(3)
    want = []
    for y in range(h):
        for x in range(w):
            s = 0.0
            for dy in (-1, 0, 1):
                for dx in (-1, 0, 1):
                    s = f32(s + S[min(max(y + dy, 0), h - 1) * w + min(max(x + dx, 0), w - 1)])
            want.append(f32(s / 9.0))
    c.expect(1, want, rtol=1e-6)


@ref("halfIntrinsics")
def _(c):
    xs = [f16(v - 0.5) for v in c.inp(0)]
    want = [abs(x) for x in xs] + [max(x, 0.0) for x in xs] + [min(x, 0.0) for x in xs]
    want += [f16(math.sqrt(abs(x))) for x in xs] + [f16(math.exp(x)) for x in xs]
    want += [f16(2 * abs(x)) for x in xs]
    c.expect(1, want, rtol=1e-3, atol=1e-3)  # hexp/hsqrt: approximate in half


@ref("halfAtomics")
def _(c):
    h, b = c.inp(0), c.inp(1)
    # 128 additions rounded to half/bf16 each: the order changes the last bits
    c.expect(2, [sum(f16(v * 0.0625) for v in h), 128 * 0.03125], rtol=2e-2)
    c.expect(3, [sum(bf16(v * 0.0625) for v in b)], rtol=5e-2)
