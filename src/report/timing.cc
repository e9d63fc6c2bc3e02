#include "report/timing.h"

#include <fmt/format.h>

#include "timing/counts.h"

namespace smemlab::report {

timing::Prediction predict_launch(const Analysis& a) {
  if (!a.access) return {};
  timing::LaunchShape shape;
  shape.blocks = a.run.blocks_total;
  shape.threads_per_block = static_cast<uint32_t>(a.run.block.count());
  shape.regs_per_thread = a.run.registers;
  shape.shared_per_block = a.run.static_shared + a.run.dynamic_shared;
  shape.footprint_bytes = a.run.footprint_bytes;
  return timing::predict(timing::launch_work(shape, *a.access, a.banks));
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
  nlohmann::json r = nlohmann::json::object();
  for (int i = 0; i < timing::kResources; ++i)
    r[timing::resource_name(static_cast<timing::Resource>(i))] = p.resource_ns[i];
  j["resources_ns"] = std::move(r);
  j["dram_bytes"] = p.dram_bytes;
  j["l2_bytes"] = p.l2_bytes;
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

}  // namespace smemlab::report
