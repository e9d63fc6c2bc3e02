#!/usr/bin/env python3
"""The HTML source view in headless Firefox (Debian's firefox-esr), driven
through Marionette (tests/html/marionette.py; no geckodriver): the page made
by `analyze --html` loads from disk, its script runs to the end, the DOM
holds the numbers of `analyze --json`, the keyboard moves between lines and
opens one, and the page loaded no resource. A screenshot is left in the
build folder. Exits 77 (ctest SKIP) when Firefox is not installed."""
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bank_cells import problems  # noqa: E402
from harness import check, finish, runner  # noqa: E402
from marionette import Firefox  # noqa: E402

smemlab, source_dir, out_dir = sys.argv[1], sys.argv[2], sys.argv[3]
firefox = os.environ.get("FIREFOX") or shutil.which("firefox-esr") or shutil.which("firefox")
if not firefox or not os.path.exists(firefox):
    print("SKIP: Firefox (firefox-esr) is not installed: scripts/setup installs it")
    sys.exit(77)
run = runner(smemlab, source_dir)


os.makedirs(out_dir, exist_ok=True)
tmp = tempfile.mkdtemp(prefix="smemlab-firefox-page-")
page = os.path.join(tmp, "transpose.html")
args = ["analyze", "kernels/transpose.cu", "--kernel", "transposeCoalesced",
        "--arch", "sm_90,sm_20,sm_35:8"]
data = json.loads(run(args + ["--json"]))
run(args + ["--html", page])
excess = {l["line"]: sum(l[op]["excess"] for op in ("load", "store", "atomic") if op in l)
          for l in data["lines"]}
worst_line = max(excess, key=lambda k: (excess[k], -k))
worst = next(l for l in data["lines"] if l["line"] == worst_line)["worst"]
src_lines = len(open(os.path.join(source_dir, "kernels/transpose.cu")).read().splitlines())

with Firefox(firefox) as ff:
    print("info", ff.script("return navigator.userAgent"))
    ff.navigate("file://" + page)
    dom = ff.script("""
      const rows = [...document.querySelectorAll('tr.src')];
      const sel = document.querySelectorAll('tr.src.selected');
      const cells = document.querySelectorAll('#details-0 g.cell');
      return {
        ready: document.body.dataset.ready,
        renderMs: document.body.dataset.renderMs,
        rows: rows.filter(r => !r.classList.contains('other-file')).length,
        focusable: rows.every(r => r.tabIndex === 0),
        selected: [...sel].map(r => [r.dataset.line, r.dataset.value]),
        cells: cells.length,
        conflicts: [...cells].filter(c => c.classList.contains('conflict')).length,
        resources: performance.getEntriesByType('resource').map(e => e.name),
        svgWidth: (document.querySelector('#details-0 svg') || {getBBox: () => ({width: 0})}).getBBox().width,
      };""")
    check(dom["ready"] == "1", "Firefox ran the page's script to the end")
    check(dom["rows"] == src_lines, f"{dom['rows']} source rows == {src_lines} lines of the file")
    check(dom["focusable"], "every line is keyboard-focusable (tabindex 0)")
    check(dom["selected"] == [[str(worst_line), str(excess[worst_line])]],
          f"opens on the costliest line {worst_line} with the --json excess {excess[worst_line]} "
          f"(saw {dom['selected']})")
    check(dom["cells"] == 32 and dom["conflicts"] == worst["wavefronts"],
          f"bank map: {dom['cells']} cells, {dom['conflicts']} conflicted "
          f"(JSON: {worst['wavefronts']} wavefronts)")
    check(dom["svgWidth"] > 100, f"the bank map SVG has a layout ({dom['svgWidth']:.0f} px wide)")
    check(dom["resources"] == [], f"the page loaded no resource (saw {dom['resources'][:5]})")
    print(f"info render time {dom['renderMs']} ms (Firefox)")
    # Keyboard: from the selected line, ArrowDown focuses the next line and
    # Enter opens it (the same handlers a key press runs).
    moved = ff.script("""
      const cur = document.querySelector('tr.src.selected');
      cur.focus();
      cur.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowDown', bubbles: true}));
      const next = document.activeElement;
      next.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true}));
      return [next.dataset.line, document.querySelector('tr.src.selected').dataset.line,
              document.querySelector('#details-0 h3').textContent];""")
    check(moved[0] == str(worst_line + 1) and moved[1] == moved[0] and moved[2].endswith(f":{moved[0]}"),
          f"ArrowDown then Enter opens line {worst_line + 1} (saw {moved})")
    # On demand: open line 1 (no figure), then the worst line by a click on
    # its row (the page's own handler), and read the figure it drew.
    opened = ff.script("""
      const row = (n) => document.getElementById('s0-L' + n);
      row(1).click();
      const before = document.querySelectorAll('#details-0 svg').length;
      row(arguments[0]).click();
      return {before, selected: document.querySelector('tr.src.selected').dataset.line,
              cells: [...document.querySelectorAll('#details-0 g.cell')].map(g => ({
                class: g.getAttribute('class'), bank: +g.dataset.bank,
                wavefront: +g.dataset.wavefront, title: g.querySelector('title').textContent,
                text: g.querySelector('text').textContent}))};""", worst_line)
    bad = problems(opened["cells"], worst)
    check(opened["before"] == 0 and opened["selected"] == str(worst_line),
          f"a click on line 1 opens no figure, a click on line {worst_line} opens it")
    check(len(opened["cells"]) == 32 and not bad,
          f"the clicked line's bank map: {len(opened['cells'])} cells with the lanes and words of "
          f"the JSON's addresses {bad[:3]}")
    shot = os.path.join(out_dir, "firefox-analyze-transpose.png")
    ff.navigate("file://" + page)
    ff.screenshot(shot)
    check(os.path.getsize(shot) > 10000, f"screenshot written ({os.path.getsize(shot)} bytes)")

shutil.rmtree(tmp, ignore_errors=True)
finish()
