#!/usr/bin/env python3
"""Turns scripts/ldgsts-vec/run's output (OUT folders of the two GPU calls of
h-hop28c, issue 28's run 10) into the tables under tests/validation/hopper:
    tables.py DIR1 DIR2 tests/validation/hopper
h100-run10-ldgsts.tsv: one row per sa_driver launch (DIR2: the second call's
launches.csv and launches2.csv, the same binary run twice), the LDGSTS
counters of both passes; h100-run10-ldgsts-sass.tsv: ncu's source view, one
row per executed LDGSTS (DIR2's source.csv.gz); h100-run10-dsm.tsv: one row
per dsm_cl probe launch of both calls (dsm.csv, dsm.log: the SMs each rank
ran on)."""
import csv, gzip, os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hopper-rules"))
from metrics import read_csv  # noqa: E402


def ncu(path):
    return read_csv(path, raw=True)


def launches(log):
    return [l.split()[2] for l in open(log) if l.startswith("launch ")]


def main():
    d1, d2, out = sys.argv[1:4]
    names = launches(f"{d2}/plain.txt")
    a, b = ncu(f"{d2}/launches.csv"), ncu(f"{d2}/launches2.csv")
    metrics = sorted(a[0])
    with open(f"{out}/h100-run10-ldgsts.tsv", "w") as f:
        f.write("# scripts/ldgsts-vec/run (second call of h-hop28c, H100, ncu 2025.3.1): sa_driver's launches,\n")
        f.write("# every LDGSTS counter; `pass` 1 and 2 are the same binary profiled twice (sectors vary by 1-16).\n")
        f.write("launch\tpass\t" + "\t".join(metrics) + "\n")
        for i, n in enumerate(names):
            for p, d in ((1, a), (2, b)):
                f.write(f"{n}\t{p}\t" + "\t".join(d[i][m] for m in metrics) + "\n")
    lines = gzip.open(f"{d2}/source.csv.gz", "rt").read().splitlines()
    sections, cur = [], None
    for l in lines:
        if l.startswith('"Kernel Name"'):
            cur = {"rows": []}
            sections.append(cur)
            continue
        if cur is None or not l.startswith('"'):
            continue
        r = next(csv.reader([l]))
        if r[0] == "Address":
            cur["hdr"] = r
        else:
            cur["rows"].append(dict(zip(cur["hdr"], r)))
    cols = ["Instructions Executed", "Predicated-On Thread Instructions Executed", "L1 Wavefronts Shared",
            "L1 Wavefronts Shared Ideal", "L2 Theoretical Sectors Global"]
    with open(f"{out}/h100-run10-ldgsts-sass.tsv", "w") as f:
        f.write("# ncu --section SourceCounters --page source --print-source sass (second call): every executed\n")
        f.write("# LDGSTS of each sa_driver launch, in SASS order (the first of the two sections ncu prints per launch).\n")
        f.write("launch\tsass\t" + "\t".join(cols) + "\n")
        for i, n in enumerate(names):
            for r in sections[2 * i]["rows"]:
                if "LDGSTS" in r["Source"] and r["Instructions Executed"] not in ("", "0"):
                    f.write(f"{n}\t{r['Source'].strip()}\t" + "\t".join(r[c] for c in cols) + "\n")
    with open(f"{out}/h100-run10-dsm.tsv", "w") as f:
        f.write("# scripts/ldgsts-vec/run, both calls: probe family dsm_cl (scripts/hopper-rules/cases10.txt, cases11.txt)\n")
        f.write("# smids: the SM of each cluster rank, in rank order\n")
        dm = ["l1tex__t_requests_pipe_lsu_mem_dshared_op_atom.sum", "l1tex__t_sectors_pipe_lsu_mem_dshared_op_atom.sum",
              "smsp__sass_inst_executed_op_dshared_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_dshared_op_ld.sum",
              "l1tex__t_output_wavefronts_pipe_lsu_mem_dshared_op_atom.sum"]
        f.write("case\tsmids\t" + "\t".join(dm) + "\n")
        for d in (d1, d2):
            log = open(f"{d}/dsm.log").read().splitlines()
            smid = {l.split()[1]: ",".join(l.split()[2:]) for l in log if l.startswith("smid ")}
            m = ncu(f"{d}/dsm.csv")
            for i, n in enumerate(launches(f"{d}/dsm.log")):
                f.write(f"{n}\t{smid.get(n, '')}\t" + "\t".join(m[i].get(k, "") for k in dm) + "\n")


main()
