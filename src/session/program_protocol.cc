#include "session/program_protocol.h"

#include <fstream>
#include <stdexcept>

namespace smemlab::session::protocol {

std::optional<ProgramMode> parse_mode(std::string_view name) {
  for (ProgramMode m : {ProgramMode::Run, ProgramMode::Analyze, ProgramMode::Check})
    if (name == mode_name(m)) return m;
  return std::nullopt;
}

nlohmann::json status_json(const ProgramStatus& s) {
  return {{"finished", s.finished},
          {"launches", s.launches},
          {"analyzed", s.analyzed},
          {"findings", s.findings},
          {"api_errors", s.api_errors},
          {"failed_kernels", s.failed_kernels},
          {"excess_wavefronts", s.excess_wavefronts},
          {"library_calls", s.library_calls}};
}

bool read_status(const std::string& path, ProgramStatus* out) {
  std::ifstream in(path);
  if (!in) return false;
  *out = ProgramStatus{};
  nlohmann::json j;
  try {
    in >> j;
  } catch (const std::exception&) {
    return true;  // cut short by a crash mid-write
  }
  if (!j.is_object()) return true;
  out->finished = j.value("finished", false);
  out->launches = j.value("launches", uint64_t{0});
  out->analyzed = j.value("analyzed", uint64_t{0});
  out->findings = j.value("findings", uint64_t{0});
  out->api_errors = j.value("api_errors", uint64_t{0});
  out->failed_kernels = j.value("failed_kernels", uint64_t{0});
  out->excess_wavefronts = j.value("excess_wavefronts", uint64_t{0});
  if (j.contains("library_calls") && j["library_calls"].is_object())
    for (const auto& [entry, n] : j["library_calls"].items())
      if (n.is_number_unsigned()) out->library_calls[entry] = n.get<uint64_t>();
  return true;
}

std::optional<report::CheckedLaunch> read_record_line(const std::string& line) {
  nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
  if (j.is_discarded()) return std::nullopt;         // cut short by a crash mid-write
  if (j.contains("api_error")) return std::nullopt;  // read_api_errors's
  return report::read_check_launch(j);
}

std::vector<report::CheckedLaunch> read_records(const std::string& path) {
  std::vector<report::CheckedLaunch> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (auto r = read_record_line(line)) out.push_back(std::move(*r));
  return out;
}

std::vector<check::Finding> read_api_errors(const std::string& path) {
  std::vector<check::Finding> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded()) continue;  // cut short by a crash mid-write
    if (auto f = report::read_api_error(j)) out.push_back(std::move(*f));
  }
  return out;
}

std::vector<nlohmann::json> read_sarif_records(const std::string& path) {
  std::vector<nlohmann::json> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded()) continue;  // cut short by a crash mid-write
    if (!j.is_array()) throw std::runtime_error("a SARIF record is not an array of results");
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace smemlab::session::protocol
