// What `analyze -- APP` and `check -- APP` print per analyzed launch: the
// single-kernel report, headed by the launch's index and configuration.
#include <fmt/format.h>
#include <unistd.h>

#include "runtime/driver.h"

namespace smemlab::runtime {

void Driver::report_launch(uint64_t index, const session::LaunchAnalysis& a) {
  const report::RunInfo& r = a.info;
  uint64_t e = 0;
  auto totals = a.banks->totals();
  if (!totals.empty())
    for (const auto& c : totals.front().op) e += c.wavefronts - c.ideal;
  excess += e;
  bool check = options.mode == Mode::Check;
  findings += a.findings.size();
  auto dim = [](emu::Dim3 d) { return nlohmann::json::array({d.x, d.y, d.z}); };
  if (options.json) {
    nlohmann::json j;
    if (check)
      j = {{"kernel", r.kernel}, {"findings", report::findings_json(a.findings)}};
    else
      j = report::analyze_json({r, a.banks.get(), &a.access, &a.findings});
    j["launch"] = index;
    j["grid"] = dim(r.grid);
    j["block"] = dim(r.block);
    j["shared_bytes"] = r.dynamic_shared;
    j["module"] = r.source;
    std::string line = j.dump() + "\n";
    for (size_t done = 0; done < line.size();) {
      ssize_t n = ::write(out_fd_, line.data() + done, line.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    return;
  }
  std::string head = fmt::format("launch {}: {} grid ({},{},{}) block ({},{},{}) dynamic shared {} B",
                                 index, r.kernel, r.grid.x, r.grid.y, r.grid.z, r.block.x,
                                 r.block.y, r.block.z, r.dynamic_shared);
  if (check) {
    if (a.findings.empty()) return;  // as compute-sanitizer: only what is wrong
    note(head + "\n" + report::findings_text(a.findings));
    return;
  }
  std::string body = report::analyze_text({r, a.banks.get(), &a.access, &a.findings}, {});
  if (!a.findings.empty()) body += "\nfindings\n" + report::findings_text(a.findings);
  note(head + "\n" + body);
}

}  // namespace smemlab::runtime
