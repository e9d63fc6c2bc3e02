#!/usr/bin/env python3
"""The HTML view's predicted time (issue 31) in headless Chromium, checked
against `analyze --json` of the same run: the section's timing box (the
main GPU's duration, limiter, occupancy and waves; a what-if row per other
GPU of --arch, with its "unvalidated" note), each line's share of the
limiting resource in the time column (a bar and a percentage), and the
opened line's share in its details.
Usage: timing_test.py SMEMLAB SOURCE_DIR"""
import json
import math
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import browser, check, duration_text, finish, runner  # noqa: E402

smemlab, source_dir = sys.argv[1:3]
run = runner(smemlab, source_dir)
tmp = tempfile.mkdtemp(prefix="smemlab-timing-html-")
page = os.path.join(tmp, "transpose.html")
args = ["analyze", "kernels/transpose.cu", "--kernel", "transposeCoalesced",
        "--arch", "sm_90,sm_80,sm_70"]
data = json.loads(run(args + ["--json"]))
run(args + ["--html", page])
t = data["timing"]
top = max((l for l in t["lines"] if l["file"].endswith("transpose.cu")), key=lambda l: l["share"])
dom = browser(f"file://{page}#s0-L{top['line']}", "--dump-dom")
check('data-ready="1"' in dom, "the page's script ran to the end")

box = re.search(r'<div class="timing">(.*?)</div>', dom, re.S)
check(box is not None, "the section has a timing box")
box = box.group(1) if box else ""
waves = t["waves"]["full"] + (1 if t["waves"]["tail_blocks"] else 0)
main = (f"predicted {duration_text(t['duration_ns'])} on {t['gpu']} (limited by {t['limiter']}); "
        f"{t['occupancy']['blocks_per_sm']} blocks/SM ({t['occupancy']['limited_by']}), {waves:.2f} waves")
check(f'<span class="timing-main">{main}</span>' in box, f"it says '{main}' (--json's timing)")
check(t["gpu"] == "H100" and t["validated"] and "note" not in t, "the main GPU is the measured H100")

rows = [re.findall(r"<td>([^<]*)</td>", r) for r in re.findall(r"<tr>(.*?)</tr>", box, re.S)]
rows = [r for r in rows if r]
want = [[f"{w['gpu']} ({w['arch']})", duration_text(w["duration_ns"]), w["limiter"], w["note"]]
        for w in data["timing_what_if"]]
check([w["gpu"] for w in data["timing_what_if"]] == ["A100 SXM4 80GB", "A100 SXM4 40GB", "V100 SXM2"],
      "--json has a what-if per GPU of sm_80 and sm_70, in gpus.def's order")
check(all(w["note"] == "unvalidated: no measurements on " + ("an " if w["gpu"][0] == "A" else "a ")
          + w["gpu"] for w in data["timing_what_if"]), "each what-if GPU is labelled unvalidated")
check(rows == want, f"the what-if table has those rows: {rows}")

# The time column: each line's share, as --json's timing.lines.
shares = {l["line"]: l["share"] for l in t["lines"] if l["file"].endswith("transpose.cu")}
cells = dict(re.findall(r'<tr class="src[^"]*" id="s0-L(\d+)".*?<td class="time" data-share="([^"]*)"', dom, re.S))
bad = [(n, s, cells.get(str(n))) for n, s in shares.items()
       if s >= 0.005 and not math.isclose(float(cells.get(str(n), "0")), s, rel_tol=1e-9)]
check(shares and not bad, f"{len(shares)} lines' shares in the time column as --json's ({bad[:3]})")
pct = math.floor(100 * top["share"] + 0.5)
row = re.search(rf'id="s0-L{top["line"]}".*?<td class="time"[^>]*>(.*?)</td>', dom, re.S).group(1)
check('<span class="bar" style="width: ' in row and row.endswith(f"{pct}%"),
      f"line {top['line']}: a bar and {pct}% ({row[:80]})")
pane = dom.split('id="details-0"')[1].split("</aside>")[0]
check(f"{pct}% of the predicted time's limiting resource ({t['limiter']}) on H100" in pane,
      f"the opened line {top['line']} names its share in its details")
finish()
