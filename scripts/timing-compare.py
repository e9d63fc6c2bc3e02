#!/usr/bin/env python3
"""Predicted (smemlab analyze --json, the `timing` object) vs measured
durations per launch, and the error distribution (issue 31).

usage: timing-compare.py --name NAME --predicted analyze.jsonl --measured FILE [...]
       (one --name/--predicted/--measured triple per program)
Measured files: `time <launch> <label> <us>` lines (the suite program's
own CUDA-event medians) or ncu's --csv output (gpu__time_duration.sum in ns
or us, one row per launch, ID = launch index). CUDA-event times are
compared with the prediction's duration_ns (launch path included), ncu's
with its kernel_ns (gpu__time_duration starts with the grid), in the order
the launches ran (analyze writes no record for a launch the driver refused). Launches
measured under 5 us are listed but excluded from the distribution, which
is printed twice: over every launch, and with each program's kernel once
(the median error of its launches: a public program's 40 repeats of one
kernel would otherwise outweigh the suite). Ratios: the predicted
and measured ratio of each fixed kernel to its conflicting version."""
import argparse, csv, io, json, statistics, sys

def read_predicted(path):
    out = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line.startswith('{'):
                continue
            try:
                j = json.loads(line)
            except json.JSONDecodeError:
                continue
            if 'launch' in j and 'timing' in j:
                out[int(j['launch'])] = j
    return out

def read_measured(path):
    """(launch -> (label, us), measured by ncu?)"""
    out = {}
    text = open(path).read()
    ncu = '"ID"' in text
    if ncu:  # ncu --csv
        body = text[text.index('"ID"'):]
        for row in csv.DictReader(io.StringIO(body)):
            if row.get('Metric Name') != 'gpu__time_duration.sum':
                continue
            v = float(row['Metric Value'].replace(',', ''))
            unit = row.get('Metric Unit', 'ns')
            us = v / 1000 if unit in ('ns', 'nsecond') else v * 1000 if unit in ('ms', 'msecond') else v
            out[int(row['ID'])] = (row.get('Kernel Name', ''), us)
    else:
        for line in text.splitlines():
            p = line.split()
            if len(p) == 4 and p[0] == 'time':
                out[int(p[1])] = (p[2], float(p[3]))
    return out, ncu

def pct(xs, q):
    xs = sorted(xs)
    if not xs:
        return float('nan')
    k = (len(xs) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)

RATIOS = [  # (fixed, conflicting): the padded/swizzled-vs-naive families
    ('transpose/padded', 'transpose/coalesced'), ('transpose/swizzled', 'transpose/coalesced'),
    ('tiles/setRowReadColPad', 'tiles/setRowReadCol'), ('tiles/setRowReadColDynPad', 'tiles/setRowReadColDyn'),
    ('tiles/setRowReadColRectPad', 'tiles/setRowReadColRect'),
    ('tiles/setRowReadColPad8', 'tiles/setRowReadCol8'),
    ('matmul/tiled32', 'matmul/naive'), ('matmul/tiled16', 'matmul/naive'),
]

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--name', action='append', default=[])
    ap.add_argument('--predicted', action='append', default=[])
    ap.add_argument('--measured', action='append', default=[])
    a = ap.parse_args()
    rows = []
    for name, pf, mf in zip(a.name, a.predicted, a.measured):
        try:
            pred, (meas, ncu) = read_predicted(pf), read_measured(mf)
        except OSError as e:
            print(f'{name}: {e}', file=sys.stderr)
            continue
        if ncu:
            # ncu numbers the kernels that ran; analyze numbers every launch
            # the program asked for, and writes none for those the driver
            # refused (cluster_histogram's invalid cluster sizes): pair them
            # in order.
            pred = {k: pred[i] for k, i in enumerate(sorted(pred))}
        for i in sorted(meas):
            label, us = meas[i]
            p = pred.get(i)
            t = p['timing'] if p else None
            if not t or not t.get('valid'):
                rows.append((name, i, label, us, None, 'no prediction', None))
                continue
            pu = (t['kernel_ns'] if ncu and 'kernel_ns' in t else t['duration_ns']) / 1000
            top = t['lines'][0] if t.get('lines') else None
            kern = p.get('kernel', '').split('(')[0]
            rows.append((name, i, label if label else kern, us, pu, t['limiter'] + (f' [{kern}]' if label else ''),
                         f"{top['file'].split('/')[-1]}:{top['line']} {100*top['share']:.0f}%" if top else ''))
    print('| program | launch | kernel | measured us | predicted us | error | limiter [kernel analyzed] | top line |')
    print('|---|---:|---|---:|---:|---:|---|---|')
    errs = []
    per_kernel = {}
    for name, i, label, us, pu, lim, top in rows:
        err = (pu - us) / us if pu is not None and us > 0 else None
        if err is not None and us >= 5:
            errs.append(abs(err))
            per_kernel.setdefault((name, label), []).append(abs(err))
        e = f'{100*err:+.1f}%' if err is not None else '-'
        excl = ' (<5 us, excluded)' if us < 5 else ''
        print(f'| {name} | {i} | {label} | {us:.2f} | {pu:.2f} | {e}{excl} | {lim} | {top or ""} |' if pu is not None
              else f'| {name} | {i} | {label} | {us:.2f} | - | - | {lim} | |')
    print()
    if errs:
        print(f'launches >= 5 us: {len(errs)}; |error| median {100*statistics.median(errs):.1f}%, '
              f'p90 {100*pct(errs, 0.9):.1f}%, mean {100*statistics.mean(errs):.1f}%, '
              f'max {100*max(errs):.1f}%; within 15%: {sum(e <= .15 for e in errs)}, '
              f'within 35%: {sum(e <= .35 for e in errs)}')
        once = [statistics.median(v) for v in per_kernel.values()]
        print(f'each program kernel once: {len(once)}; |error| median {100*statistics.median(once):.1f}%, '
              f'p90 {100*pct(once, 0.9):.1f}%, mean {100*statistics.mean(once):.1f}%, '
              f'max {100*max(once):.1f}%; within 15%: {sum(e <= .15 for e in once)}, '
              f'within 35%: {sum(e <= .35 for e in once)}')
    by_label = {r[2]: r for r in rows if r[0] == 'suite'}
    print()
    print('| fixed / conflicting | measured ratio | predicted ratio | difference |')
    print('|---|---:|---:|---:|')
    for fixed, bad in RATIOS:
        f, b = by_label.get(fixed), by_label.get(bad)
        if not f or not b or f[4] is None or b[4] is None:
            continue
        mr, pr = f[3] / b[3], f[4] / b[4]
        print(f'| {fixed} / {bad} | {mr:.3f} | {pr:.3f} | {100*(pr/mr-1):+.1f}% |')

if __name__ == '__main__':
    main()
