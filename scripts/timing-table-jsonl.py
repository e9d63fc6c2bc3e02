#!/usr/bin/env python3
"""An earlier comparison's predictions (scripts/timing-compare.py's table,
timing.md) as the JSON lines timing-compare.py reads, one file per program,
so that a model's predictions can be joined with a later run's
measurements without analysing the launches again (issue 31: the "before"
column of docs/validation.md §6.8 is main's model, whose predictions of
these very launches §6.7 recorded). Each record carries the table's
predicted time as both duration_ns and kernel_ns (the table holds the one
its measurement was compared with) and its limiter.

usage: timing-table-jsonl.py TIMING.md OUTDIR  (writes OUTDIR/<program>.jsonl)"""
import json, os, sys

def main():
    table, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    files = {}
    for line in open(table):
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if len(cells) < 8 or not cells[1].isdigit():
            continue
        program, launch, kernel, predicted, limiter = cells[0], int(cells[1]), cells[2], cells[4], cells[6]
        if predicted in ('-', ''):
            continue
        ns = float(predicted) * 1000
        rec = {'launch': launch, 'kernel': kernel, 'label': kernel,
               'timing': {'valid': True, 'duration_ns': ns, 'kernel_ns': ns,
                          'limiter': limiter.split(' [')[0], 'lines': []}}
        if program not in files:
            files[program] = open(os.path.join(out, program + '.jsonl'), 'w')
        files[program].write(json.dumps(rec) + '\n')
    for f in files.values():
        f.close()

if __name__ == '__main__':
    main()
