#!/usr/bin/env python3
"""Compares `smemlab run -- nan_ops` (stdin or a file) with the GPU's lines
(h200.txt, recorded on an H200; its SM is the H100's: nan.cu's rows agree).

Every column must equal the GPU's bits, except the approximate instructions
(PTX `.approx` and the libdevice functions built on them), whose last bits
are the hardware's own tables: there a NaN, an infinity or a zero must be
the GPU's exact bits and any other result within a relative 2^-10 (the
loosest bound the PTX ISA states for them, tanh.approx's)."""
import math
import struct
import sys

APPROX = {
    "rcp_approx", "rcp_approx_ftz", "sqrt_approx", "rsqrt_approx", "ex2_approx", "ex2_approx_ftz",
    "lg2_approx", "sin_approx", "cos_approx", "tanh_approx", "div_approx", "div_full", "ex2_f16",
    "tanh_f16", "lib_expf", "lib_logf", "lib_sinf", "lib_powf", "lib_tanhf", "lib_fdividef",
}
HALF = {"cvt_f16_f32", "cvt_bf16_f32", "add_f16", "mul_f16", "fma_f16", "min_f16", "max_f16", "ex2_f16",
        "tanh_f16", "add_bf16", "fma_bf16", "mul_bf16", "min_bf16", "max_bf16", "neg_f16", "abs_f16"}


def rows(lines):
    out = {}
    for line in lines:
        parts = line.split()
        if "->" not in parts:
            continue
        out[tuple(parts[:parts.index("->")])] = parts[-1]
    return out


def value(name, bits):
    x = int(bits, 16)
    if name in HALF:
        return struct.unpack("<e", struct.pack("<H", x & 0xffff))[0] if not name.endswith("bf16") \
            else struct.unpack("<f", struct.pack("<I", (x & 0xffff) << 16))[0]
    if len(bits) == 16:
        return struct.unpack("<d", struct.pack("<Q", x))[0]
    return struct.unpack("<f", struct.pack("<I", x & 0xffffffff))[0]


def close(name, gpu, emu):
    g, e = value(name, gpu), value(name, emu)
    if math.isnan(g) or math.isinf(g) or g == 0:
        return False
    return math.isfinite(e) and abs(g - e) <= abs(g) * 2.0 ** -10


def main():
    gpu = rows(open(sys.argv[1]))
    emu = rows(open(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2] != "-" else sys.stdin)
    bad = 0
    for key, g in gpu.items():
        e = emu.get(key)
        if e == g or (e is not None and key[0] in APPROX and close(key[0], g, e)):
            continue
        bad += 1
        print(f"{' '.join(key)}: GPU {g}, smemlab {e}")
    print(f"{len(gpu) - bad} of {len(gpu)} rows as the GPU's")
    return 1 if bad or not gpu else 0


if __name__ == "__main__":
    sys.exit(main())
