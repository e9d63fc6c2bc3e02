"""The bank map a page drew for a line, checked against the worst request of
`analyze --json` (its lane addresses): every active lane is in the cell of
its word, the lane number printed in a cell is the cell's lowest lane, the
cell's bank is its word modulo the bank count (4-byte banks), and the
cells span the request's wavefronts. Shared by the Chromium and
Firefox tests; the page draws what C++ decided, this recomputes it from the
addresses alone."""
import re

CELL_RE = re.compile(r'<g class="(cell[^"]*)" data-bank="(\d+)" data-wavefront="(\d+)">'
                     r'<title>([^<]*)</title>.*?<text[^>]*>([^<]*)</text></g>', re.S)
TITLE_RE = re.compile(r"wavefront (\d+), bank (\d+): word ([\d, ]+) to lanes? ([\d,-]+)$")


def cells_from_dom(html):
    """Cells as dicts (class, bank, wavefront, title, text) from serialized SVG."""
    return [{"class": c, "bank": int(b), "wavefront": int(w), "title": t, "text": x}
            for c, b, w, t, x in CELL_RE.findall(html)]


def lanes_of(text):
    out = set()
    for part in text.split(","):
        a, _, b = part.partition("-")
        out.update(range(int(a), int(b or a) + 1))
    return out


def problems(cells, worst, banks=32):
    """What is wrong with `cells` for the JSON `worst` request (empty: right)."""
    bad = []
    width = worst["width"]
    want = {lane: set(range(a // 4, (a + width - 1) // 4 + 1))
            for lane, a in enumerate(worst["addresses"]) if a is not None}
    seen = {lane: set() for lane in want}
    for c in cells:
        m = TITLE_RE.match(c["title"])
        if not m:
            bad.append(f"cell title {c['title']!r} does not name wavefront, bank, word and lanes")
            continue
        words = {int(w) for w in m.group(3).split(",")}
        lanes = lanes_of(m.group(4))
        if int(m.group(1)) != c["wavefront"] or int(m.group(2)) != c["bank"]:
            bad.append(f"cell {c['title']!r} sits at wavefront {c['wavefront']} bank {c['bank']}")
        if c["text"].rstrip("+") != str(min(lanes)) or c["text"].endswith("+") != (len(lanes) > 1):
            bad.append(f"cell {c['title']!r} prints {c['text']!r}")
        if any(w % banks != c["bank"] for w in words):
            bad.append(f"cell {c['title']!r}: a word not in bank {c['bank']}")
        for lane in lanes:
            if lane not in want or not words & want[lane]:
                bad.append(f"cell {c['title']!r}: lane {lane} does not read these words")
            else:
                seen[lane] |= words & want[lane]
    for lane, words in want.items():
        if seen[lane] != words:
            bad.append(f"lane {lane} reads words {sorted(words)}, drawn {sorted(seen[lane])}")
    if max((c["wavefront"] for c in cells), default=0) != worst["wavefronts"]:
        bad.append(f"cells span {max((c['wavefront'] for c in cells), default=0)} wavefronts, "
                   f"JSON has {worst['wavefronts']}")
    return bad
