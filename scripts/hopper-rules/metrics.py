#!/usr/bin/env python3
"""Metric bookkeeping for scripts/hopper-rules/run.
  metrics.py candidates QUERY_ALL QUERY_BASE  -> the .sum counters of the
      families issue 28 names (shared, gmma, tma/bulk, dshared, ldgsts,
      ldsm/stsm, the LSU's global side), one per line
  metrics.py select CSV...                   -> the counters for the sweep:
      those a discovery launch moved (nonzero and not the same everywhere),
      the shared-memory ones first, plus CORE, at most LIMIT
  metrics.py table OUTFILE PLAIN_LOG CSV...   -> one TSV row per launch:
      name, then every metric (ncu's launch ids paired with the probe's
      'launch N NAME ok' lines of the same run, given as CSV:LOG pairs)"""
import csv, io, re, sys

PATTERNS = ("shared", "gmma", "tma", "ldgsts", "ldsm", "stsm", "bulk", "dsmem", "dshared",
            "lsu_mem_global_op", "op_global", "utma", "ublk")
CORE = [
    "smsp__sass_inst_executed_op_shared_ld.sum", "smsp__sass_inst_executed_op_shared_st.sum",
    "smsp__sass_inst_executed_op_shared_atom.sum",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "sm__sass_inst_executed_op_global_ld.sum", "sm__sass_inst_executed_op_global_st.sum",
    "sm__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ld.sum",
]
LIMIT = 60
NAME = re.compile(r"^([a-z0-9_]+__[a-z0-9_]+(\.[a-z0-9_]+)*)\b")


def candidates(query_all, query_base):
    names = set()
    for line in open(query_all, errors="replace"):
        m = NAME.match(line.strip())
        if m and m.group(1).endswith(".sum") and m.group(1).count(".") == 1:
            names.add(m.group(1))
    if not names:  # the listing had no suffixes: take base names
        for line in open(query_base, errors="replace"):
            m = NAME.match(line.strip())
            if m and "." not in m.group(1):
                names.add(m.group(1) + ".sum")
    keep = sorted(n for n in names if any(p in n for p in PATTERNS)
                  and not any(x in n for x in ("realtime", "pct", "per_second", "throughput", "cycles")))
    print("\n".join(keep))


def read_csv(path, raw=False):
    """-> {launch id: {metric: value}} from ncu --csv output (a --log-file):
    floats (None where not a number), or with raw the text without
    thousands separators."""
    text = open(path, errors="replace").read()
    at = text.find('"ID"')
    rows = {}
    if at < 0:
        return rows
    for row in csv.DictReader(io.StringIO(text[at:])):
        try:
            i = int(row["ID"])
        except (KeyError, ValueError):
            continue
        val = (row.get("Metric Value") or "").replace(",", "")
        if raw:
            v = val
        else:
            try:
                v = float(val)
            except ValueError:
                v = None
        rows.setdefault(i, {})[row.get("Metric Name")] = v
    return rows


def select(paths):
    seen = {}
    for p in paths:
        for _, ms in read_csv(p).items():
            for k, v in ms.items():
                seen.setdefault(k, []).append(v)

    def rank(k):
        for i, w in enumerate(("wavefront", "bank_conflict", "inst_executed", "requests", "sectors", "bytes")):
            if w in k:
                return (0 if "shared" in k or "gmma" in k or "tma" in k else 1, i, k)
        return (2, 9, k)

    moved = [k for k, vs in seen.items()
             if any(v for v in vs if v is not None) and len(set(vs)) > 1 and k not in CORE]
    chosen = CORE + sorted(moved, key=rank)[:LIMIT - len(CORE)]
    print("\n".join(chosen))


def table(outfile, pairs):
    metrics, rows = set(), []
    for pair in pairs:
        csvp, logp = pair.split(":")
        names = {}
        for line in open(logp, errors="replace"):
            f = line.split()
            if len(f) >= 4 and f[0] == "launch":
                names[int(f[1])] = (f[2], " ".join(f[3:]))
        for i, ms in sorted(read_csv(csvp).items()):
            name, status = names.get(i, (f"?{i}", "?"))
            metrics |= set(ms)
            rows.append((name, status, ms))
    cols = sorted(metrics)
    with open(outfile, "w") as f:
        f.write("case\tstatus\t" + "\t".join(cols) + "\n")
        for name, status, ms in rows:
            vals = ["" if ms.get(c) is None else f"{ms[c]:g}" for c in cols]
            f.write(f"{name}\t{status}\t" + "\t".join(vals) + "\n")


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "candidates":
        candidates(sys.argv[2], sys.argv[3])
    elif cmd == "select":
        select(sys.argv[2:])
    elif cmd == "table":
        table(sys.argv[2], sys.argv[3:])
