#!/usr/bin/env python3
"""Real-world kernels (issue 12): every `// smemlab:` recipe of one .cu file
runs in the emulator on the PTX nvcc made of it for each architecture given,
its output buffers (and printf output) equal an independent CPU reference
(references.py, computed here from the recipe's inputs), `smemlab check`
gives no finding and `smemlab analyze` succeeds.

Usage: run_realworld.py SMEMLAB PTX_DIR FILE.cu ARCH[,ARCH...]
The PTX of FILE.cu for ARCH is PTX_DIR/STEM.ARCH.ptx (tests/realworld/CMakeLists.txt).
"""
import math, os, shlex, struct, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import references  # noqa: E402

FMT = {"char": "b", "int8": "b", "uchar": "B", "uint8": "B", "short": "h", "int16": "h",
       "ushort": "H", "uint16": "H", "int": "i", "int32": "i", "unsigned": "I", "uint": "I",
       "uint32": "I", "long": "q", "int64": "q", "ulong": "Q", "uint64": "Q", "float": "f",
       "double": "d", "half": "e", "bf16": "H"}
FLOATS = {"float", "double", "half", "bf16"}


def bf16_to_float(u):
    return struct.unpack("<f", struct.pack("<I", u << 16))[0]


def float_to_bf16(f):  # round to nearest even, as the CLI does
    u = struct.unpack("<I", struct.pack("<f", f))[0]
    return (u + 0x7FFF + ((u >> 16) & 1)) >> 16 & 0xFFFF


def wrap(v, t):  # an integer stored in a narrower type, as C++ conversions do
    size = struct.calcsize(FMT[t])
    v &= (1 << (8 * size)) - 1
    if FMT[t].islower() and v >> (8 * size - 1):
        v -= 1 << (8 * size)
    return v


def round_to(v, t):  # a double stored as float/half/bf16
    if t == "float":
        return struct.unpack("<f", struct.pack("<f", v))[0]
    if t == "half":
        v = struct.unpack("<f", struct.pack("<f", v))[0]  # via float, as the CLI
        return struct.unpack("<e", struct.pack("<e", v))[0]
    if t == "bf16":
        return bf16_to_float(float_to_bf16(struct.unpack("<f", struct.pack("<f", v))[0]))
    return v


def initial(t, n, init):
    """The values smemlab's --arg TYPE[N]=INIT puts in the buffer."""
    f = t in FLOATS
    if init == "zeros":
        return [0.0 if f else 0] * n
    if init == "iota":
        return [round_to(float(i), t) if f else wrap(i, t) for i in range(n)]
    if init.startswith("random("):
        M = (1 << 64) - 1
        x = (int(init[7:-1]) * 0x9E3779B97F4A7C15 + 1) & M
        out = []
        for _ in range(n):
            x = (x + 0x9E3779B97F4A7C15) & M  # splitmix64
            z = x
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
            z ^= z >> 31
            out.append(round_to((z >> 11) * 2.0**-53, t) if f else wrap(z % 1000, t))
        return out
    if init.startswith("{"):
        vals = [v.strip() for v in init[1:-1].split(",")]
        return [round_to(float(v), t) if f else wrap(int(v, 0), t) for v in vals]
    raise ValueError(f"unsupported init {init}")


OBJECT_ELEM = {"float": "float", "half": "half", "char": "char", "uchar": "uchar",
               "short": "short", "ushort": "ushort", "int": "int", "uint": "unsigned"}


class Arg:
    def __init__(self, spec):
        lhs, rhs = spec.split("=", 1)
        self.spec = spec
        self.object = None
        if lhs.startswith(("tex", "surf")):  # texND:FORMAT[W,H]=INIT/OPTIONS: a buffer of texels
            self.object, lhs = lhs.split(":", 1)
            rhs = rhs.split("/")[0]
            fmt, ext = lhs[:-1].split("[")
            channels = int(fmt[-1]) if fmt[-1] in "24" else 1
            self.extent = [int(e) for e in ext.split(",")]
            self.channels = channels
            elem = OBJECT_ELEM[fmt.rstrip("24")]
            lhs = f"{elem}[{math.prod(self.extent) * channels}]"
        self.buffer = "[" in lhs
        self.type = lhs.split("[")[0]
        if self.buffer and self.type == "ptr":  # a pointer table: addresses, nothing to compare
            self.buffer = False
            self.value = rhs
        elif self.buffer:
            self.count = int(lhs.split("[")[1][:-1])
            self.values = initial(self.type, self.count, rhs)
        elif self.type == "bytes":
            self.value = bytes.fromhex(rhs)
        else:
            self.value = float(rhs) if self.type in FLOATS else int(rhs, 0)


def decode(t, data):
    n = len(data) // struct.calcsize(FMT[t])
    vals = list(struct.unpack(f"<{n}{FMT[t]}", data))
    return [bf16_to_float(v) for v in vals] if t == "bf16" else vals


def main():
    smemlab, ptx_dir, cu, archs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(",")
    stem = os.path.splitext(os.path.basename(cu))[0]
    recipes = [line.split("smemlab:", 1)[1].strip() for line in open(cu)
               if line.startswith("// smemlab:")]
    if not recipes:
        sys.exit(f"{cu}: no recipe")
    failures = 0
    for arch in archs:
        ptx = os.path.join(ptx_dir, f"{stem}.{arch}.ptx")
        for recipe in recipes:
            words = shlex.split(recipe)
            kernel = words[words.index("--kernel") + 1]
            args = [Arg(words[i + 1]) for i, w in enumerate(words) if w == "--arg"]
            name = f"{stem}.{arch} {kernel}"
            with tempfile.TemporaryDirectory() as tmp:
                dumps = []
                for i, a in enumerate(args):
                    if a.buffer:
                        dumps += ["--dump", f"{i}={tmp}/{i}.bin"]
                p = subprocess.run([smemlab, "run", ptx, *words, "--threads", "2", *dumps],
                                   capture_output=True, text=True, timeout=300)
                if p.returncode != 0:
                    print(f"FAIL {name}: run exit {p.returncode}\n{p.stdout}{p.stderr}")
                    failures += 1
                    continue
                outs = {i: decode(a.type, open(f"{tmp}/{i}.bin", "rb").read())
                        for i, a in enumerate(args) if a.buffer}
            ref = references.REFERENCES.get(kernel.replace(" ", ""))
            if ref is None:
                print(f"FAIL {name}: no reference in references.py")
                failures += 1
                continue
            errors = []
            ref(references.Case(args, outs, p.stdout, errors))
            for e in errors[:10]:
                print(f"FAIL {name}: {e}")
            if errors:
                failures += 1
                continue
            bad = False
            for cmd in ("check", "analyze"):
                q = subprocess.run([smemlab, cmd, ptx, *words, "--threads", "2"],
                                   capture_output=True, text=True, timeout=300)
                if q.returncode != 0:
                    print(f"FAIL {name}: {cmd} exit {q.returncode}\n{q.stdout[-3000:]}{q.stderr[-3000:]}")
                    bad = True
            failures += bad
            if not bad:
                print(f"ok   {name}: run equals the reference, check clean, analyze ok")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
