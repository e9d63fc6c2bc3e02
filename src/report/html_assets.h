// The HTML view's stylesheet and script, inlined into every page so that it
// opens from disk with no network. The script lays out what the page's JSON
// holds: every number comes from C++, and a bank map is drawn when its line
// is opened, from the figure C++ decided (bank::bank_figure, see bankMap).
#pragma once

namespace smemlab::report {

inline constexpr const char* kHtmlCss = R"CSS(
:root { --cost: 230,159,0; --sel: #0072B2; }
body { font-family: system-ui, sans-serif; margin: 0; color: #111; background: #fff; }
header.page { padding: 8px 16px; background: #f0f0f0; border-bottom: 1px solid #ccc; }
h1 { font-size: 18px; margin: 4px 0; } h2 { font-size: 16px; margin: 16px 0 4px; }
section.launch { padding: 0 16px 16px; border-bottom: 2px solid #ccc; }
.controls { margin: 6px 0; display: flex; gap: 16px; flex-wrap: wrap; align-items: center; }
.summary { font-size: 13px; color: #333; }
.layout { display: flex; gap: 12px; align-items: flex-start; }
.source-wrap { flex: 1 1 55%; overflow: auto; max-height: 80vh; border: 1px solid #ccc; contain: layout paint; }
table.source { border-collapse: collapse; font: 12px/1.35 ui-monospace, monospace; width: 100%; }
table.source td { padding: 0 6px; white-space: pre; vertical-align: top; }
table.source td.num, table.source td.metric { text-align: right; color: #333; border-right: 1px solid #ddd; }
table.source td.metric { min-width: 6em; }
table.source tr.src:focus, table.source tr.selected { outline: 2px solid var(--sel); outline-offset: -2px; }
table.source tr.src { cursor: pointer; }
table.source tr.other-file td { color: #555; }
td.flag { color: #D55E00; font-weight: bold; }
aside.details { flex: 1 1 45%; position: sticky; top: 0; max-height: 80vh; overflow: auto;
  border: 1px solid #ccc; padding: 8px; font-size: 13px; }
aside.details table { border-collapse: collapse; margin: 4px 0 10px; }
aside.details th, aside.details td { border: 1px solid #ccc; padding: 2px 6px; text-align: right; }
aside.details th:first-child, aside.details td:first-child { text-align: left; }
.figure svg { max-width: 100%; height: auto; }
.finding { border-left: 4px solid #D55E00; padding: 2px 8px; margin: 6px 0; background: #fdf3ec; }
a { color: #0072B2; }
.chart { overflow: auto; }
.timing { font-size: 13px; margin: 4px 0; }
.timing .note { color: #8a4b00; }
table.timing-whatif { border-collapse: collapse; font-size: 12px; margin: 4px 0; }
table.timing-whatif th, table.timing-whatif td { border: 1px solid #ccc; padding: 2px 6px; text-align: left; }
table.source td.time { min-width: 5.5em; border-right: 1px solid #ddd; }
span.bar { display: inline-block; height: 0.8em; background: var(--sel); vertical-align: middle; margin-right: 4px; }
table.suite { border-collapse: collapse; font-size: 12px; }
table.suite th, table.suite td { border: 1px solid #ccc; padding: 2px 6px; text-align: right; }
table.suite td:first-child, table.suite th:first-child { text-align: left; }
)CSS";

inline constexpr const char* kHtmlJs = R"JS(
(function () {
  'use strict';
  const t0 = performance.now();
  const data = JSON.parse(document.getElementById('smemlab-data').textContent);
  const app = document.getElementById('app');
  const el = (tag, attrs, ...kids) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'text') e.textContent = v; else if (k === 'html') e.innerHTML = v;
      else e.setAttribute(k, v);
    }
    for (const c of kids) if (c) e.append(c);
    return e;
  };
  const fmtNum = (v, d) => (v === undefined || v === null) ? '' :
    (Number.isInteger(v) ? String(v) : v.toFixed(d === undefined ? 2 : d));
  const head = el('header', {class: 'page'}, el('h1', {text: data.title}));
  app.replaceChildren(head);

  if (data.kind === 'suite') { suite(); finish(); return; }

  const METRICS = {
    excess: {label: 'excess wavefronts', value: (l, arch) => {
      const b = l.banks && l.banks[arch]; if (!b) return 0;
      return ['load', 'store', 'atomic'].reduce((s, op) => s + (b[op] ? b[op].excess : 0), 0);
    }},
    sectors: {label: 'sectors / request', shade: (l) => {
      let ex = 0; for (const c of ['global_load', 'global_store', 'local_load', 'local_store'])
        if (l[c] && l[c].requests) ex += l[c].sectors - l[c].ideal_sectors; return ex;
    }, value: (l) => {
      let s = 0, r = 0; for (const c of ['global_load', 'global_store', 'local_load', 'local_store'])
        if (l[c] && l[c].requests) { s += l[c].sectors; r += l[c].requests; }
      return r ? s / r : 0;
    }},
    divergence: {label: 'divergent branches', value: (l) => l.branches ? l.branches.divergent : 0},
  };
  // A share (0..1) as a bar 3em long at 1; CSSOM, not a style attribute
  // (the page's CSP allows no inline style).
  const bar = (share) => { const b = el('span', {class: 'bar'}); b.style.width = `${(3 * share).toFixed(2)}em`; return b; };
  // As the text output's duration_text: 3 significant digits, no trailing zeros.
  const fmtDur = (ns) => ns >= 1e6 ? Number((ns / 1e6).toPrecision(3)) + ' ms' : Number((ns / 1e3).toPrecision(3)) + ' µs';
  // "predicted 68.6 µs on H100 (limited by shared pipe); 8 blocks/SM (warps), 15.52 waves"
  const timingText = (t) => !t.valid ? `no time predicted on ${t.gpu}: ${t.why_not}` :
    `predicted ${fmtDur(t.duration_ns)} on ${t.gpu} (limited by ${t.limiter}); ` +
    `${t.occupancy.blocks_per_sm} blocks/SM (${t.occupancy.limited_by}), ` +
    `${(t.waves.full + (t.waves.tail_blocks ? 1 : 0)).toFixed(2)} waves`;

  data.sections.forEach((sec, si) => section(sec, si));
  if (!data.sections.length)
    app.append(el('p', {class: 'empty', text: 'No kernel launch was analyzed.'}));
  // Open on the line the address names (#s0-L42), else the costliest line.
  const target = location.hash && document.getElementById(location.hash.slice(1));
  if (target) select(target, false); else {
    const first = document.querySelector('tr.src[data-worst="1"]');
    if (first) select(first, false);
  }
  finish();

  // Measured by tests and scripts/bench-html: the script's own time, and the
  // time since navigation began (reading and parsing the file included).
  function finish() {
    document.body.dataset.renderMs = (performance.now() - t0).toFixed(1);
    document.body.dataset.readyMs = performance.now().toFixed(1);
    document.body.dataset.ready = '1';
  }

  function section(sec, si) {
    const s = el('section', {class: 'launch', id: 's' + si});
    if (sec.launch_index !== undefined) s.dataset.launch = sec.launch_index;
    app.append(s);
    s.append(el('h2', {text: sec.heading || sec.kernel || ''}));
    if (sec.launch) {
      const L = sec.launch;
      s.append(el('div', {class: 'summary', text:
        `grid (${L.grid}) block (${L.block}), ${L.dynamic_shared} B dynamic shared; ` +
        `${L.blocks_observed} of ${L.blocks_total} blocks emulated` +
        (L.sampling ? ` (${L.sampling})` : '')}));
    }
    if (sec.timing) s.append(timingBox(sec));
    const archs = sec.archs || [];
    const state = {arch: archs[0], metric: 'excess'};
    const controls = el('div', {class: 'controls'});
    if (archs.length) {
      const sel = el('select', {id: `arch-${si}`, 'aria-label': 'generation'});
      for (const a of archs) sel.append(el('option', {value: a, text: a}));
      sel.onchange = () => { state.arch = sel.value; paint(); reselect(); };
      controls.append(el('label', {text: 'generation '}, sel));
    }
    const fs = el('fieldset', {class: 'metric'}, el('legend', {text: 'shade lines by'}));
    for (const [k, m] of Object.entries(METRICS)) {
      const r = el('input', {type: 'radio', name: `metric-${si}`, value: k, id: `metric-${si}-${k}`});
      if (k === state.metric) r.checked = true;
      r.onchange = () => { state.metric = k; paint(); };
      fs.append(r, el('label', {for: `metric-${si}-${k}`, text: m.label + ' '}));
    }
    controls.append(fs);
    s.append(controls);

    const findingsAt = new Map();  // "file:line" -> [finding index]
    (sec.findings || []).forEach((f, fi) => {
      const spots = [[f.file, f.line], ...(f.accesses || []).map(a => [a.file, a.line])];
      for (const [file, line] of spots) {
        const k = file + ':' + line;
        if (!findingsAt.has(k)) findingsAt.set(k, []);
        if (!findingsAt.get(k).includes(fi)) findingsAt.get(k).push(fi);
      }
    });
    const lines = sec.lines || {};
    const mainFile = sec.source;
    const table = el('table', {class: 'source', role: 'grid'});
    // With a prediction, a column of each line's share of the predicted
    // time's limiting resource, as a bar and a percentage.
    const timed = !!(sec.timing && sec.timing.valid);
    const thead = el('tr', {}, el('th', {text: 'line'}), el('th', {class: 'metric-head', text: ''}),
                     timed ? el('th', {class: 'time-head', text: 'time'}) : null,
                     el('th', {text: ''}), el('th', {text: 'source'}));
    table.append(thead);
    const rows = [];
    const addRow = (file, n, text, other) => {
      const k = file + ':' + n;
      const info = lines[k];
      const tr = el('tr', {class: 'src' + (other ? ' other-file' : ''), id: `s${si}-L${n}` + (other ? '-' + rows.length : ''),
                           tabindex: '0', 'data-line': n, 'data-file': file});
      const share = info && info.time_share >= 0.005 ? info.time_share : 0;
      tr.append(...[el('td', {class: 'num', text: other ? `${file.split('/').pop()}:${n}` : n}),
                el('td', {class: 'metric'}),
                timed ? el('td', {class: 'time', 'data-share': share},
                           share ? bar(share) : null,
                           share ? `${Math.round(100 * share)}%` : null) : null,
                el('td', {class: 'flag', text: findingsAt.has(k) ? '!' : ''}),
                el('td', {class: 'code', text: text})].filter(Boolean));
      tr.onclick = () => select(tr, true);
      tr.onkeydown = (e) => {
        if (e.key === 'Enter' || e.key === ' ') { select(tr, true); e.preventDefault(); }
        if (e.key === 'ArrowDown' && tr.nextElementSibling) { tr.nextElementSibling.focus(); e.preventDefault(); }
        if (e.key === 'ArrowUp' && tr.previousElementSibling) { tr.previousElementSibling.focus(); e.preventDefault(); }
      };
      tr._info = info; tr._key = k; tr._sec = si;
      rows.push(tr); table.append(tr);
    };
    const text = sec.source_text || [];
    text.forEach((t, i) => addRow(mainFile, i + 1, t, false));
    // Lines of other files (headers, inlined device functions): after the source.
    const others = Object.values(lines).filter(l => l.file !== mainFile || !text.length)
      .sort((a, b) => a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line);
    for (const l of others) addRow(l.file, l.line, '', true);
    const details = el('aside', {class: 'details', id: `details-${si}`, 'aria-live': 'polite'},
                       el('p', {text: 'Select a line (click, or Enter on a focused line).'}));
    s.append(el('div', {class: 'layout'}, el('div', {class: 'source-wrap'}, table), details));

    function paint() {
      const m = METRICS[state.metric];
      thead.querySelector('.metric-head').textContent = m.label;
      let top = 0; const vals = rows.map(tr => {
        if (!tr._info) return [0, 0];
        const v = m.value(tr._info, state.arch), sh = m.shade ? m.shade(tr._info) : v;
        top = Math.max(top, sh); return [v, sh];
      });
      let worst = -1, worstV = 0;
      rows.forEach((tr, i) => {
        const [v, sh] = vals[i];
        const cell = tr.children[1];
        cell.textContent = tr._info && (v || sh) ? fmtNum(v) : '';
        tr.dataset.value = v;
        tr.style.background = sh > 0 && top > 0 ? `rgba(var(--cost),${(0.15 + 0.7 * sh / top).toFixed(3)})` : '';
        if (sh > worstV) { worstV = sh; worst = i; }
        tr.dataset.worst = '0';
      });
      if (worst >= 0) rows[worst].dataset.worst = '1';
    }
    function reselect() {
      const cur = table.querySelector('tr.selected');
      if (cur) select(cur, false);
    }
    paint();
    s._state = state; s._findings = sec.findings || []; s._findingsAt = findingsAt; s._sec = sec;
  }

  // The launch's predicted time and its what-ifs: other GPUs (--arch) and
  // the swizzle modes of a TMA-filled buffer, each with its label.
  function timingBox(sec) {
    const t = sec.timing;
    const box = el('div', {class: 'timing'}, el('span', {class: 'timing-main', text: timingText(t)}));
    if (t.note) box.append(el('span', {class: 'note', text: ' — ' + t.note}));
    const rows = [];
    for (const w of sec.timing_what_if || [])
      rows.push([`${w.gpu} (${w.arch})`, w.valid ? fmtDur(w.duration_ns) : 'n/a',
                 w.valid ? w.limiter : w.why_not, w.note || '']);
    (sec.swizzle_times || []).forEach((modes, i) => {
      for (const [m, ns] of Object.entries(modes))
        if (ns !== null) rows.push([`swizzle ${m}` + (sec.swizzle_times.length > 1 ? ` (buffer ${i + 1})` : ''),
                                    fmtDur(ns), '', t.note || '']);
    });
    if (rows.length) {
      const tab = el('table', {class: 'timing-whatif'},
                     el('tr', {}, ...['what-if', 'predicted', 'limited by', ''].map(h => el('th', {text: h}))));
      for (const r of rows) tab.append(el('tr', {}, ...r.map(c => el('td', {text: c}))));
      box.append(tab);
    }
    return box;
  }

  function select(tr, focus) {
    const s = document.getElementById('s' + tr._sec);
    const {arch} = s._state;
    for (const r of s.querySelectorAll('tr.selected')) r.classList.remove('selected');
    tr.classList.add('selected');
    history.replaceState(null, '', '#' + tr.id);
    const d = document.getElementById('details-' + tr._sec);
    const info = tr._info;
    const kids = [el('h3', {text: `${tr.dataset.file.split('/').pop()}:${tr.dataset.line}`})];
    if (!info) kids.push(el('p', {text: 'No memory access, branch or instruction counted on this line.'}));
    else {
      const archs = s._sec.archs || [];
      const banks = info.banks || {};
      if (archs.some(a => banks[a] && ['load', 'store', 'atomic'].some(op => banks[a][op] && banks[a][op].requests))) {
        const t = el('table', {class: 'bank-counts'});
        t.append(el('tr', {}, el('th', {text: 'shared'}), ...archs.map(a => el('th', {text: a}))));
        for (const op of ['load', 'store', 'atomic']) {
          if (!archs.some(a => banks[a] && banks[a][op] && banks[a][op].requests)) continue;
          for (const [label, f] of [['requests', c => c.requests], ['wavefronts', c => c.wavefronts],
                                    ['ideal', c => c.ideal], ['excess', c => c.excess],
                                    ['max ways', c => c.max_ways]])
            t.append(el('tr', {}, el('td', {text: `${op} ${label}`}),
                        ...archs.map(a => el('td', {class: `v-${op}-${label.replace(' ', '_')}`,
                          text: banks[a] && banks[a][op] ? fmtNum(f(banks[a][op])) : 'n/a'}))));
        }
        kids.push(t);
      }
      if (info.bank_map && info.bank_map[arch]) kids.push(el('div', {class: 'figure', html: bankMap(JSON.parse(info.bank_map[arch]))}));
      else if (info.bank_map) kids.push(el('p', {text: `No conflicted request on ${arch} at this line.`}));
      const acc = el('table', {class: 'access-counts'});
      let anyAcc = false;
      acc.append(el('tr', {}, el('th', {text: 'memory'}), el('th', {text: 'requests'}),
                 el('th', {text: 'sectors'}), el('th', {text: 'ideal'}), el('th', {text: 'bytes used'})));
      for (const c of ['global_load', 'global_store', 'global_atomic', 'local_load', 'local_store', 'ldgsts']) {
        const x = info[c]; if (!x || !x.requests) continue; anyAcc = true;
        acc.append(el('tr', {}, el('td', {text: c.replace('_', ' ')}), el('td', {text: x.requests}),
                   el('td', {text: x.sectors}), el('td', {text: x.ideal_sectors}),
                   el('td', {text: x.efficiency === undefined ? '' : Math.round(100 * x.efficiency) + '%'})));
      }
      if (anyAcc) kids.push(acc);
      // Hopper's families (tma, gmma, dshared): requests and bytes.
      const hop = [];
      for (const fam of ['tma', 'dshared'])
        for (const [row, x] of Object.entries(info[fam] || {})) hop.push([`${fam} ${row}`, x]);
      if (info.gmma) hop.push(['gmma', info.gmma]);
      if (hop.length) {
        const t = el('table', {class: 'access-counts hopper-counts'});
        const cols = ['requests', 'wavefronts', 'sectors', 'bytes', 'shared_bytes'];
        t.append(el('tr', {}, el('th', {text: 'Hopper'}),
                 ...cols.map((c) => el('th', {text: c.replace('_', ' ')}))));
        for (const [name, x] of hop)
          t.append(el('tr', {}, el('td', {text: name}),
                   ...cols.map((c) => el('td', {text: x[c] === undefined ? '' : x[c]}))));
        kids.push(t);
      }
      for (const p of info.padding || []) kids.push(paddingTable(p));
      if (info.swizzle) {
        const f = JSON.parse(info.swizzle);
        const t = el('table', {class: 'swizzle-whatif'});
        t.append(el('tr', {}, el('th', {text: 'swizzle what-if'}), el('th', {text: 'wavefronts'})));
        for (const [m, v] of f.wavefronts)
          t.append(el('tr', {}, el('td', {text: m}), el('td', {text: v === null ? 'n/a' : v})));
        kids.push(el('p', {text: f.title}), t);
        if (f.proposal) kids.push(el('p', {class: 'swizzle-proposal', text: f.proposal}));
        for (const m of f.modes) kids.push(el('div', {class: 'figure', html: swizzleMap(m)}));
      }
      if (info.time_share && s._sec.timing)
        kids.push(el('p', {class: 'time-share', text: `${Math.round(100 * info.time_share)}% of the predicted time's ` +
                          `limiting resource (${s._sec.timing.limiter}) on ${s._sec.timing.gpu}`}));
      if (info.sector_map) kids.push(el('div', {class: 'figure', html: sectorMap(JSON.parse(info.sector_map))}));
      if (info.branches && (info.branches.uniform || info.branches.divergent))
        kids.push(el('p', {class: 'branches', text: `branches: ${info.branches.uniform} uniform, ${info.branches.divergent} divergent`}));
      if (info.warp_instructions)
        kids.push(el('p', {text: `${info.warp_instructions} warp-instructions, SIMT efficiency ${Math.round(100 * info.simt_efficiency)}%`}));
    }
    for (const fi of s._findingsAt.get(tr._key) || []) {
      const f = s._findings[fi];
      const box = el('div', {class: 'finding', id: `s${tr._sec}-f${fi}`},
                     el('strong', {text: `${f.kind} (${f.severity}): `}), document.createTextNode(f.message));
      const ul = el('ul');
      for (const a of f.accesses || []) {
        const link = el('a', {href: `#s${tr._sec}-L${a.line}`, text: `${a.role} at ${a.file.split('/').pop()}:${a.line}`});
        link.onclick = (e) => {
          const row = document.getElementById(`s${tr._sec}-L${a.line}`);
          if (row) { e.preventDefault(); select(row, true); }
        };
        ul.append(el('li', {}, link, document.createTextNode(
          ` — ${a.instruction}, block (${a.block}) thread ${a.thread}`)));
      }
      box.append(ul); kids.push(box);
    }
    d.replaceChildren(...kids);
    // Scrolled after the details are filled: one layout, not two.
    if (focus) tr.focus(); else tr.scrollIntoView({block: 'center'});
  }

  // A bank map, drawn when its line is opened, from the facts C++ decided
  // (bank::bank_figure: which lanes and words sit in which bank in which
  // wavefront, which cells conflict or broadcast); no bank rule here. The
  // markup is bank::render_bank_svg's (bank_svg.cc, what `bank --svg`
  // writes), with its geometry, style and legend from the page's data;
  // tests/html checks the two cell for cell.
  function bankMap(f) {
    const G = data.bank_map_style, C = G.cell, n = f.rows.length, rows = Math.max(n, 1);
    const w = G.label + f.banks * C + 4, h = G.top + rows * C + 24;
    const s = (k, one, many) => k === 1 ? one : many;
    let o = `<svg class="bank-map" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" role="img" ` +
      `font-family="sans-serif" font-size="10"><title>${esc(f.title)}</title><style>${G.style}</style>` +
      `<text x="0" y="14" font-size="12" font-weight="bold">${esc(f.title)}</text>` +
      `<text x="0" y="${G.top - 18}" fill="#444">${f.wavefronts} wavefront${s(f.wavefronts, '', 's')} ` +
      `(ideal ${f.ideal}), ${f.conflicts} bank conflict${s(f.conflicts, '', 's')}</text>` +
      `<text class="banks" y="${G.top - 4}">`;
    for (let b = 0; b < f.banks; ++b) o += `<tspan x="${G.label + b * C + C / 2}">${b}</tspan>`;
    o += '</text><text>';
    f.rows.forEach(([g], p) => {
      o += `<tspan x="0" y="${G.top + p * C + C / 2 + 4}">wf ${p + 1}${n > 1 && g ? ' g' + g : ''}</tspan>`;
    });
    o += `</text>${grid(G.label, G.top, f.banks, rows, C)}<g class="cells">`;
    f.rows.forEach(([, cells], p) => {
      const y = G.top + p * C;
      for (const [b, words, lanes, lowest, flags] of cells) {
        const x = G.label + b * C, bc = flags & 2;
        o += `<g class="cell${flags & 1 ? ' conflict' : ''}${bc ? ' broadcast' : ''}" data-bank="${b}" ` +
          `data-wavefront="${p + 1}"><title>wavefront ${p + 1}, bank ${b}: word ${words.join(', ')} ` +
          `to lane${bc ? 's' : ''} ${lanes}</title><rect x="${x}" y="${y}" width="${C}" height="${C}"/>` +
          `<text x="${x + C / 2}" y="${y + C / 2 + 4}">${lowest}${bc ? '+' : ''}</text></g>`;
      }
    });
    return o + `</g><g transform="translate(0,${G.top + rows * C})">${G.legend}</g></svg>`;
  }
  // The empty grid, as bank::grid_svg draws it: one background, one path.
  function grid(x0, y0, cols, rows, c) {
    let d = '';
    for (let r = 0; r <= rows; ++r) d += `M${x0} ${y0 + r * c}h${cols * c}`;
    for (let i = 0; i <= cols; ++i) d += `M${x0 + i * c} ${y0}v${rows * c}`;
    return `<rect x="${x0}" y="${y0}" width="${cols * c}" height="${rows * c}" fill="#f4f4f4"/>` +
      `<path d="${d}" stroke="#ddd" fill="none"/>`;
  }
  // A lane -> sector map (global/local requests), drawn when its line is
  // opened from what C++ decided (sector_figure in html.cc: the lanes each
  // sector serves). Drawn only here: no other output has this figure.
  function sectorMap(f) {
    const HIT = '#0072B2';  // Okabe-Ito blue (tests/html/palette_test.py reads it)
    const C = 18, L = 120, T = 44, n = Math.max(f.rows.length, 1), w = L + 32 * C + 4, h = T + n * C + 8;
    let o = `<svg class="sector-map" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" role="img" ` +
      `font-family="sans-serif" font-size="10"><title>${esc(f.title)}</title>` +
      `<text x="0" y="14" font-size="12" font-weight="bold">${esc(f.title)}</text>` +
      `<text x="0" y="28" fill="#444">${f.sectors} sector${f.sectors === 1 ? '' : 's'} of 32 bytes; ` +
      `lanes across</text><text y="${T - 4}" text-anchor="middle">`;
    for (let l = 0; l < 32; ++l) o += `<tspan x="${L + l * C + C / 2}">${l}</tspan>`;
    o += '</text><text>';
    f.rows.forEach(([s], r) => { o += `<tspan x="0" y="${T + r * C + C / 2 + 4}">sector ${s}</tspan>`; });
    o += `</text>${grid(L, T, 32, n, C)}<g fill="${HIT}" stroke="#ddd">`;
    f.rows.forEach(([, lanes], r) => {
      for (let l = 0; l < 32; ++l)
        if (lanes >>> l & 1)
          o += `<rect class="lane-sector" x="${L + l * C}" y="${T + r * C}" width="${C}" height="${C}">` +
            `<title>lane ${l}: address ${f.addr[l]}</title></rect>`;
    });
    return o + '</g></svg>';
  }
  // A conflicted buffer's padding what-if (padding_json in C++).
  function paddingTable(p) {
    const t = el('table', {class: 'padding-whatif'});
    const name = p.variable === null ? 'dynamic window' : p.variable;
    t.append(el('tr', {}, el('th', {text: `padding what-if: ${name}`}), el('th', {text: 'requests'}),
             el('th', {text: 'wavefronts'}), el('th', {text: `pad ${p.pad_words} words`}), el('th', {text: 'ideal'})));
    for (const op of ['load', 'store', 'atomic'])
      if (p[op]) t.append(el('tr', {}, el('td', {text: op}), el('td', {text: p[op].requests}),
                          el('td', {text: p[op].wavefronts}), el('td', {text: p[op].padded_wavefronts}),
                          el('td', {text: p[op].ideal})));
    return t;
  }
  // A TMA-filled buffer under one swizzle mode: per 128-byte line, the
  // 16-byte slots (4 banks each) and the box row.chunk C++ put in each
  // (swizzle_figure.cc); the chunk's colour repeats its printed index.
  function swizzleMap(m) {
    const CHUNK = ['#E69F00', '#56B4E9', '#009E73', '#F0E442', '#0072B2', '#D55E00', '#CC79A7', '#999999'];
    const C = 14, H = 20, L = 64, T = 46, n = Math.max(m.lines.length, 1), w = L + 32 * C + 4, h = T + n * H + 8;
    const name = m.mode + (m.actual ? ', the tensor map\'s' : '') + (m.best ? ', the best' : '');
    const wf = m.wavefronts === null ? 'cannot hold the rows' : `${m.wavefronts} wavefronts`;
    let o = `<svg class="swizzle-map" data-mode="${esc(m.mode)}" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" ` +
      `role="img" font-family="sans-serif" font-size="10"><title>swizzle ${esc(name)}: ${wf}</title>` +
      `<text x="0" y="14" font-size="12" font-weight="bold">swizzle ${esc(name)}: ${wf}</text>` +
      `<text x="0" y="28" fill="#444">box row.chunk in each 16-byte slot; banks across, one 128-byte line per row</text>` +
      `<text y="${T - 4}" text-anchor="middle">`;
    for (let b = 0; b < 32; b += 4) o += `<tspan x="${L + b * C + 2 * C}">${b}-${b + 3}</tspan>`;
    o += '</text><text>';
    m.lines.forEach((_, l) => { o += `<tspan x="0" y="${T + l * H + H / 2 + 4}">+${l * 128} B</tspan>`; });
    o += `</text><rect x="${L}" y="${T}" width="${32 * C}" height="${n * H}" fill="#f4f4f4"/><g class="chunks">`;
    m.lines.forEach((slots, l) => slots.forEach((c, s) => {
      if (!c) return;
      const [row, chunk] = c, x = L + 4 * s * C, y = T + l * H;
      o += `<g class="chunk" data-line="${l}" data-slot="${s}" data-row="${row}" data-chunk="${chunk}">` +
        `<title>bytes ${l * 128 + 16 * s}-${l * 128 + 16 * s + 15} (banks ${4 * s}-${4 * s + 3}): box row ${row}, chunk ${chunk}</title>` +
        `<rect x="${x}" y="${y}" width="${4 * C}" height="${H}" fill="${CHUNK[chunk % 8]}" fill-opacity="0.6" stroke="#fff"/>` +
        `<text x="${x + 2 * C}" y="${y + H / 2 + 4}" text-anchor="middle">${row}.${chunk}</text></g>`;
    }));
    return o + '</g></svg>';
  }
  function esc(t) {
    return String(t).replace(/[&<>"']/g, c => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'})[c]);
  }

  function suite() {
    const s = el('section', {class: 'launch', id: 'suite'});
    app.append(s);
    s.append(el('h2', {text: 'Shared-memory wavefronts per request, by kernel and generation'}));
    s.append(el('div', {class: 'chart', html: data.chart}));
    const t = el('table', {class: 'suite'});
    t.append(el('tr', {}, el('th', {text: 'kernel'}), ...data.archs.map(a => el('th', {text: 'ld/req ' + a})),
             ...data.archs.map(a => el('th', {text: 'st/req ' + a})), el('th', {text: 'sectors/req'}),
             el('th', {text: 'divergent'}), el('th', {text: 'findings'})));
    for (const r of data.rows)
      t.append(el('tr', {class: 'suite-row'}, el('td', {text: r.kernel + (r.recipe > 1 ? ' #' + r.recipe : '')}),
               ...r.ld_per.map(v => el('td', {text: v < 0 ? '' : fmtNum(v)})),
               ...r.st_per.map(v => el('td', {text: v < 0 ? '' : fmtNum(v)})),
               el('td', {text: r.sectors_per_request ? fmtNum(r.sectors_per_request) : ''}),
               el('td', {text: `${r.divergent}/${r.branches}`}),
               el('td', {text: r.error ? r.error : r.findings})));
    s.append(t);
    if (data.bench && data.bench.length) {
      s.append(el('h2', {text: 'Measured on the GPU (smemlab bench --json)'}));
      const b = el('table', {class: 'suite bench'});
      b.append(el('tr', {}, el('th', {text: 'benchmark'}), el('th', {text: 'ms'}), el('th', {text: 'GB/s'}),
               el('th', {text: 'GFLOP/s'}), el('th', {text: '% of anchor'}), el('th', {text: 'verified'})));
      for (const x of data.bench)
        b.append(el('tr', {}, el('td', {text: x.name}), el('td', {text: fmtNum(x.ms, 4)}),
                 el('td', {text: x.gb_per_s ? fmtNum(x.gb_per_s, 0) : ''}),
                 el('td', {text: x.gflop_per_s ? fmtNum(x.gflop_per_s, 0) : ''}),
                 el('td', {text: x.percent_of_anchor ? fmtNum(x.percent_of_anchor, 1) : ''}),
                 el('td', {text: x.verified ? 'yes' : 'NO'})));
      s.append(b);
    }
  }
})();
)JS";

}  // namespace smemlab::report
