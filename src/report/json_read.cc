// The inverse of check_launch_json and findings_json (json.cc): a launch's
// record read back whole where it crosses the program-mode process boundary
// (session/program_protocol.h). Strict: a record of another shape or a kind
// finding_kinds.def does not declare is an error, never a guess.
#include <fmt/format.h>

#include <stdexcept>

#include "report/report.h"

namespace smemlab::report {

using nlohmann::json;

namespace {

emu::Dim3 read_dims(const json& j) {
  return {j.at(0).get<uint32_t>(), j.at(1).get<uint32_t>(), j.at(2).get<uint32_t>()};
}

check::Severity read_severity(const std::string& s) {
  if (s == check::severity_name(check::Severity::Error)) return check::Severity::Error;
  if (s == check::severity_name(check::Severity::Warning)) return check::Severity::Warning;
  throw std::runtime_error(fmt::format("a finding of severity '{}', neither error nor warning", s));
}

check::Involved read_involved(const json& j) {
  check::Involved v;
  v.role = j.at("role").get<std::string>();
  v.where = {j.at("file").get<std::string>(), j.at("line").get<int>()};
  v.ptx_line = j.at("ptx_line").get<int>();
  v.instr = j.at("instruction").get<std::string>();
  v.block = read_dims(j.at("block"));
  v.thread = j.at("thread").get<uint32_t>();
  return v;
}

}  // namespace

std::vector<check::Finding> read_findings(const json& findings) {
  std::vector<check::Finding> out;
  for (const json& j : findings) {
    check::Finding f;
    const std::string kind = j.at("kind").get<std::string>();
    std::optional<check::FindingKind> k = check::finding_kind(kind);
    if (!k) throw std::runtime_error(fmt::format("a finding of undeclared kind '{}'", kind));
    f.kind = *k;
    f.severity = read_severity(j.at("severity").get<std::string>());
    f.message = j.at("message").get<std::string>();
    f.where = {j.at("file").get<std::string>(), j.at("line").get<int>()};
    f.count = j.at("count").get<uint64_t>();
    for (const json& v : j.at("accesses")) f.involved.push_back(read_involved(v));
    out.push_back(std::move(f));
  }
  return out;
}

std::optional<check::Finding> read_api_error(const json& record) {
  if (!record.is_object() || !record.contains("api_error")) return std::nullopt;
  return read_findings(json::array({record.at("api_error")})).front();
}

CheckedLaunch read_check_launch(const json& j) {
  CheckedLaunch c;
  c.run.kernel = j.at("kernel").get<std::string>();
  c.run.mangled = j.at("mangled").get<std::string>();
  c.run.source = j.at("source").get<std::string>();
  c.run.grid = read_dims(j.at("grid"));
  c.run.block = read_dims(j.at("block"));
  c.run.dynamic_shared = j.at("shared_bytes").get<uint32_t>();
  c.blocks_checked = j.at("blocks_checked").get<uint64_t>();
  c.run.blocks_total = j.at("blocks_total").get<uint64_t>();
  c.findings = read_findings(j.at("findings"));
  c.launch = j.value("launch", int64_t{-1});
  return c;
}

}  // namespace smemlab::report
