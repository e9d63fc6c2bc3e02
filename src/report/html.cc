// The HTML source view: one self-contained page (inline CSS, JS and data;
// no network) with the user's source shaded by cost. The numbers are the
// same JSON `--json` prints (analyze_json, findings_json), embedded in the
// page; the figures' facts are decided here and in bank::bank_figure from
// the analyses' worst requests and drawn by the page's script when a line
// is opened, so the page never re-derives a bank or sector rule in JavaScript.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <map>
#include <set>

#include "bank/bank_map.h"
#include "bank/bank_svg.h"
#include "report/hopper.h"
#include "report/html_assets.h"
#include "report/report.h"

namespace smemlab::report {

using nlohmann::json;

namespace {

std::string key(const std::string& file, int line) { return fmt::format("{}:{}", file, line); }

// The lane -> sector figure of a global/local request (lanes across, the
// 32-byte sectors it touched down) as the page's script draws it
// (sectorMap in html_assets.h): which lanes each sector serves is decided
// here. A row is [sector address, lanes mask]; "addr" holds each active
// lane's address (null for inactive lanes) for the cells' titles.
json sector_figure(uint32_t mask, const uint64_t* addr, unsigned width, const std::string& title) {
  std::set<uint64_t> sectors;
  for (unsigned l = 0; l < 32; ++l)
    if (mask >> l & 1u)
      for (uint64_t s = addr[l] / 32; s <= (addr[l] + width - 1) / 32; ++s) sectors.insert(s);
  json rows = json::array(), lanes = json::array();
  for (uint64_t s : sectors) {
    if (rows.size() == 64) break;  // a figure, not a dump: the count says the rest
    uint32_t hit = 0;
    for (unsigned l = 0; l < 32; ++l)
      if ((mask >> l & 1u) && addr[l] / 32 <= s && s <= (addr[l] + width - 1) / 32) hit |= 1u << l;
    rows.push_back({fmt::format("{:#x}", s * 32), hit});
  }
  for (unsigned l = 0; l < 32; ++l)
    lanes.push_back(mask >> l & 1u ? json(fmt::format("{:#x}", addr[l])) : json(nullptr));
  return {{"title", title}, {"sectors", sectors.size()}, {"rows", rows}, {"addr", lanes}};
}

// A bank map as the page's script draws it (bankMap in html_assets.h): the
// figure's facts as bank::bank_figure decided them, in arrays to stay small
// (a dense page holds a thousand of these). The page holds each figure as a
// JSON string, parsed when its line is opened: a thousand figures' arrays
// would otherwise be built at load. A row is [group, cells]; a cell
// is [bank, words, lanes as text, lowest lane, 1 conflict | 2 broadcast].
json figure_json(const bank::FigureData& f, const std::string& title) {
  json rows = json::array();
  for (const bank::FigureRow& r : f.rows) {
    json cells = json::array();
    for (const bank::FigureCell& c : r.cells)
      cells.push_back({c.bank, c.words, bank::lane_list(c.lanes), std::countr_zero(c.lanes),
                       (c.conflict ? 1 : 0) | (c.broadcast ? 2 : 0)});
    rows.push_back({r.group, std::move(cells)});
  }
  return {{"title", title},
          {"banks", f.banks},
          {"wavefronts", f.wavefronts},
          {"ideal", f.ideal},
          {"conflicts", f.bank_conflicts},
          {"rows", std::move(rows)}};
}

// The page leaves out counters of nothing (an op or memory class with no
// request, branches that never ran): a line of a dense kernel is otherwise
// mostly zeros, once per model. The script reads a missing entry as none.
void drop_empty(json& line) {
  for (auto it = line.begin(); it != line.end();) {
    bool empty = it->is_object() &&
                 ((it->contains("requests") && (*it)["requests"] == 0) ||
                  (it.key() == "branches" && (*it)["uniform"] == 0 && (*it)["divergent"] == 0));
    it = empty ? line.erase(it) : std::next(it);
  }
}

// Per (file, line): the analyze_json entry of every model, then the figures.
json section_json(const HtmlSection& s) {
  const Analysis& a = s.analysis;
  json out;
  out["heading"] = s.heading;
  out["kernel"] = a.run.kernel;
  out["source"] = a.run.source;
  if (s.launch_index >= 0) out["launch_index"] = s.launch_index;
  // The configuration, also for a findings-only (check) section.
  out["launch"] = {{"grid", {a.run.grid.x, a.run.grid.y, a.run.grid.z}},
                   {"block", {a.run.block.x, a.run.block.y, a.run.block.z}},
                   {"dynamic_shared", a.run.dynamic_shared},
                   {"blocks_total", a.run.blocks_total},
                   {"blocks_observed", a.run.blocks_observed}};
  json lines = json::object();
  std::vector<std::string> archs;
  if (a.banks) {
    json aj = analyze_json(a);
    out["launch"] = aj["launch"];
    out["totals"] = aj["totals"];
    for (const auto& m : a.banks->models()) archs.push_back(m->name());
    auto add_lines = [&](const json& arr, const std::string& arch) {
      for (const json& l : arr) {
        json& e = lines[key(l["file"], l["line"])];
        e["file"] = l["file"];
        e["line"] = l["line"];
        json shared = json::object();
        for (const char* op : {"load", "store", "atomic", "ldmatrix", "stmatrix"})
          if (l.contains(op) && l[op]["requests"] != 0) shared[op] = l[op];
        e["banks"][arch] = shared;
        for (auto it = l.begin(); it != l.end(); ++it)
          if (!shared.contains(it.key()) && it.key() != "worst" && it.key() != "file" &&
              it.key() != "line" && !e.contains(it.key()))
            e[it.key()] = it.value();
      }
    };
    add_lines(aj["lines"], archs.front());
    if (aj.contains("what_if"))
      for (auto it = aj["what_if"].begin(); it != aj["what_if"].end(); ++it)
        add_lines(it.value()["lines"], it.key());
    // The time model (report/timing.h): the predictions, and each line's
    // share of the main one's limiting resource (the view's bar).
    if (aj.contains("timing")) {
      out["timing"] = aj["timing"];
      for (const json& l : aj["timing"].value("lines", json::array())) {
        json& e = lines[key(l["file"], l["line"])];
        e["file"] = l["file"];
        e["line"] = l["line"];
        e["time_share"] = l["share"];
      }
    }
    if (aj.contains("timing_what_if")) out["timing_what_if"] = aj["timing_what_if"];
    if (aj.contains("swizzle_what_if")) {
      json times = json::array();
      for (const json& b : aj["swizzle_what_if"])
        if (b.contains("predicted_ns")) times.push_back(b["predicted_ns"]);
      if (!times.empty()) out["swizzle_times"] = std::move(times);
    }
    // Bank maps of each line's worst request, per model.
    for (const check::LineStats& l : a.banks->lines())
      for (size_t m = 0; m < l.models.size() && m < archs.size(); ++m)
        if (const auto& w = l.models[m].worst; w && w->result.wavefronts > w->result.ideal) {
          json& e = lines[key(l.where.file, l.where.line)];
          e["file"] = l.where.file;
          e["line"] = l.where.line;
          e["bank_map"][archs[m]] =
              figure_json(
                  bank::bank_figure(w->result, a.banks->models()[m]->banks()),
                  fmt::format("{} worst request: block ({},{},{}) warp {}, {}-byte lanes", archs[m],
                              w->block.x, w->block.y, w->block.z, w->warp, w->request.width))
                  .dump();
        }
  }
  if (a.swizzle)  // a TMA-filled buffer's chunks over the banks, at its load's line
    for (auto& [where, f] : swizzle_figures(*a.swizzle)) {
      json& e = lines[key(where.file, where.line)];
      e["file"] = where.file;
      e["line"] = where.line;
      e["swizzle"] = f.dump();
    }
  if (a.padding)  // a conflicted buffer's padding what-if, at its costliest access
    for (json& p : padding_json(*a.padding)) {
      if (p["line"] == 0) continue;
      json& e = lines[key(p["file"], p["line"])];
      e["file"] = p["file"];
      e["line"] = p["line"];
      e["padding"].push_back(std::move(p));
    }
  if (a.access) {
    // The worst global/local request of each line (most sectors above ideal).
    std::map<std::string, const check::AccessInstr*> worst;
    for (const auto& [pc, acc] : a.access->accesses()) {
      if (!acc.has_worst || !acc.worst_excess) continue;
      for (const auto& where : check::lines_of(a.access->kernel().lines, acc.instr->loc)) {
        const check::AccessInstr*& w = worst[key(where.file, where.line)];
        if (!w || acc.worst_excess > w->worst_excess) w = &acc;
        json& e = lines[key(where.file, where.line)];
        e["file"] = where.file;
        e["line"] = where.line;
      }
    }
    for (const auto& [k, acc] : worst)
      lines[k]["sector_map"] =
          sector_figure(acc->worst_mask, acc->worst_addr, acc->width,
                        fmt::format("{} worst request: {} sectors above ideal",
                                    check::access_class_name(acc->cls), acc->worst_excess))
              .dump();
  }
  for (json& e : lines) drop_empty(e);
  out["archs"] = archs;
  out["lines"] = lines;
  out["findings"] = a.findings ? findings_json(*a.findings) : json::array();
  out["source_text"] = s.source_lines;
  return out;
}

// JSON inside <script>: "</" would end the element early. One pass: the
// figures hold hundreds of thousands of closing tags in a big page, and
// replacing in place would move the rest of the text each time.
std::string script_safe(const std::string& text) {
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  size_t from = 0;
  for (size_t p = text.find("</"); p != std::string::npos; p = text.find("</", from)) {
    out.append(text, from, p - from);
    out += "<\\/";
    from = p + 2;
  }
  out.append(text, from, std::string::npos);
  return out;
}

// What the page's bank-map drawer shares with bank::render_bank_svg: the
// geometry, style and legend, from bank_svg.h.
json with_figure_style(json data) {
  data["bank_map_style"] = {{"cell", bank::kFigureCell},
                            {"label", bank::kFigureLabel},
                            {"top", bank::kFigureTop},
                            {"style", bank::bank_figure_style()},
                            {"legend", bank::bank_figure_legend()}};
  return data;
}

std::string page(const std::string& title, const json& data) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width\">"
      // The page may load nothing: every byte it needs is inline.
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
      "<title>{}</title>"
      "<style>{}</style></head><body>\n<script type=\"application/json\" id=\"smemlab-data\">{}"
      "</script>\n<main id=\"app\"><noscript>This page needs JavaScript to lay out the source "
      "view; the data is in the smemlab-data element.</noscript></main>\n<script>{}</script>"
      "</body></html>\n",
      bank::xml_escape(title), kHtmlCss, script_safe(with_figure_style(data).dump()), kHtmlJs);
}

}  // namespace

std::string launch_heading(const RunInfo& run) {
  return fmt::format("{}<<<({},{},{}), ({},{},{}), {}>>>", run.kernel, run.grid.x, run.grid.y,
                     run.grid.z, run.block.x, run.block.y, run.block.z, run.dynamic_shared);
}

json html_section_json(const HtmlSection& section) { return section_json(section); }

std::string sections_html(const std::vector<json>& sections, const std::string& title) {
  json data = {{"title", title}, {"kind", "source"}, {"sections", sections}};
  return page(title, data);
}

std::string analyze_html(const std::vector<HtmlSection>& sections, const std::string& title) {
  std::vector<json> out;
  for (const auto& s : sections) out.push_back(section_json(s));
  return sections_html(out, title);
}

std::string suite_html(const std::vector<SuiteRow>& rows, const std::vector<std::string>& archs,
                       const json& bench) {
  // The classic table as a chart: load and store wavefronts per request,
  // one bar per generation.
  constexpr int kBar = 7, kLabel = 260, kScaleW = 420;
  double top = 1;
  for (const SuiteRow& r : rows)
    for (size_t m = 0; m < archs.size(); ++m)
      top = std::max(
          {top, m < r.ld_per.size() ? r.ld_per[m] : 0.0, m < r.st_per.size() ? r.st_per[m] : 0.0});
  const char* colors[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00"};
  int group = int(archs.size()) * kBar + 6;
  int h = 40 + int(rows.size()) * 2 * group + 10;
  std::string svg = fmt::format(
      "<svg class=\"suite-chart\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" "
      "role=\"img\" font-family=\"sans-serif\" font-size=\"10\"><title>Shared-memory wavefronts "
      "per request by kernel and generation</title>",
      kLabel + kScaleW + 80, h);
  for (size_t m = 0; m < archs.size(); ++m)
    svg += fmt::format(
        "<rect x=\"{}\" y=\"4\" width=\"10\" height=\"10\" fill=\"{}\"/><text x=\"{}\" "
        "y=\"13\">{}</text>",
        kLabel + int(m) * 90, colors[m % 6], kLabel + int(m) * 90 + 14, bank::xml_escape(archs[m]));
  int y = 40;
  for (const SuiteRow& r : rows) {
    for (int op = 0; op < 2; ++op) {
      const auto& per = op == 0 ? r.ld_per : r.st_per;
      bool any = std::any_of(per.begin(), per.end(), [](double v) { return v > 0; });
      std::string label =
          fmt::format("{}{} {}", r.kernel, r.variant > 1 ? fmt::format(" #{}", r.variant) : "",
                      op == 0 ? "ld" : "st");
      svg +=
          fmt::format("<text class=\"chart-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
                      kLabel - 6, y + group / 2 + 3, bank::xml_escape(label));
      for (size_t m = 0; m < archs.size() && m < per.size(); ++m) {
        if (!any || per[m] < 0) continue;
        int w = int(kScaleW * per[m] / top + 0.5);
        svg += fmt::format(
            "<g class=\"bar\" data-kernel=\"{0}\" data-arch=\"{1}\" data-value=\"{2:.2f}\">"
            "<title>{0} {5}: {2:.2f} wavefronts per request on {1}</title><rect x=\"{3}\" "
            "y=\"{4}\" width=\"{6}\" height=\"{7}\" fill=\"{8}\"/><text x=\"{9}\" y=\"{10}\">"
            "{2:.2f}</text></g>",
            bank::xml_escape(r.kernel), bank::xml_escape(archs[m]), per[m], kLabel,
            y + int(m) * kBar, op == 0 ? "loads" : "stores", std::max(w, 1), kBar - 1,
            colors[m % 6], kLabel + w + 3, y + int(m) * kBar + kBar - 1);
      }
      y += group;
    }
  }
  svg += "</svg>";

  json data = {{"title", "smemlab report"},
               {"kind", "suite"},
               {"chart", svg},
               {"archs", archs},
               {"rows", json::array()},
               {"bench", bench.is_array() ? bench : json::array()}};
  for (const SuiteRow& r : rows)
    data["rows"].push_back({{"file", r.file},
                            {"kernel", r.kernel},
                            {"recipe", r.variant},
                            {"ld_per", r.ld_per},
                            {"st_per", r.st_per},
                            {"sectors_per_request", r.sectors},
                            {"ideal_sectors_per_request", r.ideal_sectors},
                            {"divergent", r.divergent},
                            {"branches", r.branches},
                            {"findings", r.findings},
                            {"error", r.error}});
  return page("smemlab report", data);
}

}  // namespace smemlab::report
