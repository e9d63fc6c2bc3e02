#include "report/timing.h"

#include <fmt/format.h>

#include "timing/counts.h"

namespace smemlab::report {

timing::Prediction predict_launch(const Analysis& a, double wavefront_delta) {
  if (!a.access) return {};
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
  timing::LaunchWork w = timing::launch_work(shape, *a.access, a.banks, a.hopper);
  if (wavefront_delta != 0) {
    timing::LineWork what_if{"what-if", 0};
    what_if.shared_wavefronts = wavefront_delta;
    w.lines.push_back(what_if);
  }
  return timing::predict(w);
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

}  // namespace

std::string timing_text(const timing::Prediction& p) {
  if (!p.valid) return p.why_not.empty() ? "" : "  no time predicted: " + p.why_not + "\n";
  std::string out = fmt::format("  predicted {} on an H100 (limited by {}",
                                duration_text(p.duration_ns), timing::resource_name(p.limiter));
  if (!p.lines.empty())
    out += fmt::format(", {:.0f}% of it at {}:{}", 100.0 * p.lines.front().share,
                       p.lines.front().file, p.lines.front().line);
  out += fmt::format("); {} block{}/SM ({}), {:.2f} waves\n", p.occupancy.blocks_per_sm,
                     p.occupancy.blocks_per_sm == 1 ? "" : "s", p.occupancy.limited_by,
                     p.waves.count());
  for (size_t i = 1; i < p.lines.size() && i < 5 && p.lines[i].share >= 0.01; ++i)
    out += fmt::format("    {:.0f}% at {}:{}\n", 100.0 * p.lines[i].share, p.lines[i].file,
                       p.lines[i].line);
  return out;
}

nlohmann::json timing_json(const timing::Prediction& p) {
  nlohmann::json j;
  j["gpu"] = "H100";
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
