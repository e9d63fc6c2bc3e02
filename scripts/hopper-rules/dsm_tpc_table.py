#!/usr/bin/env python3
"""Run 11 (h-hop28d): scripts/gpu-hop28d's DSMEM probe output (dsm.csv: ncu,
dsm.log: the probe's lines with each rank's SM) against the per-peer rule
(bank::dshared_cost per target rank: an atomic's lanes on one address take
turns, each turn's distinct 32-byte sectors add up; loads one turn), written
as tests/validation/hopper/h100-run11-dsm.tsv:
    dsm_tpc_table.py OUTDIR scripts/hopper-rules/cases12.txt TSV"""
import sys

from metrics import read_csv


def ncu(path):
    return read_csv(path, raw=True)


def per_peer(op, t, o, mask):
    width = 8 if op.endswith("64") else 4
    turns, seen = {}, {}
    for lane in range(32):
        if not mask >> lane & 1:
            continue
        off = o[lane] % 16384
        if width == 8:
            off &= ~7
        a = (t[lane], off)
        k = seen.get(a, 0) if op != "ld" else 0
        seen[a] = k + 1
        for s in range(off // 32, (off + width - 1) // 32 + 1):
            turns.setdefault(k, set()).add((t[lane], s))
    return sum(len(s) for s in turns.values())


def read_run(out_dir, cases_path):
    """The probe cases (name -> op, ranks, offsets, mask), the launches' case
    names in order, and each case's SM ids, of one dsm_cl run."""
    cases = {}
    for line in open(cases_path):
        f = line.split()
        if len(f) < 3 or f[0].startswith("#"):
            continue
        kv = dict(x.split("=", 1) for x in f[2:])
        cases[f[0]] = (kv["op"], [int(x) for x in kv["t"].split(",")], [int(x) for x in kv["o"].split(",")],
                       int(kv["mask"], 16))
    log = open(f"{out_dir}/dsm.log").read().splitlines()
    names = [l.split()[2] for l in log if l.startswith("launch ")]
    smid = {l.split()[1]: ",".join(l.split()[2:]) for l in log if l.startswith("smid ")}
    return cases, names, smid


def main():
    out_dir, cases_path, tsv = sys.argv[1:4]
    cases, names, smid = read_run(out_dir, cases_path)
    m = ncu(f"{out_dir}/dsm.csv")
    cols = ["l1tex__t_requests_pipe_lsu_mem_dshared_op_atom.sum", "l1tex__t_sectors_pipe_lsu_mem_dshared_op_atom.sum",
            "l1tex__t_requests_pipe_lsu_mem_dshared_op_redas.sum", "l1tex__t_sectors_pipe_lsu_mem_dshared_op_redas.sum",
            "l1tex__t_requests_pipe_lsu_mem_dshared_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_dshared_op_ld.sum",
            "l1tex__t_output_wavefronts_pipe_lsu_mem_dshared_op_atom.sum",
            "l1tex__m_xbar2l1tex_read_sectors_mem_dshared_op_atom.sum",
            "l1tex__m_l1tex2xbar_write_sectors_mem_dshared_op_atom.sum"]
    with open(tsv, "w") as f:
        f.write("# scripts/gpu-hop28d (h-hop28d, run 11): dsm_cl probes of scripts/hopper-rules/cases12.txt;\n")
        f.write("# rule: the per-peer sector rule (bank::dshared_cost per target rank); measured: the\n")
        f.write("# op's sectors (op_atom, where ncu files red.shared::cluster too, or op_ld); excess = measured - rule\n")
        f.write("case\tsmids\trule\tmeasured\texcess\t" + "\t".join(cols) + "\n")
        for i, n in enumerate(names):
            op, t, o, mask = cases[n]
            row = m.get(i, {})
            kind = "ld" if op == "ld" else "atom"  # red.shared::cluster is filed under op_atom (measured)
            meas = row.get(f"l1tex__t_sectors_pipe_lsu_mem_dshared_op_{kind}.sum", "")
            rule = per_peer(op, t, o, mask)
            exc = int(float(meas)) - rule if meas not in ("", "n/a") else ""
            f.write(f"{n}\t{smid.get(n, '')}\t{rule}\t{meas}\t{exc}\t" + "\t".join(row.get(c, "") for c in cols) + "\n")


if __name__ == "__main__":
    main()
