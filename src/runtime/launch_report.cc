// What `analyze -- APP` and `check -- APP` print per analyzed launch: the
// single-kernel report, headed by the launch's index and configuration.
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <map>

#include "check/source_lines.h"
#include "runtime/driver.h"

namespace smemlab::runtime {
namespace {

void write_all(int fd, const std::string& s) {
  for (size_t done = 0; done < s.size();) {
    ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
}

// The file a launch's page section shows as its source: the one most of its
// counted lines and findings are in. Inlined code is counted at its call
// site in the kernel's own file too, so that file wins over headers.
std::string main_file(const session::LaunchAnalysis& a) {
  std::map<std::string, size_t> votes;
  if (a.banks) {  // (check: findings only)
    for (const auto& l : a.banks->lines()) ++votes[l.where.file];
    for (const auto& [pc, acc] : a.access.accesses())
      for (const auto& where : check::lines_of(a.access.kernel().lines, acc.instr->loc))
        ++votes[where.file];
  }
  for (const auto& f : a.findings)
    if (!f.where.file.empty()) ++votes[f.where.file];
  std::string best;
  size_t most = 0;
  for (const auto& [file, n] : votes)
    if (n > most) {
      best = file;
      most = n;
    }
  return best;
}

}  // namespace

// One JSON line appended to the file smemlab named (protocol::kHtml,
// kRecords), opened per record: the program may fork, or end at any time.
void Driver::append_record(const std::string& path, const std::string& line) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) {
    note(fmt::format("cannot write the launch records to {}", path));
    return;
  }
  write_all(fd, line);
  ::close(fd);
}

// `--html FILE`: one JSON line per analyzed launch; smemlab makes the page of
// them when the program has ended. Check sections hold the findings only, as
// `check FILE.cu --html` does.
void Driver::html_section(uint64_t index, const session::LaunchAnalysis& a) {
  const report::RunInfo& r = a.info;
  bool check = options.mode == Mode::Check;
  report::HtmlSection s;
  s.launch_index = static_cast<int64_t>(index);
  s.heading = fmt::format("launch {}: {}", index, report::launch_heading(r));
  s.analysis = {r,
                check ? nullptr : a.banks.get(),
                check ? nullptr : &a.access,
                &a.findings,
                check ? nullptr : &a.hopper,
                check ? nullptr : a.swizzle.get(),
                check ? nullptr : a.padding.get()};
  // The page's main source: a file the line table names (an absolute path,
  // or relative to the program's working directory); no lines if unreadable.
  s.analysis.run.source = main_file(a);
  std::ifstream in(s.analysis.run.source);
  for (std::string l; in && std::getline(in, l);) s.source_lines.push_back(l);
  append_record(options.html, report::html_section_json(s).dump() + "\n");
}

void Driver::api_error_record(const check::Finding& f) {
  if (options.mode != Mode::Check) return;
  const std::string record = report::api_error_json(f).dump() + "\n";
  if (!options.records.empty()) append_record(options.records, record);
  if (options.json) write_all(out_fd_, record);
}

void Driver::report_launch(uint64_t index, const session::LaunchAnalysis& a) {
  const report::RunInfo& r = a.info;
  if (!options.html.empty()) html_section(index, a);
  uint64_t e = 0;
  if (a.banks) {
    auto totals = a.banks->totals();
    if (!totals.empty())
      for (const auto& c : totals.front().op) e += c.wavefronts - c.ideal;
  }
  excess += e;
  bool check = options.mode == Mode::Check;
  findings += a.findings.size();
  if (!check && !options.records.empty())
    append_record(options.records, report::analyze_launch_sarif_results(
                                       {r, a.banks.get(), &a.access, &a.findings, &a.hopper,
                                        a.swizzle.get(), a.padding.get()},
                                       static_cast<int64_t>(index))
                                           .dump() +
                                       "\n");
  auto dim = [](emu::Dim3 d) { return nlohmann::json::array({d.x, d.y, d.z}); };
  if (check && (options.json || !options.records.empty())) {
    const uint64_t checked = r.sampling.empty() ? r.blocks_total : r.blocks_observed;
    nlohmann::json rec =
        report::check_launch_json(r, checked, a.findings, static_cast<int64_t>(index));
    if (auto p = parent_launch_.find(index); p != parent_launch_.end())
      rec["parent_launch"] = p->second;
    const std::string record = rec.dump() + "\n";
    if (!options.records.empty()) append_record(options.records, record);
    if (options.json) {
      write_all(out_fd_, record);
      return;
    }
  }
  if (options.json) {
    nlohmann::json j = report::analyze_json(
        {r, a.banks.get(), &a.access, &a.findings, &a.hopper, a.swizzle.get(), a.padding.get()});
    j["launch"] = index;
    j["grid"] = dim(r.grid);
    j["block"] = dim(r.block);
    j["shared_bytes"] = r.dynamic_shared;
    j["module"] = r.source;
    if (auto p = parent_launch_.find(index); p != parent_launch_.end())
      j["parent_launch"] = p->second;
    write_all(out_fd_, j.dump() + "\n");
    return;
  }
  std::string head =
      fmt::format("launch {}: {}{} grid ({},{},{}) block ({},{},{}) dynamic shared {} B", index,
                  r.kernel, parent_note(index), r.grid.x, r.grid.y, r.grid.z, r.block.x, r.block.y,
                  r.block.z, r.dynamic_shared);
  if (check) {
    if (a.findings.empty()) return;  // as compute-sanitizer: only what is wrong
    note(head + "\n" + report::findings_text(a.findings));
    return;
  }
  std::string body = report::analyze_text(
      {r, a.banks.get(), &a.access, &a.findings, &a.hopper, a.swizzle.get(), a.padding.get()}, {});
  if (!a.findings.empty()) body += "\nfindings\n" + report::findings_text(a.findings);
  note(head + "\n" + body);
}

}  // namespace smemlab::runtime
