#include "report/timing.h"

#include <fmt/format.h>

#include "timing/counts.h"

namespace smemlab::report {

namespace {

timing::Prediction predict_on(const Analysis& a, const timing::GpuSpec& gpu, std::string_view arch,
                              double wavefront_delta) {
  timing::LaunchShape shape;
  shape.blocks = a.run.blocks_total;
  shape.threads_per_block = static_cast<uint32_t>(a.run.block.count());
  shape.regs_per_thread = a.run.registers;
  shape.shared_per_block = a.run.static_shared + a.run.dynamic_shared;
  shape.footprint_bytes = a.run.footprint_bytes;
  shape.l1_reuse = a.run.l1_reuse;
  shape.l1_block_bytes = a.run.l1_block_bytes;
  shape.partial_store_sectors = a.run.partial_store_sectors;
  shape.dependent_issue = &a.run.dependent_issue;
  shape.phase = &a.run.phase;
  shape.folded = &a.run.folded_constant_loads;
  timing::LaunchWork w = timing::launch_work(shape, *a.access, a.banks, a.hopper, arch, gpu.gpu);
  if (wavefront_delta != 0) {
    timing::LineWork what_if{"what-if", 0};
    what_if.phase = timing::kEveryPhase;  // spread like the wavefronts it changes
    what_if.shared_wavefronts = wavefront_delta;
    w.lines.push_back(what_if);
  }
  return timing::predict(w, gpu.gpu);
}

}  // namespace

namespace {

// The GPUs a launch is predicted on, each with the bank model (arch) whose
// wavefronts it takes: predict_gpus' order.
std::vector<std::pair<const timing::GpuSpec*, std::string>> targets(const Analysis& a) {
  std::vector<std::pair<const timing::GpuSpec*, std::string>> out;
  if (a.banks)
    for (const auto& m : a.banks->models())
      for (const timing::GpuSpec* g : timing::gpus_for_arch(m->name()))
        out.push_back({g, m->name()});
  if (out.empty())
    out.push_back({&timing::gpus().front(), a.banks ? a.banks->models().front()->name() : ""});
  return out;
}

}  // namespace

std::vector<GpuPrediction> predict_gpus(const Analysis& a, double wavefront_delta) {
  std::vector<GpuPrediction> out;
  if (!a.access) return out;
  for (const auto& [gpu, arch] : targets(a))
    out.push_back({gpu, predict_on(a, *gpu, arch, wavefront_delta)});
  return out;
}

timing::Prediction predict_launch(const Analysis& a, double wavefront_delta) {
  if (!a.access) return {};
  const auto main = targets(a).front();
  return predict_on(a, *main.first, main.second, wavefront_delta);
}

std::vector<SwizzleTimes> swizzle_times_ns(const Analysis& a) {
  std::vector<SwizzleTimes> out;
  if (!a.swizzle || !a.access) return out;
  for (const auto& [key, b] : a.swizzle->buffers()) {
    if (!b.reads && !b.gmma_reads) continue;
    SwizzleTimes t{};
    const auto& now = b.wavefronts[b.swizzle];
    for (int m = 0; m < check::kSwizzleModes; ++m) {
      if (!b.wavefronts[m] || !now) continue;
      timing::Prediction p = predict_launch(a, double(*b.wavefronts[m]) - double(*now));
      if (p.valid) t[m] = p.duration_ns;
    }
    out.push_back(t);
  }
  return out;
}

namespace {

std::string duration_text(double ns) {
  if (ns >= 1e6) return fmt::format("{:.3g} ms", ns / 1e6);
  return fmt::format("{:.3g} µs", ns / 1e3);
}

// "predicted 68.6 µs on an H100 (limited by shared pipe, 97% of it at
// transpose.cu:89); 8 blocks/SM (warps), 15.52 waves"
std::string prediction_line(const GpuPrediction& g) {
  const timing::Prediction& p = g.p;
  std::string out =
      fmt::format("predicted {} on {} (limited by {}", duration_text(p.duration_ns),
                  timing::with_article(g.gpu->name), timing::resource_name(p.limiter));
  if (!p.lines.empty())
    out += fmt::format(", {:.0f}% of it at {}:{}", 100.0 * p.lines.front().share,
                       p.lines.front().file, p.lines.front().line);
  return out + fmt::format("); {} block{}/SM ({}), {:.2f} waves", p.occupancy.blocks_per_sm,
                           p.occupancy.blocks_per_sm == 1 ? "" : "s", p.occupancy.limited_by,
                           p.waves.count());
}

}  // namespace

std::string timing_text(const Analysis& a) {
  const std::vector<GpuPrediction> all = predict_gpus(a);
  if (all.empty()) return "";
  const GpuPrediction& main = all.front();
  const timing::Prediction& p = main.p;
  std::string out;
  if (!p.valid)
    out = p.why_not.empty() ? "" : "  no time predicted: " + p.why_not + "\n";
  else
    out = "  " + prediction_line(main) + "\n";
  if (p.valid && !main.gpu->validated) out += "    " + timing::validation_note(*main.gpu) + "\n";
  for (size_t i = 1; p.valid && i < p.lines.size() && i < 5 && p.lines[i].share >= 0.01; ++i)
    out += fmt::format("    {:.0f}% at {}:{}\n", 100.0 * p.lines[i].share, p.lines[i].file,
                       p.lines[i].line);
  // The what-if GPUs (another --arch): one line each, with its label.
  for (size_t i = 1; i < all.size(); ++i) {
    const GpuPrediction& g = all[i];
    out += fmt::format("  what-if {}: ", g.gpu->arch);
    out += g.p.valid
               ? prediction_line(g)
               : "no time predicted on " + timing::with_article(g.gpu->name) + ": " + g.p.why_not;
    if (!g.gpu->validated) out += "; " + timing::validation_note(*g.gpu);
    out += "\n";
  }
  return out;
}

std::string predicted_vs_measured(const GpuPrediction& g, double measured_ns,
                                  const std::string& device) {
  const std::string measured = fmt::format("measured {} on {}", duration_text(measured_ns), device);
  if (!g.p.valid) return fmt::format("no time predicted ({}), {}", g.p.why_not, measured);
  std::string out =
      fmt::format("predicted {} on {} (limited by {}), {}", duration_text(g.p.duration_ns),
                  timing::with_article(g.gpu->name), timing::resource_name(g.p.limiter), measured);
  if (measured_ns > 0)
    out += fmt::format(": predicted/measured {:.2f}", g.p.duration_ns / measured_ns);
  if (!g.gpu->validated) out += "; " + timing::validation_note(*g.gpu);
  return out;
}

nlohmann::json timing_json(const GpuPrediction& g) {
  const timing::Prediction& p = g.p;
  nlohmann::json j;
  j["gpu"] = g.gpu->name;
  j["gpu_key"] = g.gpu->key;
  j["arch"] = g.gpu->arch;
  j["validated"] = g.gpu->validated;
  if (!g.gpu->validated) j["note"] = timing::validation_note(*g.gpu);
  j["valid"] = p.valid;
  if (!p.valid) {
    j["why_not"] = p.why_not;
    return j;
  }
  j["duration_ns"] = p.duration_ns;
  j["limiter"] = timing::resource_name(p.limiter);
  j["launch_ns"] = p.launch_ns;
  j["kernel_ns"] = p.kernel_ns;
  nlohmann::json r = nlohmann::json::object();
  for (int i = 0; i < timing::kResources; ++i)
    r[timing::resource_name(static_cast<timing::Resource>(i))] = p.resource_ns[i];
  j["resources_ns"] = std::move(r);
  j["dram_bytes"] = p.dram_bytes;
  j["l2_bytes"] = p.l2_bytes;
  j["l1_hit_fraction"] = p.l1_hit_fraction;
  j["block_chain_cycles"] = p.chain_cycles;
  j["phases"] = p.phases;
  j["phase_round_cycles"] = p.phase_round_cycles;
  j["occupancy"] = {{"blocks_per_sm", p.occupancy.blocks_per_sm},
                    {"limited_by", p.occupancy.limited_by},
                    {"resident_warps", p.occupancy.resident_warps}};
  j["waves"] = {{"full", p.waves.full},
                {"tail_blocks", p.waves.tail_blocks},
                {"blocks_on_busiest_sm", p.waves.per_busiest_sm}};
  nlohmann::json lines = nlohmann::json::array();
  for (const auto& l : p.lines)
    lines.push_back({{"file", l.file}, {"line", l.line}, {"share", l.share}});
  j["lines"] = std::move(lines);
  return j;
}

std::string swizzle_times_text(const Analysis& a) {
  std::string out;
  const std::vector<SwizzleTimes> times = swizzle_times_ns(a);
  for (size_t i = 0; i < times.size(); ++i) {
    std::string modes;
    for (int m = 0; m < check::kSwizzleModes; ++m)
      if (times[i][m])
        modes += fmt::format("  {} {}", check::swizzle_mode_name(m), duration_text(*times[i][m]));
    if (modes.empty()) continue;
    out += times.size() == 1 ? "  predicted H100 time of the launch under each swizzle:"
                             : fmt::format("  predicted H100 time, buffer {} above:", i + 1);
    out += modes + "\n";
  }
  return out;
}

}  // namespace smemlab::report
