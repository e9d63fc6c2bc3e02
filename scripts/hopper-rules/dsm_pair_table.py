#!/usr/bin/env python3
"""Run 13 (h-hop28f): scripts/gpu-hop28f's DSMEM probe output (dsm.csv: ncu,
dsm.log: each launch's ranks' SMs) beside the per-peer sector rule, written as
tests/validation/hopper/h100-run13-dsm.tsv:
    dsm_pair_table.py OUTDIR scripts/hopper-rules/cases14.txt TSV"""
import sys

from dsm_tpc_table import per_peer, read_run
from metrics import read_csv

COLS = ["l1tex__t_requests_pipe_lsu_mem_dshared_op_atom.sum", "l1tex__t_sectors_pipe_lsu_mem_dshared_op_atom.sum",
        "l1tex__t_output_wavefronts_pipe_lsu_mem_dshared_op_atom.sum",
        "l1tex__m_xbar2l1tex_read_sectors_mem_dshared_op_atom.sum",
        "l1tex__m_l1tex2xbar_write_sectors_mem_dshared_op_atom.sum"]


def main():
    out_dir, cases_path, tsv = sys.argv[1:4]
    cases, names, smid = read_run(out_dir, cases_path)
    m = read_csv(f"{out_dir}/dsm.csv", raw=True)
    with open(tsv, "w") as f:
        f.write("# scripts/gpu-hop28f (h-hop28f, run 13): dsm_cl probes of scripts/hopper-rules/CASES (cases14.txt: h100-run13-dsm.tsv, cases15.txt: h100-run13b-dsm.tsv);\n")
        f.write("# rule: the per-peer sector rule; measured: op_atom sectors; excess = measured - rule;\n")
        f.write("# lanes: rank:byte offset of each active lane in lane order\n")
        f.write("case\tsmids\tlanes\trule\tmeasured\texcess\t" + "\t".join(COLS) + "\n")
        for i, n in enumerate(names):
            op, t, o, mask = cases[n]
            row = m.get(i, {})
            meas = row.get("l1tex__t_sectors_pipe_lsu_mem_dshared_op_atom.sum", "")
            rule = per_peer(op, t, o, mask)
            exc = int(float(meas)) - rule if meas not in ("", "n/a") else ""
            lanes = " ".join(f"{t[l]}:{o[l]}" for l in range(32) if mask >> l & 1)
            f.write(f"{n}\t{smid.get(n, '')}\t{lanes}\t{rule}\t{meas}\t{exc}\t" + "\t".join(row.get(c, "") for c in COLS) + "\n")


main()
