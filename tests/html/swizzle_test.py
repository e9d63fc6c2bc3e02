#!/usr/bin/env python3
"""The HTML view's drawing of a TMA-filled buffer, checked structurally in
headless Chromium (the DOM the page's script built, not pixels): for
tests/programs/tma_swizzle (a TMA box read column-wise) under no swizzle,
the page opened at the TMA load's line draws the buffer under the map's
mode ("none") and the best one, each 128-byte line as 8 slots of 16 bytes
(4 banks each) holding box row.chunk where the programming guide's
permutation puts them (address bits 4.. XOR bits 7..), computed here
independently of smemlab; the figures' wavefronts are the --json
swizzle what-if's, and the padding what-if of tiles.cu is shown at its line.
Usage: swizzle_test.py SMEMLAB SOURCE_DIR OUT_DIR TMA_SWIZZLE"""
import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import browser, check, duration_text, finish, runner  # noqa: E402

smemlab, source_dir, out_dir, program = sys.argv[1:5]
run = runner(smemlab, source_dir)


def chunks(svg):
    """(line, slot) -> (row, chunk) of one swizzle-map figure."""
    out = {}
    for g in re.findall(r'<g class="chunk"[^>]*>', svg):
        a = dict(re.findall(r'data-(\w+)="(\d+)"', g))
        out[int(a["line"]), int(a["slot"])] = (int(a["row"]), int(a["chunk"]))
    return out


os.makedirs(out_dir, exist_ok=True)
tmp = tempfile.mkdtemp(prefix="smemlab-swizzle-")
for row_bytes in (128, 64):
    args = ["--", program, str(row_bytes), "0"]
    jpath = os.path.join(tmp, f"tma{row_bytes}.jsonl")
    run(["analyze", "--json", "--output", jpath] + args)
    launch = [json.loads(l) for l in open(jpath) if l.startswith("{")][0]
    w = launch["swizzle_what_if"][0]
    page = os.path.join(tmp, f"tma{row_bytes}.html")
    run(["analyze", "--html", page] + args)
    dom = browser(f"file://{page}#s0-L{w['line']}", "--dump-dom")
    pane = dom.split('id="details-0"')[1].split("</aside>")[0]
    svgs = re.findall(r'<svg class="swizzle-map".*?</svg>', pane, re.S)
    modes = [re.search(r'data-mode="([^"]*)"', s).group(1) for s in svgs]
    # The best mode: the fewest wavefronts, the lowest mode on a tie.
    order = ["none", "32B", "64B", "128B"]
    best = min((v, order.index(m), m) for m, v in w["wavefronts"].items() if v is not None)[2]
    check(modes == ["none", best] and best != "none",
          f"{row_bytes}-byte rows: the map's mode and the best ({best}) drawn at line "
          f"{w['line']}: {modes}")
    # The what-if times: the launch's predicted time under each mode, in the
    # section's timing box, as --json's predicted_ns.
    box = re.search(r'<div class="timing">.*?</div>', dom, re.S)
    cells = re.findall(r"<td>([^<]*)</td>", box.group(0)) if box else []
    for mode, ns in w["predicted_ns"].items():
        if ns is None:
            continue
        check(f"swizzle {mode}" in cells and cells[cells.index(f"swizzle {mode}") + 1] == duration_text(ns),
              f"{row_bytes} B: the timing box gives swizzle {mode} {duration_text(ns)} (--json)")
    base = w["shared_offset"]
    for svg, mode in zip(svgs, modes):
        wf = w["wavefronts"][mode]
        check(f"swizzle {mode}" in svg and f"{wf} wavefronts" in svg,
              f"{row_bytes} B {mode}: the figure names the --json wavefronts ({wf})")
        got = chunks(svg)
        # Programming guide, "TMA Swizzle": rows a span (16 << m bytes) apart
        # under mode m, and address bits 4.. XOR the m bits from bit 7.
        m = order.index(mode)
        pitch = (16 << m) if m else row_bytes
        want = {}
        for row in range(w["rows"]):
            for chunk in range(row_bytes // 16):
                a = base + row * pitch + chunk * 16
                a ^= ((a >> 7) & ((1 << m) - 1)) << 4
                line, slot = (a - base) // 128, (a - base) % 128 // 16
                if line < 8:
                    want[line, slot] = (row, chunk)
        check(got == want, f"{row_bytes} B {mode}: {len(got)} chunks where the permutation "
                           f"puts them ({len(want)} expected)")
    if row_bytes == 128:
        browser(f"file://{page}#s0-L{w['line']}", "--screenshot=" +
                os.path.join(out_dir, "swizzle-tma128.png"), "--hide-scrollbars")

# The padding what-if at its costliest line, with the --json numbers.
page = os.path.join(tmp, "tiles.html")
args = ["analyze", "kernels/tiles.cu", "--kernel", "setRowReadColRect"]
p = json.loads(run(args + ["--json"]))["padding_what_if"][0]
run(args + ["--html", page])
dom = browser(f"file://{page}#s0-L{p['line']}", "--dump-dom")
pane = dom.split('id="details-0"')[1].split("</aside>")[0]
table = re.search(r'<table class="padding-whatif">.*?</table>', pane, re.S)
check(table is not None, f"the padding what-if is shown at line {p['line']}")
if table:
    cells = re.findall(r"<t[dh]>([^<]*)</t[dh]>", table.group(0))
    check(f"pad {p['pad_words']} words" in cells and str(p["load"]["padded_wavefronts"]) in cells,
          f"it shows pad {p['pad_words']} words and {p['load']['padded_wavefronts']} load wavefronts")

finish()
