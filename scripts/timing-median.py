#!/usr/bin/env python3
"""The per-launch median of several runs of tests/timing/suite_launches
(`time <launch> <label> <us>` lines, each already the median of its
SUITE_REPEAT events), written in the same format: both members of a
fixed/conflicting pair are timed in every run, so the runs' median keeps
one run's noise out of their ratio (issue 31, docs/validation.md §6.5).

usage: timing-median.py RUN1 RUN2 ... > suite.measured"""
import statistics, sys

runs = {}
for path in sys.argv[1:]:
    for line in open(path):
        p = line.split()
        if len(p) == 4 and p[0] == 'time':
            runs.setdefault((int(p[1]), p[2]), []).append(float(p[3]))
for (i, label), us in sorted(runs.items()):
    print(f'time {i} {label} {statistics.median(us):.3f}')
