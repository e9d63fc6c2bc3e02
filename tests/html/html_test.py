#!/usr/bin/env python3
"""The HTML source view in a real browser: headless Chromium loads pages made
by `analyze --html`, `check --html` and `report --html` from disk, and the
DOM it renders is checked against the `--json` numbers of the same run.
Chromium's network log proves the page makes no request. A screenshot is left
in the build folder (CI artifact)."""
import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bank_cells import cells_from_dom, problems  # noqa: E402
from harness import browser, check, finish, runner  # noqa: E402

smemlab, source_dir, out_dir = sys.argv[1], sys.argv[2], sys.argv[3]
program = sys.argv[4] if len(sys.argv) > 4 else None  # tests/html/launches.cu, built
run = runner(smemlab, source_dir)


def line_excess(lines):
    return {l["line"]: sum(l[op]["excess"] for op in ("load", "store", "atomic") if op in l)
            for l in lines}


def rows(dom):
    return re.findall(r'<tr class="src[^"]*"[^>]*>', dom)


def details(dom, section=0):
    """The details pane of a section (the script's own text comes later)."""
    return dom.split(f'id="details-{section}"')[1].split("</aside>")[0]


def attr(tag, name):
    m = re.search(name + r'="([^"]*)"', tag)
    return m.group(1) if m else None


os.makedirs(out_dir, exist_ok=True)
tmp = tempfile.mkdtemp(prefix="smemlab-html-")

# 1. analyze: the worst line of transposeCoalesced (the column read of the tile).
page = os.path.join(tmp, "transpose.html")
args = ["analyze", "kernels/transpose.cu", "--kernel", "transposeCoalesced",
        "--arch", "sm_90,sm_20,sm_35:8"]
data = json.loads(run(args + ["--json"]))
run(args + ["--html", page])
html = open(page, encoding="utf-8").read()
check(len(html) < 2 * 1024 * 1024, f"analyze page is {len(html)} bytes (< 2 MB)")
for pattern in [r'(src|href)\s*=\s*["\']?\s*(https?:)?//', r"url\(", r"@import",
                r"\bfetch\(", r"XMLHttpRequest", r"WebSocket", r"EventSource"]:
    check(not re.search(pattern, html), f"page has no external reference /{pattern}/")

netlog = os.path.join(tmp, "net.json")
dom = browser("file://" + page, "--dump-dom", f"--log-net-log={netlog}")
# Requests the page made (the browser's own update/time checks carry the
# initiator "not an origin" and are not the page's).
events = json.load(open(netlog))["events"] if os.path.exists(netlog) else []
requests = [e["params"] for e in events
            if isinstance(e.get("params"), dict) and "url" in e["params"] and "initiator" in e["params"]]
page_requests = [r["url"] for r in requests if r["initiator"] != "not an origin"
                 and not r["url"].startswith(("file:", "data:"))]
check(len(events) > 0, f"Chromium wrote its network log ({len(requests)} requests, the browser's own included)")
check(not page_requests, f"the page made no network request (saw {page_requests[:5]})")
check("Content-Security-Policy" in html and "default-src 'none'" in html,
      "the page forbids itself any load (CSP default-src 'none')")
check('data-ready="1"' in dom, "the page's script ran to the end")
src_lines = len(open(os.path.join(source_dir, "kernels/transpose.cu")).read().splitlines())
main_rows = [r for r in rows(dom) if "other-file" not in r]
check(len(main_rows) == src_lines, f"{len(main_rows)} source rows == {src_lines} lines of the file")
check(all('tabindex="0"' in r for r in rows(dom)), "every line is keyboard-focusable")

excess = line_excess(data["lines"])
worst_line = max(excess, key=lambda k: (excess[k], -k))
selected = [r for r in rows(dom) if "selected" in r]
check(len(selected) == 1 and attr(selected[0], "data-line") == str(worst_line),
      f"opens on the costliest line {worst_line} (excess {excess[worst_line]})")
check(selected and attr(selected[0], "data-value") == str(excess[worst_line]),
      "its gutter value equals analyze --json's excess wavefronts")
worst = next(l for l in data["lines"] if l["line"] == worst_line)["worst"]
# The page holds its bank maps as figure data, not markup: the script draws
# one when its line is opened.
page_data = html.split('id="smemlab-data">')[1].split("</script>")[0]
check('<svg class=\\"bank-map' not in page_data and '"bank_map"' in page_data,
      "the page's data holds bank maps as figure data, no SVG markup")
check(details(dom).count('<svg class="bank-map"') == 1, "one bank map drawn: the opened line's")
cells = cells_from_dom(details(dom))
conflicts = [c for c in cells if "conflict" in c["class"]]
check(len(cells) == 32 and len(conflicts) == worst["wavefronts"],
      f"bank map of the worst request: {len(cells)} cells, {len(conflicts)} conflicted "
      f"(JSON: {worst['wavefronts']} wavefronts)")
bad = problems(cells, worst)
check(not bad, f"its cells hold the lanes and words of the JSON's addresses {bad[:3]}")
# One figure, two drawers: the page's script draws the line's bank map from
# C++'s figure data; `bank --svg` draws the same request in C++. The markup
# must be the same, but for the title.
svg_file = os.path.join(tmp, "worst.svg")
run(["bank", "--addresses", ",".join(str(a or 0) for a in worst["addresses"]),
     "--width", str(worst["width"]), "--mask", worst["mask"], "--arch", "sm_90", "--svg", svg_file])


def one_svg(text):
    svg = re.search(r'<svg class="bank-map".*?</svg>', text, re.S).group(0)
    svg = re.sub(r"<(rect|path)([^>]*)></\1>", r"<\1\2/>", svg)  # the DOM writes <rect/> as <rect></rect>
    title = re.search(r"<title>([^<]*)</title>", svg).group(1)
    return svg.replace(f">{title}<", ">TITLE<")


page_svg, file_svg = one_svg(details(dom)), one_svg(open(svg_file).read())
check(page_svg == file_svg, f"the page draws the worst line's bank map as bank --svg does "
      f"({len(page_svg)} and {len(file_svg)} characters; first difference at "
      f"{next((i for i, (a, b) in enumerate(zip(page_svg, file_svg)) if a != b), '-')})")
m = re.search(r'data-render-ms="([0-9.]+)"', dom)
print(f"info render time {m.group(1) if m else '?'} ms")

# 2. A line named in the address opens instead (the handler a click runs), and
# its figure is drawn then: open the first line, which has no figure, and the
# worst line by its address.
dom1 = browser(f"file://{page}#s0-L1", "--dump-dom")
check(not cells_from_dom(details(dom1)), "#s0-L1 opens line 1: no bank map drawn")
domw = browser(f"file://{page}#s0-L{worst_line}", "--dump-dom")
bad = problems(cells_from_dom(details(domw)), worst)
check(not bad and cells_from_dom(details(domw)), f"#s0-L{worst_line} opens the worst line with its bank map {bad[:3]}")
# The call site of the inlined tile code opens by its address too.
call_site = sorted(k for k in excess if excess[k] == excess[worst_line] and k != worst_line)
if call_site:
    dom2 = browser(f"file://{page}#s0-L{call_site[0]}", "--dump-dom")
    sel2 = [r for r in rows(dom2) if "selected" in r]
    check(len(sel2) == 1 and attr(sel2[0], "data-line") == str(call_site[0]),
          f"#s0-L{call_site[0]} opens that line (inlined code counted at its call site too)")

# A global store's sector map, drawn when its line is opened (transposeNaive
# writes a column: every lane its own sector).
npage = os.path.join(tmp, "naive.html")
nargs = ["analyze", "kernels/transpose.cu", "--kernel", "transposeNaive"]
nj = json.loads(run(nargs + ["--json"]))
run(nargs + ["--html", npage])
gl = [(l[c]["sectors"] - l[c]["ideal_sectors"], l["line"], l[c]) for l in nj["lines"]
      for c in ("global_load", "global_store", "local_load", "local_store") if l.get(c, {}).get("requests")]
_, gline, gc = max(gl, key=lambda t: (t[0], -t[1]))
ndom = browser(f"file://{npage}#s0-L{gline}", "--dump-dom")
nd = details(ndom)
sector_rows = re.findall(r"<tspan[^>]*>sector (0x[0-9a-f]+)</tspan>", nd)
hit_lanes = re.findall(r'<rect class="lane-sector"[^>]*><title>lane (\d+): address 0x[0-9a-f]+</title>', nd)
check(len(sector_rows) >= gc["sectors_per_request"] and sorted(set(map(int, hit_lanes))) == list(range(32))
      and f">{len(sector_rows)} sectors of 32 bytes" in nd,
      f"line {gline}'s sector map: {len(sector_rows)} sectors (JSON: {gc['sectors_per_request']} per request), "
      f"{len(set(hit_lanes))} lanes placed")

browser("file://" + page, f"--screenshot={os.path.join(out_dir, 'analyze-transpose.png')}",
        "--hide-scrollbars")
check(os.path.getsize(os.path.join(out_dir, "analyze-transpose.png")) > 10000, "screenshot written")

# 3. check: a race's two accesses are both flagged and linked to each other.
cpage = os.path.join(tmp, "race.html")
cj = json.loads(run(["check", "tests/defects/race_missing_sync.cu", "--json"], ok=(1,)))
run(["check", "tests/defects/race_missing_sync.cu", "--html", cpage], ok=(1,))
f = cj["findings"][0]
lines_involved = sorted({a["line"] for a in f["accesses"]})
cdom = browser(f"file://{cpage}#s0-L{lines_involved[0]}", "--dump-dom")
flagged = set(re.findall(r'<tr class="src[^"]*"[^>]*data-line="(\d+)"[^>]*>(?:(?!</tr>).)*'
                         r'<td class="flag">!</td>', cdom, re.S))
check(all(str(l) in flagged for l in lines_involved),
      f"finding flagged at every involved line {lines_involved} (flagged: {sorted(flagged)})")
race_details = details(cdom)
check(all(f'href="#s0-L{l}"' in race_details for l in lines_involved),
      "the finding links to each involved line")

# 4. report: the chart of wavefronts per request, one bar per generation.
rpage = os.path.join(tmp, "report.html")
rj = json.loads(run(["report", "--filter", "setRowReadCol", "--json"]))
run(["report", "--filter", "setRowReadCol", "--html", rpage])
rdom = browser("file://" + rpage, "--dump-dom")
bars = re.findall(r'<g class="bar" data-kernel="([^"]*)" data-arch="([^"]*)" data-value="([^"]*)"', rdom)
want = []
for k in rj["kernels"]:
    for op in ("load", "store"):
        for arch, v in k["wavefronts_per_request"][op].items():
            if v is not None:
                want.append((k["kernel"], arch, f"{v:.2f}"))
check(sorted(bars) == sorted(want), f"report chart has the {len(want)} bars of report --json")
check(os.path.getsize(rpage) < 2 * 1024 * 1024, "report page < 2 MB")

# 5. Program mode: one section per analyzed launch of a whole program.
if program:
    ppage = os.path.join(tmp, "program.html")
    jpath = os.path.join(tmp, "program.jsonl")  # smemlab's lines, JSON Lines here
    run(["analyze", "--json", "--output", jpath, "--", program])
    launches = [json.loads(l) for l in open(jpath) if l.startswith("{")]
    run(["analyze", "--html", ppage, "--", program])
    pdom = browser("file://" + ppage, "--dump-dom")
    check('data-ready="1"' in pdom, "program page: the script ran to the end")
    secs = re.findall(r'<section class="launch" id="s(\d+)" data-launch="(\d+)">', pdom)
    check([int(l) for _, l in secs] == [j["launch"] for j in launches] and len(secs) == 3,
          f"one section per analyzed launch: {[l for _, l in secs]} "
          f"(--json: {[j['launch'] for j in launches]})")
    chunks = pdom.split('<section class="launch"')[1:]
    for (si, _), chunk, j in zip(secs, chunks, launches):
        g, b = j["grid"], j["block"]
        heading = re.search(r"<h2>([^<]*)</h2>", chunk).group(1).replace("&lt;", "<").replace("&gt;", ">")
        want = (f"launch {j['launch']}: {j['kernel']}<<<({g[0]},{g[1]},{g[2]}), "
                f"({b[0]},{b[1]},{b[2]}), {j['shared_bytes']}>>>")
        check(heading == want, f"section {si} heading '{heading}' names launch, kernel, grid, "
                               f"block and dynamic shared bytes")
        src = [r for r in rows(chunk) if "other-file" not in r]
        check(len(src) == len(open(os.path.join(source_dir, "tests/html/launches.cu")).read().splitlines()),
              f"section {si} shows the kernel's source file ({len(src)} rows)")
        ex = line_excess(j["lines"])
        worst_rows = [r for r in rows(chunk) if 'data-worst="1"' in r]
        if not ex or max(ex.values()) == 0:
            check(not worst_rows, f"section {si} ({j['kernel']}): no costly line, none marked")
            continue
        wl = max(ex, key=lambda k: (ex[k], -k))
        check(len(worst_rows) == 1 and attr(worst_rows[0], "data-line") == str(wl)
              and attr(worst_rows[0], "data-value") == str(ex[wl]),
              f"section {si} ({j['kernel']}): worst line {wl} with excess {ex[wl]} as in --json")
    browser("file://" + ppage, f"--screenshot={os.path.join(out_dir, 'analyze-program.png')}",
            "--hide-scrollbars")
    # check -- APP: the same sections, findings only (this program has none).
    cpage2 = os.path.join(tmp, "program-check.html")
    run(["check", "--html", cpage2, "--", program])
    cdom2 = browser("file://" + cpage2, "--dump-dom")
    csecs = re.findall(r'<section class="launch" id="s(\d+)" data-launch="(\d+)">', cdom2)
    check(len(csecs) == 3 and "<td class=\"flag\">!</td>" not in cdom2,
          f"check --html -- APP: {len(csecs)} sections, no finding flagged")

finish()
