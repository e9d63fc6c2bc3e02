#include "cli/program_command.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/html_output.h"
#include "cli/launch_options.h"
#include "report/report.h"
#include "session/launch_analysis.h"
#include "session/program_process.h"
#include "session/program_protocol.h"

namespace smemlab::cli {
namespace {

using Mode = session::protocol::ProgramMode;

struct ProgramOptions {
  std::string command;  // run | analyze | check, as typed (messages)
  Mode mode = Mode::Run;
  std::string archs = "sm_90";
  std::string kernel_regex, output;
  std::string html;   // analyze/check: also write the HTML page, a section per launch
  std::string sarif;  // analyze, check: also write a SARIF log of every analyzed launch
  uint64_t launch_skip = 0;
  int64_t launch_count = -1;
  bool json = false;
  bool quiet = false;  // no progress line
  int64_t fail_on_excess = -1;
  std::string level = "sass";
  bool check = false;            // analyze --check: the defect checkers too
  std::string schedule = "gpu";  // emu/schedule.h
  std::string compare;           // check --compare-schedules LIST
};

using session::find_program;
using session::preload_own_sanitizer;
using session::runtime_dir;

// A temporary file name for the runtime to create (it may never load).
std::string temp_path(const char* stem) {
  std::string path = fmt::format("/tmp/smemlab-{}-XXXXXX", stem);
  int fd = mkstemp(path.data());
  if (fd < 0) return "";
  close(fd);
  unlink(path.c_str());
  return path;
}

// The `--html` page of the sections the runtime wrote (none when the program
// analyzed no launch, or never loaded the driver: the page says so).
void write_program_html(const ProgramOptions& o, const std::string& sections_path,
                        const std::vector<std::string>& app) {
  std::vector<nlohmann::json> sections;
  std::ifstream in(sections_path);
  for (std::string line; std::getline(in, line);) {
    try {
      sections.push_back(nlohmann::json::parse(line));
    } catch (const std::exception&) {
      // A line cut short by a crash mid-write: the complete ones still show.
    }
  }
  std::string title = "smemlab " + o.command + " --";
  for (const auto& a : app) title += " " + a;
  try {
    write_html(o.html, report::sections_html(sections, title));
  } catch (const UsageError& e) {
    fmt::print(stderr, "smemlab {}: error: {}\n", o.command, e.what());
  }
}

// `--sarif FILE`: one SARIF run for the program, from the launch records the
// runtime wrote (none when it checked no launch).
void write_program_sarif(const ProgramOptions& o, const std::string& records_path,
                         const std::vector<std::string>& app) {
  nlohmann::json log;
  try {
    log = o.mode == Mode::Check
              ? report::program_check_sarif(session::protocol::read_records(records_path), app,
                                            session::protocol::read_api_errors(records_path))
              : report::program_analyze_sarif(session::protocol::read_sarif_records(records_path),
                                              app);
  } catch (const std::exception& e) {
    fmt::print(stderr, "smemlab {}: error: --sarif: a launch record: {}\n", o.command, e.what());
    log = o.mode == Mode::Check ? report::program_check_sarif({}, app)
                                : report::program_analyze_sarif({}, app);
  }
  std::ofstream out(o.sarif, std::ios::trunc);
  out << log.dump(1) << "\n";
  if (!out) fmt::print(stderr, "smemlab {}: error: --sarif: cannot write {}\n", o.command, o.sarif);
}

void say(const ProgramOptions& o, const std::string& line) {
  std::string s = std::string(session::protocol::kLinePrefix) + line + "\n";
  if (!o.output.empty()) {
    std::ofstream(o.output, std::ios::app) << s;
    return;
  }
  fmt::print(stderr, "{}", s);
}

int run(const ProgramOptions& o, std::vector<std::string> app) {
  std::string why;
  std::string exe = find_program(app[0], &why);
  if (exe.empty()) {
    fmt::print(stderr, "smemlab {}: error: {}: {}\n", o.command, app[0], why);
    return kUsage;
  }
  std::string rt = runtime_dir();
  if (access((rt + "/libcuda.so.1").c_str(), R_OK) != 0) {
    fmt::print(stderr,
               "smemlab {}: error: the emulated CUDA driver {}/libcuda.so.1 is missing (this "
               "smemlab was built without the CUDA toolkit, or the build is incomplete)\n",
               o.command, rt);
    return kUsage;
  }
  try {
    session::parse_models(o.archs);
    if (!o.kernel_regex.empty()) std::regex re(o.kernel_regex);
  } catch (const session::OptionError& e) {
    fmt::print(stderr, "smemlab {}: error: {}\n", o.command, e.what());
    return kUsage;
  } catch (const std::regex_error& e) {
    fmt::print(stderr, "smemlab {}: error: --kernel-name '{}': {}\n", o.command, o.kernel_regex,
               e.what());
    return kUsage;
  }
  if (!o.output.empty()) {
    std::ofstream out(o.output, std::ios::trunc);
    if (!out) {
      fmt::print(stderr, "smemlab {}: error: --output: cannot write {}\n", o.command, o.output);
      return kUsage;
    }
  }
  if (!o.html.empty() && !std::ofstream(o.html, std::ios::trunc)) {
    fmt::print(stderr, "smemlab {}: error: --html: cannot write {}\n", o.command, o.html);
    return kUsage;
  }
  if (!o.sarif.empty() && !std::ofstream(o.sarif, std::ios::trunc)) {
    fmt::print(stderr, "smemlab {}: error: --sarif: cannot write {}\n", o.command, o.sarif);
    return kUsage;
  }
  // The runtime creates these when the program loads the driver.
  std::string status_path = temp_path("status");
  std::string html_path = o.html.empty() ? "" : temp_path("html");
  std::string records_path = o.sarif.empty() ? "" : temp_path("records");
  if (status_path.empty() || (!o.html.empty() && html_path.empty()) ||
      (!o.sarif.empty() && records_path.empty())) {
    fmt::print(stderr, "smemlab {}: error: cannot create a temporary file\n", o.command);
    return kUsage;
  }

  pid_t pid = fork();
  if (pid == 0) {
    preload_own_sanitizer();
    const char* old = std::getenv("LD_LIBRARY_PATH");
    setenv("LD_LIBRARY_PATH", (rt + (old && *old ? ":" + std::string(old) : "")).c_str(), 1);
    namespace env = session::protocol;
    setenv(env::kMode, env::mode_name(o.mode), 1);
    setenv(env::kArch, o.archs.c_str(), 1);
    setenv(env::kKernel, o.kernel_regex.c_str(), 1);
    setenv(env::kLaunchSkip, std::to_string(o.launch_skip).c_str(), 1);
    if (o.launch_count >= 0) setenv(env::kLaunchCount, std::to_string(o.launch_count).c_str(), 1);
    setenv(env::kJson, o.json ? "1" : "0", 1);
    setenv(env::kQuiet, o.quiet ? "1" : "0", 1);
    setenv(env::kLevel, o.level.c_str(), 1);
    setenv(env::kAnalyzeCheck, o.check ? "1" : "0", 1);
    setenv(env::kSchedule, o.schedule.c_str(), 1);
    setenv(env::kCompareSchedules, o.compare.c_str(), 1);
    setenv(env::kOutput, o.output.c_str(), 1);
    setenv(env::kStatus, status_path.c_str(), 1);
    // Files the runtime appends to: named only when asked for.
    for (const auto& [name, path] :
         {std::pair{env::kHtml, &html_path}, std::pair{env::kRecords, &records_path}}) {
      if (!path->empty())
        setenv(name, path->c_str(), 1);
      else
        unsetenv(name);
    }
    std::vector<char*> argv;
    for (auto& a : app) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(exe.c_str(), argv.data());
    fmt::print(stderr, "smemlab {}: error: {}: {}\n", o.command, exe, std::strerror(errno));
    _exit(kUsage);
  }
  if (pid < 0) {
    fmt::print(stderr, "smemlab {}: error: fork: {}\n", o.command, std::strerror(errno));
    return kUsage;
  }
  // The program owns the terminal's signals; smemlab waits for its end.
  signal(SIGINT, SIG_IGN);
  signal(SIGQUIT, SIG_IGN);
  int ws = 0;
  while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
  }

  session::protocol::ProgramStatus st;
  const bool loaded = session::protocol::read_status(status_path, &st);
  unlink(status_path.c_str());
  if (!html_path.empty()) {
    write_program_html(o, html_path, app);
    unlink(html_path.c_str());
  }
  if (!records_path.empty()) {
    write_program_sarif(o, records_path, app);
    unlink(records_path.c_str());
  }
  int code;
  if (WIFSIGNALED(ws)) {
    int sig = WTERMSIG(ws);
    say(o, fmt::format("the program was killed by signal {} ({})", sig, strsignal(sig)));
    code = 128 + sig;
  } else {
    code = WEXITSTATUS(ws);
  }
  if (!loaded) {
    say(o, "the program never used CUDA (it did not load libcuda.so.1): nothing was emulated");
    return code;
  }
  const uint64_t launches = st.launches, analyzed = st.analyzed, findings = st.findings,
                 api_errors = st.api_errors, failed = st.failed_kernels;
  if (!st.finished && !WIFSIGNALED(ws))
    say(o,
        "the program ended without running its exit handlers (_exit or exec): leak checks "
        "and the summary are incomplete");
  if (!st.library_calls.empty()) {
    uint64_t total = 0;
    std::string each;
    for (const auto& [entry, n] : st.library_calls) {
      total += n;
      each += fmt::format("{}{} {}", each.empty() ? "" : ", ", entry, n);
    }
    say(o, fmt::format("{} library calls run on the CPU (counted, not analyzed): {}", total, each));
  }
  if (o.mode == Mode::Run) {
    say(o, fmt::format("{} kernel launches emulated{}", launches,
                       failed ? fmt::format(", {} failed", failed) : ""));
    return code;
  }
  if (o.mode == Mode::Analyze) {
    say(o, fmt::format("{} kernel launches, {} analyzed{}", launches, analyzed,
                       failed ? fmt::format(", {} failed", failed) : ""));
    if (o.fail_on_excess >= 0 && st.excess_wavefronts > static_cast<uint64_t>(o.fail_on_excess) &&
        !WIFSIGNALED(ws))
      return kFindings;
    return code;
  }
  say(o, fmt::format("ERROR SUMMARY: {} errors ({} in {} checked kernel launches, {} in API calls)",
                     findings + api_errors, findings, analyzed, api_errors));
  // A crash's 128+N wins over findings (docs/runtime.md): it says more.
  return findings + api_errors && !WIFSIGNALED(ws) ? kFindings : code;
}

}  // namespace

int program_main(int argc, char** argv, int dashdash) {
  ProgramOptions o;
  o.command = argv[1];
  // main() dispatches only these three names here.
  o.mode = session::protocol::parse_mode(o.command).value_or(Mode::Run);
  CLI::App app{
      fmt::format("smemlab {} [options] -- APP [ARGS...]: run a CUDA program on the "
                  "emulator",
                  o.command)};
  app.name("smemlab " + o.command);
  if (o.mode != Mode::Run) {
    app.add_option("-k,--kernel-name", o.kernel_regex,
                   "analyze only launches of kernels whose name matches REGEX (demangled or "
                   "mangled); the others still run");
    app.add_option("--launch-skip", o.launch_skip, "skip the first N matching launches");
    app.add_option("--launch-count", o.launch_count, "analyze at most N matching launches");
    app.add_flag("--json", o.json, "JSON Lines: one object per analyzed launch");
    app.add_option("--html", o.html,
                   "also write the HTML source view to FILE: one self-contained page, a section "
                   "per analyzed launch");
  }
  if (o.mode == Mode::Analyze) {
    app.add_option("--fail-on-excess", o.fail_on_excess,
                   "exit 1 when the analyzed launches' excess wavefronts (first model) exceed N");
    app.add_option("--level", o.level,
                   "count the SASS the GPU runs (the fatbin's for the emulated GPU, else ptxas's "
                   "of the PTX; falls back to ptx when the tools are missing, and says why) or "
                   "the PTX")
        ->check(CLI::IsMember({"sass", "ptx"}))
        ->capture_default_str();
    app.add_flag("--check", o.check,
                 "also run check's defect checkers on each analyzed launch and list their "
                 "findings; costs about what `check` costs");
  }
  app.add_option("--arch", o.archs,
                 "the emulated device (first) and the bank models: sm_90 (H100, default), sm_80, "
                 "sm_70, sm_35 (Kepler: the program's bank-size choice applies), sm_20, sm_13")
      ->capture_default_str();
  app.add_option("--schedule", o.schedule,
                 "how a block's warps take turns: gpu (interleaved at every memory op, as on the "
                 "GPU), serial (each warp runs until it blocks), random[:SEED]")
      ->check(kSchedule)
      ->capture_default_str();
  if (o.mode == Mode::Check)
    app.add_option("--sarif", o.sarif,
                   "also write a SARIF 2.1.0 log to FILE: one run for the program, a result per "
                   "finding of every checked launch (with its launch index, kernel, grid and "
                   "block)");
  if (o.mode == Mode::Analyze)
    app.add_option("--sarif", o.sarif,
                   "also write a SARIF 2.1.0 log to FILE: one run for the program, a result per "
                   "hint (bank conflicts, uncoalesced accesses, divergent branches) and, with "
                   "--check, per finding of every analyzed launch (with its launch index, "
                   "kernel, grid and block)");
  if (o.mode == Mode::Check)
    app.add_option("--compare-schedules", o.compare,
                   "also run each checked launch under these warp schedules (comma-separated, "
                   "e.g. serial,random:1,random:2), each from the same device memory, and report "
                   "a result or control flow that differs (schedule-dependent)")
        ->check(kScheduleList);
  app.add_option("--output", o.output, "write smemlab's lines to FILE instead of stderr");
  app.add_flag("--quiet,-q", o.quiet,
               "no progress line (shown on a terminal's stderr for each launch over 1 s)");
  app.footer(
      "Exit status: the program's own (128+N if signal N killed it); check: 1 when it found "
      "errors; analyze --fail-on-excess: 1 above the threshold; 2 usage errors (APP missing or "
      "not executable).");
  if (int code = parse_options_before_dashdash(app, argv, dashdash); code >= 0) return code;
  std::vector<std::string> prog(argv + dashdash + 1, argv + argc);
  if (prog.empty()) {
    fmt::print(stderr, "smemlab {}: error: no program after '--'\n", o.command);
    return kUsage;
  }
  return run(o, prog);
}

}  // namespace smemlab::cli
