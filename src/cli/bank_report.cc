#include "cli/bank_report.h"

#include <fmt/core.h>

#include <algorithm>
#include <bit>
#include <nlohmann/json.hpp>

#include "bank/bank_map.h"

namespace smemlab::cli {

ArchResult evaluate(const bank::Model& model, const std::vector<Warp>& warps) {
  ArchResult a{&model, {}, {}, 0, {}};
  try {
    for (const Warp& w : warps) a.results.push_back(model.evaluate(w.request));
  } catch (const bank::Error& e) {
    a.error = e.what();
    a.results.clear();
    return a;
  }
  for (size_t i = 0; i < a.results.size(); ++i) {
    const bank::Result& r = a.results[i];
    if (r.wavefronts > a.results[a.worst].wavefronts) a.worst = i;
    a.total.wavefronts += r.wavefronts;
    a.total.ideal += r.ideal;
    a.total.bank_conflicts += r.bank_conflicts;
    a.total.worst_wavefronts += r.worst_wavefronts;
    a.total.ways = std::max(a.total.ways, r.ways);
  }
  return a;
}

namespace {

using Json = nlohmann::ordered_json;

// "16" or, where the hardware's choice leaves a range (CC 1.x), "16/18".
std::string cost(unsigned best, unsigned worst) {
  return best == worst ? fmt::format("{}", best) : fmt::format("{}/{}", best, worst);
}

std::string describe_source(const Source& s, const std::vector<Warp>& warps) {
  const bank::Request& r = warps.front().request;
  std::string what = fmt::format("{}-byte {}", r.width, bank::op_name(r.op));
  if (s.mode == "addresses")
    return fmt::format("{} lanes: {}, mask 0x{:08x}", std::popcount(r.mask), what, r.mask);
  uint64_t threads = uint64_t{s.block[0]} * s.block[1] * s.block[2];
  return fmt::format(
      "{} over {} {}{}: {}, block {}x{}x{} ({} threads, {} warp{})", s.expression, s.decl->type,
      s.decl->name,
      [&] {
        std::string d;
        for (uint64_t n : s.decl->dims) d += n ? fmt::format("[{}]", n) : "[]";
        return d;
      }(),
      what, s.block[0], s.block[1], s.block[2], threads, warps.size(),
      warps.size() == 1 ? "" : "s");
}

void print_text(const Source& src, const std::vector<Warp>& warps, const ArchResult& a) {
  fmt::print("{}\n{}\n\n", describe_source(src, warps), a.model->description());
  bool ranges = a.total.worst_wavefronts != a.total.wavefronts;
  fmt::print("warp  threads    mask        wavefronts  ideal  ways  conflicts\n");
  for (size_t i = 0; i < warps.size(); ++i) {
    const Warp& w = warps[i];
    const bank::Result& r = a.results[i];
    std::string threads =
        w.threads ? fmt::format("{}-{}", w.first_tid, w.first_tid + w.threads - 1) : "-";
    fmt::print("{:>4}  {:<9}  0x{:08x}  {:>10}  {:>5}  {:>4}  {:>9}\n", w.index, threads,
               w.request.mask, cost(r.wavefronts, r.worst_wavefronts), r.ideal, r.ways,
               r.bank_conflicts);
  }
  if (warps.size() > 1)
    fmt::print("total {} warps: {} wavefronts, ideal {}, {} bank conflicts\n", warps.size(),
               cost(a.total.wavefronts, a.total.worst_wavefronts), a.total.ideal,
               a.total.bank_conflicts);
  if (ranges)
    fmt::print(
        "a/b = wavefronts with the most/least favourable broadcast choices "
        "(unspecified on this generation)\n");
  const bank::Result& worst = a.results[a.worst];
  fmt::print("\nbank map of warp {} ({} wavefront{}{}):\n", warps[a.worst].index, worst.wavefronts,
             worst.wavefronts == 1 ? "" : "s",
             warps.size() < 2                                        ? ""
             : a.total.wavefronts == worst.wavefronts * warps.size() ? "; every warp costs the same"
                                                                     : ", the most expensive");
  fmt::print("{}", bank::render_bank_map(worst, a.model->banks()));
}

void print_all_text(const Source& src, const std::vector<Warp>& warps,
                    const std::vector<ArchResult>& all) {
  fmt::print("{}\n\n", describe_source(src, warps));
  fmt::print("arch      banks    worst request  ways  wavefronts  ideal  conflicts\n");
  bool ranges = false;
  for (const ArchResult& a : all) {
    std::string banks = fmt::format("{}x{} B", a.model->banks(), a.model->bank_bytes());
    if (!a.error.empty()) {
      fmt::print("{:<8}  {:<7}  not modelled\n", a.model->name(), banks);
      continue;
    }
    const bank::Result& w = a.results[a.worst];
    ranges = ranges || a.total.worst_wavefronts != a.total.wavefronts;
    fmt::print("{:<8}  {:<7}  {:>13}  {:>4}  {:>10}  {:>5}  {:>9}\n", a.model->name(), banks,
               cost(w.wavefronts, w.worst_wavefronts), a.total.ways,
               cost(a.total.wavefronts, a.total.worst_wavefronts), a.total.ideal,
               a.total.bank_conflicts);
  }
  if (ranges) fmt::print("a/b = wavefronts with the most/least favourable broadcast choices\n");
  fmt::print("\n");
  for (const ArchResult& a : all)
    fmt::print("{}\n", a.error.empty() ? a.model->description() : a.error);
}

Json result_json(const bank::Result& r) {
  return Json{{"wavefronts", r.wavefronts},
              {"ideal", r.ideal},
              {"bank_conflicts", r.bank_conflicts},
              {"ways", r.ways},
              {"worst_wavefronts", r.worst_wavefronts}};
}

Json bank_map_json(const bank::Result& r) {
  Json passes = Json::array();
  for (const bank::Wavefront& wf : r.passes) {
    Json slots = Json::array();
    for (const bank::Slot& s : wf.slots) {
      Json lanes = Json::array();
      for (unsigned l = 0; l < 32; ++l)
        if (s.lanes >> l & 1u) lanes.push_back(l);
      slots.push_back(Json{{"bank", s.bank}, {"word", s.word}, {"lanes", lanes}});
    }
    passes.push_back(Json{{"group", wf.group}, {"slots", slots}});
  }
  return passes;
}

Json arch_json(const std::vector<Warp>& warps, const ArchResult& a) {
  Json j{{"arch", a.model->name()},
         {"description", a.model->description()},
         {"banks", a.model->banks()},
         {"bank_bytes", a.model->bank_bytes()}};
  if (!a.error.empty()) {
    j["error"] = a.error;
    return j;
  }
  Json list = Json::array();
  for (size_t i = 0; i < warps.size(); ++i) {
    const Warp& w = warps[i];
    Json addr = Json::array();
    for (unsigned l = 0; l < 32; ++l)
      addr.push_back(w.request.mask >> l & 1u ? Json(w.request.addr[l]) : Json(nullptr));
    Json e{{"warp", w.index}, {"mask", fmt::format("0x{:08x}", w.request.mask)}};
    e.update(result_json(a.results[i]));
    e["addresses"] = addr;
    list.push_back(e);
  }
  j["warps"] = list;
  Json total{{"warps", warps.size()}};
  total.update(result_json(a.total));
  j["total"] = total;
  j["worst_warp"] = warps[a.worst].index;
  j["bank_map"] = bank_map_json(a.results[a.worst]);
  return j;
}

Json source_json(const Source& s, const std::vector<Warp>& warps) {
  Json j{{"mode", s.mode}};
  if (s.mode == "expression") {
    j["expression"] = s.expression;
    j["decl"] = Json{{"name", s.decl->name},
                     {"type", s.decl->type},
                     {"elem_size", s.decl->elem_size},
                     {"dims", s.decl->dims}};
    j["block"] = {s.block[0], s.block[1], s.block[2]};
    Json vars = Json::object();
    for (const auto& [k, v] : s.vars) vars[k] = v;
    j["let"] = vars;
  }
  j["op"] = bank::op_name(warps.front().request.op);
  j["width"] = warps.front().request.width;
  return j;
}
}  // namespace

void print_report(const Source& src, const std::vector<Warp>& warps,
                  const std::vector<ArchResult>& results, bool json) {
  if (json) {
    Json doc = source_json(src, warps);
    if (results.size() == 1) {
      doc.update(arch_json(warps, results.front()));
    } else {
      Json gens = Json::array();
      for (const ArchResult& a : results) gens.push_back(arch_json(warps, a));
      doc["generations"] = gens;
    }
    fmt::print("{}\n", doc.dump(2));
  } else if (results.size() == 1) {
    print_text(src, warps, results.front());
  } else {
    print_all_text(src, warps, results);
  }
}

}  // namespace smemlab::cli
