#include "cli/analysis_run.h"

#include <fstream>
#include <sstream>

namespace smemlab::cli {
namespace {

std::vector<std::string> read_lines(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::vector<std::unique_ptr<bank::Model>> parse_models(const std::string& archs) {
  try {
    return session::parse_models(archs);
  } catch (const session::OptionError& e) {
    throw UsageError(e.what());
  }
}

void run_analyses(const LaunchOptions& o, const std::string& archs, AnalysisRun* out,
                  const std::string& blocks, sass::Level level, emu::KernelObserver* extra,
                  session::Analyses what, const std::vector<emu::Schedule>& compare) {
  auto models = parse_models(archs);
  prepare_launch_with_progress(o, &out->prepared);
  Prepared& p = out->prepared;
  try {
    p.config.only_blocks = session::sample_blocks(p.config.grid, blocks);
  } catch (const session::OptionError& e) {
    throw UsageError(e.what());
  }
  session::analyze_launch(*p.module, p.kernel, p.config, p.args.bytes, std::move(models), out,
                          level, read_text(p.input.ptx_path), extra, what, compare);
  stop_if_interrupted();
  out->info.source = o.file;
  if (o.file.ends_with(".cu")) out->source_lines = read_lines(o.file);
}

std::vector<Recipe> recipes_of(const std::string& file) {
  std::vector<Recipe> out;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    auto at = line.find("// smemlab:");
    if (at == std::string::npos) continue;
    Recipe r;
    r.line = line.substr(at + 11);
    std::stringstream words(r.line);
    std::vector<std::string> w;
    for (std::string x; words >> x;) w.push_back(x);
    for (size_t i = 0; i + 1 < w.size(); ++i)
      if (w[i] == "--kernel") r.kernel = w[i + 1];
    if (!r.kernel.empty()) out.push_back(std::move(r));
  }
  return out;
}

}  // namespace smemlab::cli
