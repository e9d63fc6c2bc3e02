#!/usr/bin/env python3
"""The HTML view's colours stay distinguishable with colour-vision
deficiencies: every pair of colours that must be told apart in one figure is
simulated for protanopia, deuteranopia and tritanopia (Machado, Oliveira and
Fernandes 2009, severity 1.0, in linear RGB) and must stay at least
MIN_DELTA_E apart (CIE76 in L*a*b*), and every mark must stand out from the
white page. The colours are read from the sources, so a change of palette is
checked. (Numbers are printed beside every colour in the page as well, so
colour is never the only carrier.)"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import check, finish  # noqa: E402

src = sys.argv[1]
MIN_DELTA_E = 12.0  # clearly distinguishable side by side (JND is about 2.3)

MACHADO = {
    "protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                   [-0.003882, -0.048116, 1.051998]],
    "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                     [-0.011820, 0.042940, 0.968881]],
    "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602],
                   [0.004733, 0.691367, 0.303900]],
    "normal": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
}


def lin(c):
    c /= 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def lab(rgb_lin):
    r, g, b = (min(max(v, 0.0), 1.0) for v in rgb_lin)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883
    f = lambda t: t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116
    return (116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))


def simulate(hex_colour, kind):
    rgb = [lin(int(hex_colour[i:i + 2], 16)) for i in (1, 3, 5)]
    m = MACHADO[kind]
    return lab([sum(m[i][j] * rgb[j] for j in range(3)) for i in range(3)])


def delta(a, b):
    return sum((x - y) ** 2 for x, y in zip(a, b)) ** 0.5


def read(path):
    return open(f"{src}/{path}", encoding="utf-8").read()


bank_svg = read("src/bank/bank_svg.cc")
html_cc = read("src/report/html.cc")
assets = read("src/report/html_assets.h")
named = dict(re.findall(r'constexpr const char\* k(\w+) = "(#[0-9A-Fa-f]{6})"', bank_svg))
chart = re.findall(r'"(#[0-9A-Fa-f]{6})"', re.search(r"const char\* colors\[\] = \{([^}]*)\}", html_cc).group(1))
cost = "#%02X%02X%02X" % tuple(int(v) for v in re.search(r"--cost: (\d+),(\d+),(\d+)", assets).groups())
sector = re.search(r"const HIT = '(#[0-9A-Fa-f]{6})'", assets).group(1)
flag = re.search(r"td\.flag \{ color: (#[0-9A-Fa-f]{6})", assets).group(1)

groups = {
    "bank map (served / broadcast / conflict)": [named["Served"], named["Broadcast"], named["Conflict"]],
    "report chart bars (one per generation)": chart,
    "source view (cost shading / selection outline and time bar / finding flag)": [cost, "#0072B2", flag],
}
marks = [named["Served"], named["Broadcast"], named["Conflict"], sector, cost, flag, *chart]
for name, colours in groups.items():
    worst = (1e9, "", "", "")
    for kind in MACHADO:
        for i in range(len(colours)):
            for j in range(i + 1, len(colours)):
                d = delta(simulate(colours[i], kind), simulate(colours[j], kind))
                worst = min(worst, (d, kind, colours[i], colours[j]))
    check(worst[0] >= MIN_DELTA_E,
          f"{name} {colours}: closest pair {worst[2]} / {worst[3]} "
          f"under {worst[1]}, delta E {worst[0]:.1f} (>= {MIN_DELTA_E})")
white = (100.0, 0.0, 0.0)
for c in sorted(set(marks)):
    d = min(delta(simulate(c, k), white) for k in MACHADO)
    check(d >= MIN_DELTA_E, f"{c} against the white page: delta E {d:.1f} at least")
finish()
