#!/usr/bin/env python3
"""Checks scripts/tma-rules/run's results (results.txt, dumps/NAME.bin)
against the rules docs/emulator.md states for an H100's TMA:
  - every copy traps (cudaErrorIllegalInstruction) when coordinate 0 is not
    a multiple of 16 bytes into dimension 0; a store or reduction also when
    any coordinate is negative;
  - a shared address not 128-byte aligned: cudaErrorMisalignedAddress;
  - box rows narrower than the swizzle's span are a span apart (the rest
    of the span untouched); the swizzle is a function of the shared
    address (bits 4-6 XOR bits 7-9);
  - the NaN fill is bytes f7 7f over the element, for every float type.
Encode-only cases (mode=enc) are listed with the driver's CUresult.
Usage: check.py DIR (holding results.txt and dumps/). Exit 1 on a mismatch."""
import struct
import sys

SPAN = {0: 0, 1: 32, 2: 64, 3: 128}


def parse(args):
    d = dict(mode='load', type=7, es=4, rank=2, sw=0, nan=0, im2col=0, soff=0, pat='b')
    lists = ('dim', 'box', 'est', 'c', 'off', 'lo', 'hi', 'stride')
    for a in args.split():
        k, v = a.split('=')
        d[k] = [int(x) for x in v.split(',')] if k in lists else (v if k in ('mode', 'pat') else int(v))
    d.setdefault('est', [1] * d['rank'])
    d['est'] += [1] * (d['rank'] - len(d['est']))
    d['c'] = d.get('c', []) + [0] * (5 - len(d.get('c', [])))
    d['off'] = d.get('off', []) + [0] * (3 - len(d.get('off', [])))
    return d


def tensor(k):
    es, dim, r = k['es'], k['dim'], k['rank']
    st = (dim[0] * es + 15) // 16 * 16
    strides = [es]
    for i in range(1, r):
        strides.append(st)
        st *= dim[i]
    n = dim[0] * es if r == 1 else st
    if k['pat'] == 'w':
        t = bytearray(n)
        for i in range(0, n - 3, 4):
            struct.pack_into('<I', t, i, 0x40000000 + i)
    else:
        t = bytearray((i * 37 + 11) & 255 for i in range(n))
    return t, strides


def rows_of(k):
    """Yields (row index, tensor coordinates of the row's element 0)."""
    r, c = k['rank'], k['c']
    nrows = k['box'][1] if k['im2col'] else 1
    if not k['im2col']:
        for i in range(1, r):
            nrows *= (k['box'][i] + k['est'][i] - 1) // k['est'][i]
    for row in range(nrows):
        g = [0] * 5
        if not k['im2col']:
            rr = row
            for i in range(1, r):
                n = (k['box'][i] + k['est'][i] - 1) // k['est'][i]
                g[i] = c[i] + (rr % n) * k['est'][i]
                rr //= n
        else:
            carry = row
            for s in range(1, r - 1):
                lo, hi, e = k['lo'][s - 1], k['dim'][s] + k['hi'][s - 1] - 1, k['est'][s]
                first = (hi - c[s]) // e + 1 if c[s] <= hi else 1
                full = (hi - lo) // e + 1
                if carry < first:
                    pos, carry = c[s] + carry * e, 0
                else:
                    carry -= first
                    pos, carry = lo + carry % full * e, 1 + carry // full
                g[s] = pos + k['off'][s - 1]
            g[r - 1] = c[r - 1] + carry
        yield row, g


def placements(k, h100=True):
    """Yields (shared offset from the box's start, in bounds, global offset)."""
    _, strides = tensor(k)
    es, r, span = k['es'], k['rank'], SPAN[k['sw']]
    rowb = k['box'][0] * es
    pitch = span if h100 and span else rowb
    for row, g in rows_of(k):
        for e in range(k['box'][0]):
            g[0] = k['c'][0] + e
            inb = all(0 <= g[i] < k['dim'][i] for i in range(r))
            a = 4096 + k['soff'] + row * pitch + e * es
            if span:
                a ^= ((a >> 7) & (span // 16 - 1)) << 4
            yield a - 4096 - k['soff'], inb, sum(g[i] * strides[i] for i in range(r))


def load_image(k, h100=True):
    t, _ = tensor(k)
    es = k['es']
    nan = b'\xf7\x7f' * 4 if h100 else struct.pack('<Q', {2: 0x7fff, 4: 0x7fffffff, 8: 2**63 - 1}.get(es, 0))
    img = bytearray(2048)
    for at, inb, off in placements(k, h100):
        if at + es <= 2048:
            img[at:at + es] = t[off:off + es] if inb else (nan[:es] if k['nan'] else bytes(es))
    return img


def stored_tensor(k):
    t, _ = tensor(k)
    es = k['es']
    smem = bytes((i * 7 + 3) & 255 for i in range(2048))
    out = bytearray(t)
    for at, inb, off in placements(k):
        if not inb:
            continue
        v = smem[at:at + es]
        if k['mode'] == 'reduce':  # u32 add
            v = struct.pack('<I', (struct.unpack('<I', t[off:off + 4])[0] +
                                   struct.unpack('<I', v)[0]) & 0xffffffff)
        out[off:off + es] = v
    return out


def predicted_error(k):
    if k['c'][0] * k['es'] % 16:
        return 'cudaErrorIllegalInstruction'
    if k['mode'] in ('store', 'reduce') and any(x < 0 for x in k['c'][:k['rank']]):
        return 'cudaErrorIllegalInstruction'
    if k['mode'] != 'prefetch' and k['soff'] % 128:
        return 'cudaErrorMisalignedAddress'
    return 'cudaSuccess'


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else '.'
    bad = 0
    for line in open(f'{d}/results.txt'):
        name, rest = line.split(' ', 1)
        args, res = rest.split(' :: ')
        res = res.strip()
        k = parse(args)
        if k['mode'] == 'enc' or 'sync=' not in res:
            print(f'{name:4} encode only: {res}')
            continue
        sync = res.split('sync=')[1].split()[0]
        want = predicted_error(k)
        verdict = 'as the rules say' if sync == want else f'RULES SAY {want}'
        bad += sync != want
        extra = ''
        if sync == 'cudaSuccess' and k['mode'] in ('load', 'store', 'reduce'):
            b = open(f'{d}/dumps/{name}.bin', 'rb').read()
            if k['mode'] == 'load':
                got = b[:2048]
                n, old = (sum(x != y for x, y in zip(got, load_image(k, h))) for h in (True, False))
                extra = f'; image: {n} bytes differ from the rules (the pre-H100 model: {old})'
            else:
                n = sum(x != y for x, y in zip(b[2048:], stored_tensor(k)))
                extra = f'; tensor after it: {n} bytes differ from the rules'
            bad += n != 0
        print(f'{name:4} {k["mode"]:8} {sync} ({verdict}){extra}')
    print('every case as the rules say' if not bad else f'{bad} mismatches')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
