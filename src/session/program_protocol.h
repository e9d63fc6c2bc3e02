// The program-mode protocol: how `smemlab run|analyze|check|fix ... -- APP`
// (cli/program_command.cc, cli/fix_program.cc) and the emulated driver in
// APP's process (runtime/options.cc, runtime/driver.cc) talk. Options go
// down in the program's environment; results come up in a status file, in
// JSON Lines files of launch records (report/'s JSON and its inverse) and
// in smemlab's own `==smemlab== ` lines. Both sides include this header;
// no other file spells these names.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/report.h"

namespace smemlab::session::protocol {

// What `smemlab MODE -- APP` asks of the program's launches; travels down
// as mode_name() in kMode and is read back with parse_mode().
enum class ProgramMode : uint8_t { Run, Analyze, Check };
constexpr const char* mode_name(ProgramMode m) {
  return m == ProgramMode::Analyze ? "analyze" : m == ProgramMode::Check ? "check" : "run";
}
// nullopt for a name that is no mode.
std::optional<ProgramMode> parse_mode(std::string_view name);

// ---- down: the environment smemlab sets for the program -------------------
inline constexpr const char* kMode = "SMEMLAB_MODE";      // mode_name(ProgramMode)
inline constexpr const char* kArch = "SMEMLAB_ARCH";      // as `analyze --arch` (first: the device)
inline constexpr const char* kKernel = "SMEMLAB_KERNEL";  // regex over kernel names (-k)
inline constexpr const char* kLaunchSkip = "SMEMLAB_LAUNCH_SKIP";
inline constexpr const char* kLaunchCount = "SMEMLAB_LAUNCH_COUNT";
inline constexpr const char* kJson = "SMEMLAB_JSON";      // 1: reports as JSON Lines
inline constexpr const char* kLevel = "SMEMLAB_LEVEL";    // sass (default) | ptx (docs/sass.md)
inline constexpr const char* kOutput = "SMEMLAB_OUTPUT";  // file for the reports (default: stderr)
inline constexpr const char* kQuiet = "SMEMLAB_QUIET";    // 1: no progress line
inline constexpr const char* kAnalyzeCheck = "SMEMLAB_ANALYZE_CHECK";  // 1: analyze --check
// A cooperative launch with no progress this long (default 10) is a deadlock.
inline constexpr const char* kStallSeconds = "SMEMLAB_STALL_SECONDS";
// 1: every launch and asynchronous operation runs inside the call that
// submits it, as before kernels ran asynchronously (debugging; set by hand).
inline constexpr const char* kSync = "SMEMLAB_SYNC";
inline constexpr const char* kSchedule = "SMEMLAB_SCHEDULE";  // gpu | serial | random[:SEED]
// check: run each checked launch again under these schedules (comma-separated).
inline constexpr const char* kCompareSchedules = "SMEMLAB_COMPARE_SCHEDULES";
// `smemlab fix -- APP` (runtime/fix_hooks.h): the access record, the device
// memory snapshots, the rebuilt PTX, the new dynamic shared size and a
// tensor map's new swizzle.
inline constexpr const char* kFixRecord = "SMEMLAB_FIX_RECORD";
inline constexpr const char* kFixSnapshot = "SMEMLAB_FIX_SNAPSHOT";
inline constexpr const char* kFixPtx = "SMEMLAB_FIX_PTX";
inline constexpr const char* kFixShared = "SMEMLAB_FIX_SHARED";
// A TMA tile's swizzle proof: every cuTensorMapEncodeTiled of the program
// takes this CUtensorMapSwizzle value (the one encode in FILE.cu, rewritten).
inline constexpr const char* kFixTmaSwizzle = "SMEMLAB_FIX_TMA_SWIZZLE";

// ---- up: files the runtime writes, named by smemlab in the environment ----
// The status file (JSON, rewritten as the program runs): ProgramStatus.
inline constexpr const char* kStatus = "SMEMLAB_STATUS";
// Appended, one JSON line per analyzed launch: its HTML section
// (report::html_section_json); smemlab makes the page of them.
inline constexpr const char* kHtml = "SMEMLAB_HTML";
// Appended, one JSON line per launch: check, report::check_launch_json
// (read back with report::read_check_launch; `check --sarif FILE`), and one
// per API error (report::api_error_json, read back with read_api_errors);
// analyze, report::analyze_launch_sarif_results (`analyze --sarif FILE`).
inline constexpr const char* kRecords = "SMEMLAB_RECORDS";

// What the runtime says of the whole program, kept current in the status
// file so that a program that crashes still leaves its counts.
struct ProgramStatus {
  bool finished = false;  // its exit handlers ran
  uint64_t launches = 0, analyzed = 0, findings = 0, api_errors = 0, failed_kernels = 0;
  uint64_t excess_wavefronts = 0;  // over the analyzed launches, first bank model
  // Calls into smemlab's own cuBLAS/cuFFT/cuRAND (src/libs/): counted, not
  // analyzed, by entry point.
  std::map<std::string, uint64_t> library_calls;
};
nlohmann::json status_json(const ProgramStatus& s);
// The status file at `path`; false when there is none (the program never
// loaded the driver). A file cut short reads as all zeros.
bool read_status(const std::string& path, ProgramStatus* out);

// The launch records of a kRecords file, in order. A line cut short by a
// crash mid-write is left out; a complete line of another shape throws.
std::vector<report::CheckedLaunch> read_records(const std::string& path);
// One such line: nullopt for an incomplete one or an API error's.
std::optional<report::CheckedLaunch> read_record_line(const std::string& line);
// The API errors among them (report::api_error_json lines), in order.
std::vector<check::Finding> read_api_errors(const std::string& path);
// analyze's records (each a JSON array of SARIF results), in order; a line
// cut short is left out, a complete line that is no array throws.
std::vector<nlohmann::json> read_sarif_records(const std::string& path);

// ---- smemlab's lines (stderr or kOutput) ----------------------------------
inline constexpr std::string_view kLinePrefix = "==smemlab== ";
// A line of the driver's own error (a refused launch, an unusable kernel);
// API misuse reads `ERROR KIND: ...` instead, KIND a check::FindingKind's
// name (check/finding_kinds.def), its record an API error line above.
inline constexpr std::string_view kErrorPrefix = "ERROR: ";

}  // namespace smemlab::session::protocol
