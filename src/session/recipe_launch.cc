#include "session/recipe_launch.h"

#include <fstream>
#include <sstream>

#include "report/progress.h"

namespace smemlab::session {
namespace {

std::vector<std::string> lines_of_file(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

std::string text_of_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

void prepare_launch_with_progress(const LaunchOptions& o, Prepared* p) {
  prepare_launch(o, p);
  if (!o.quiet) p->config.progress = report::terminal_progress(demangle(p->kernel));
}

void run_recipe_launch(const LaunchOptions& o, const RecipeAnalyses& with, RecipeRun* out) {
  auto models = parse_models(with.archs);
  prepare_launch_with_progress(o, &out->prepared);
  Prepared& p = out->prepared;
  p.config.only_blocks = sample_blocks(p.config.grid, with.blocks);
  analyze_launch(*p.module, p.kernel, p.config, p.args.bytes, std::move(models), out, with.level,
                 text_of_file(p.input.ptx_path), with.extra, with.what, with.compare);
  out->info.source = o.file;
  if (o.file.ends_with(".cu")) out->source_lines = lines_of_file(o.file);
}

}  // namespace smemlab::session
