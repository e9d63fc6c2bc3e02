#!/usr/bin/env python3
"""A program whose timed launches are one kernel with one grid, block and
set of arguments (the public matrixMul, transpose and scan's first 40
launches, each the same call in the program's timing loop): `smemlab
analyze --launch-count K` analyses its first K launches, and this writes
them followed by copies of the last one numbered up to N - 1, for
scripts/timing-compare.py. It refuses (exit 1) unless the analysed records
agree on kernel, grid, block and predicted times, so a copy stands only for
launches the analysis showed to be alike (issue 31, docs/validation.md
§6.7: analysing all 45 launches of each on the shared 2-core machine took
longer than the session had).

usage: timing-repeat.py IN.jsonl N > OUT.jsonl"""
import json, sys

def key(j):
    t = j.get('timing', {})
    return (j.get('kernel'), tuple(j.get('grid', [])), tuple(j.get('block', [])),
            round(t.get('duration_ns', 0), 3), round(t.get('kernel_ns', 0), 3))

def main():
    src, n = sys.argv[1], int(sys.argv[2])
    recs = [json.loads(l) for l in open(src) if l.strip().startswith('{')]
    recs = [r for r in recs if 'launch' in r and 'timing' in r]
    if not recs:
        sys.exit(f'{src}: no launch records')
    if len({key(r) for r in recs}) != 1:
        sys.exit(f'{src}: the analysed launches differ: {sorted({key(r) for r in recs})}')
    last = recs[-1]
    for r in recs:
        print(json.dumps(r))
    for i in range(int(last['launch']) + 1, n):
        print(json.dumps(dict(last, launch=i, repeated_from=last['launch'])))

if __name__ == '__main__':
    main()
