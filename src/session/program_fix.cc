#include "session/program_fix.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>

#include "check/swizzle_whatif.h"
#include "emu/program.h"
#include "fix/access_log.h"
#include "fix/tile_swizzle.h"
#include "session/launch_analysis.h"
#include "session/launch_spec.h"
#include "session/program_process.h"
#include "session/program_protocol.h"

namespace smemlab::session {
namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// One run of the program on the emulated driver in check mode.
struct ProgramRun {
  bool signaled = false;
  int code = 0;  // exit status, or the signal
  std::string out, err;
  bool loaded = false;  // the program loaded our libcuda.so.1
  protocol::ProgramStatus summary;
  std::vector<check::Finding> findings;  // of every checked launch, whole (kRecords)
  std::vector<std::string> errors;       // the driver's own ERROR lines (not findings)
};

class Runs {
 public:
  Runs(std::string exe, std::vector<std::string> app, std::string dir)
      : exe_(std::move(exe)), app_(std::move(app)), dir_(std::move(dir)) {}
  std::map<std::string, std::string> env;  // for every run

  // `checked`: a run in check mode, whose launch records hold findings (an
  // analyze run's records are SARIF results, not read here).
  ProgramRun run(const std::string& tag, const std::map<std::string, std::string>& extra,
                 bool checked = true) {
    std::string base = dir_ + "/" + tag;
    std::string status = base + ".status", output = base + ".log", records = base + ".records";
    pid_t pid = fork();
    if (pid == 0) {
      preload_own_sanitizer();
      for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
      for (const auto& [k, v] : extra) setenv(k.c_str(), v.c_str(), 1);
      setenv(protocol::kStatus, status.c_str(), 1);
      setenv(protocol::kOutput, output.c_str(), 1);
      setenv(protocol::kRecords, records.c_str(), 1);
      int o = ::open((base + ".stdout").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int e = ::open((base + ".stderr").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0) _exit(127);
      std::vector<char*> argv;
      for (auto& a : app_) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(exe_.c_str(), argv.data());
      _exit(127);
    }
    if (pid < 0) throw UsageError(fmt::format("fork: {}", std::strerror(errno)));
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
    }
    ProgramRun r;
    r.signaled = WIFSIGNALED(ws);
    r.code = r.signaled ? WTERMSIG(ws) : WEXITSTATUS(ws);
    r.out = read_all(base + ".stdout");
    r.err = read_all(base + ".stderr");
    r.loaded = protocol::read_status(status, &r.summary);
    try {
      for (report::CheckedLaunch& l :
           checked ? protocol::read_records(records) : std::vector<report::CheckedLaunch>{})
        for (check::Finding& f : l.findings) r.findings.push_back(std::move(f));
    } catch (const std::exception& e) {
      throw UsageError(fmt::format("the launch records of {}: {}", app_[0], e.what()));
    }
    const std::string error_line =
        std::string(protocol::kLinePrefix) + std::string(protocol::kErrorPrefix);
    std::ifstream log(output);
    for (std::string line; std::getline(log, line);)
      if (line.starts_with(error_line)) r.errors.push_back(line.substr(error_line.size()));
    return r;
  }

 private:
  std::string exe_;
  std::vector<std::string> app_;
  std::string dir_;
};

std::string describe_end(const ProgramRun& r) {
  return r.signaled ? fmt::format("was killed by signal {} ({})", r.code, strsignal(r.code))
                    : fmt::format("exited with status {}", r.code);
}

// Where two outputs first differ, in words.
std::string first_difference(const std::string& a, const std::string& b) {
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  size_t line = 1 + std::count(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(i), '\n');
  return fmt::format("at byte {} (line {})", i, line);
}

// `-k`'s default: the kernel by its bare name, in the demangled name
// ("void tile<32>(float*)", "transpose(float*, float const*)") or an
// extern "C" kernel's plain one.
std::string regex_for(const std::string& kernel) {
  std::string quoted;
  for (char c : kernel) {
    if (std::strchr("\\^$.|?*+()[]{}", c)) quoted += '\\';
    quoted += c;
  }
  return "(^|[ :])" + quoted + "($|<|\\()";
}

std::vector<std::string> split_flags(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

fix::Cost measured_cost(const std::vector<fix::LoggedLaunch>& launches, const bank::Model& model) {
  fix::Cost total;
  const fix::Span all{0, UINT64_MAX};
  for (const auto& l : launches) {
    fix::Cost c = fix::cost_of(l.accesses, all, nullptr, model);
    total.requests += c.requests;
    total.wavefronts += c.wavefronts;
    total.ideal += c.ideal;
  }
  return total;
}

std::vector<fix::LoggedLaunch> read_record(const std::string& path) {
  if (!std::filesystem::exists(path)) return {};
  try {
    return fix::read_launches(path);
  } catch (const fix::LogError& e) {
    throw UsageError(e.what());
  }
}

// The program's own nvcc line may be pasted whole: its target and output
// options are fix's to choose (the PTX's architecture, a temporary file).
// The rest go to nvcc; *dropped says what was left out.
std::vector<std::string> nvcc_args_of(const ProgramFixOptions& o,
                                      std::vector<std::string>* dropped) {
  std::vector<std::string> given = split_flags(o.nvcc_flags), nvcc_args;
  given.insert(given.end(), o.xnvcc.begin(), o.xnvcc.end());
  for (size_t i = 0; i < given.size(); ++i) {
    const std::string& f = given[i];
    bool with_value = f == "-arch" || f == "--gpu-architecture" || f == "-gencode" ||
                      f == "--generate-code" || f == "-code" || f == "--gpu-code" || f == "-o" ||
                      f == "--output-file";
    bool alone = f.starts_with("-arch=") || f.starts_with("--gpu-architecture=") ||
                 f.starts_with("-gencode=") || f.starts_with("--generate-code=") ||
                 f.starts_with("-code=") || f.starts_with("--gpu-code=") || f == "-c" ||
                 f == "--compile" || f == "-ptx" || f == "--ptx" || f == "-cubin";
    if (with_value && i + 1 < given.size()) {
      dropped->push_back(f + " " + given[++i]);
    } else if (alone || with_value) {
      dropped->push_back(f);
    } else {
      nvcc_args.push_back(f);
    }
  }
  return nvcc_args;
}

// The selected launches must be of one kernel, from one module, in one
// configuration: their accesses are costed as one layout.
void check_selection(const std::vector<fix::LoggedLaunch>& launches) {
  const fix::LoggedLaunch& first = launches.front();
  for (const auto& l : launches) {
    auto where = [&] { return fmt::format("launch {} and launch {}", first.index, l.index); };
    if (l.kernel != first.kernel)
      throw UsageError(
          fmt::format("the selection holds launches of two kernels ({}: {} and {}); "
                      "narrow it with -k/--kernel-name",
                      where(), demangle(first.kernel), demangle(l.kernel)));
    if (l.module_serial != first.module_serial)
      throw UsageError(
          fmt::format("{} of {} come from different modules ({}, {}); select one "
                      "with --launch-skip/--launch-count",
                      where(), demangle(first.kernel), first.module, l.module));
    if (l.dynamic_shared != first.dynamic_shared || !(l.block == first.block))
      throw UsageError(fmt::format(
          "{} of {} differ in block size or dynamic shared memory ({} and {} B), so one layout "
          "costs differently in each; select launches of one configuration with "
          "--launch-skip/--launch-count",
          where(), demangle(first.kernel), first.dynamic_shared, l.dynamic_shared));
  }
}

// FILE.cu must be the kernel's source, built as the program built it: the
// unmodified file's K is compared with the program's before any proof.
void check_source_matches(const LaunchOptions& build, const fix::LoggedLaunch& first,
                          const emu::Program& program, const std::string& app) {
  PreparedInput in;
  prepare_input(build, &in);
  emu::Device d;
  auto m = emu::Module::load_file(d, in.ptx_path);
  const auto names = m->kernel_names();
  if (std::find(names.begin(), names.end(), first.kernel) == names.end())
    throw UsageError(fmt::format(
        "{} has no kernel {} ({}), the kernel {} launched: give the source file of that kernel",
        build.file, demangle(first.kernel), first.kernel, app));
  const emu::Program& mine = m->kernel(first.kernel);
  auto shape = [](const emu::Program& p) {
    std::string s;
    for (const auto& v : p.shared_vars) s += fmt::format("{}[{}] ", v.name, v.size);
    return s;
  };
  // The instructions (opcode and modifiers) in order: a changed comparison
  // or type shows, register numbering and line numbers do not.
  auto opcodes = [](const emu::Program& p) {
    std::vector<std::string> out;
    for (const auto& i : p.info) out.push_back(i.text);
    return out;
  };
  if (opcodes(mine) != opcodes(program) || shape(mine) != shape(program))
    throw UsageError(fmt::format(
        "{} compiled for {} with the given flags{} does not give the program's {}: {} "
        "instructions and shared {}against the program's {} and {}, or other instructions "
        "(FILE.cu is not the "
        "program's source, or it was built with other options: give them with --nvcc-flags)",
        build.file, build.arch,
        build.nvcc_args.empty() ? "" : fmt::format(" ({})", fmt::join(build.nvcc_args, " ")),
        demangle(first.kernel), mine.ops.size(), shape(mine), program.ops.size(), shape(program)));
}

fix::SourceModel parse_kernel_source(const std::string& file,
                                     const std::vector<std::string>& nvcc_args) {
  try {
    std::vector<std::string> include_dirs;
    for (size_t i = 0; i < nvcc_args.size(); ++i)
      if (nvcc_args[i] == "-I" && i + 1 < nvcc_args.size())
        include_dirs.push_back(nvcc_args[++i]);
      else if (nvcc_args[i].starts_with("-I"))
        include_dirs.push_back(nvcc_args[i].substr(2));
    fix::SourceModel source = fix::parse_source(file, include_dirs);
    // Arrays in code the front end could not parse would go unseen: a
    // failure to read the input, never "nothing to fix".
    if (!source.diagnostics.empty())
      throw UsageError(
          fmt::format("{}: the C++ front end could not parse it ({} error(s); first: {})", file,
                      source.diagnostics.size(), source.diagnostics.front()));
    return source;
  } catch (const fix::Error& e) {
    throw UsageError(e.what());
  }
}

// A temporary directory for the runs' files, removed with everything in it.
struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/smemlab-fix-XXXXXX";
    if (!mkdtemp(tmpl)) throw UsageError("cannot create a temporary directory");
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

// One more run of the program in analyze mode (`extra`: a candidate's PTX,
// shared size, tensor-map swizzle; none for the program as built): its
// launch records, one JSON object per analyzed launch. A proof's own run is
// in check mode, whose records carry no counts.
std::vector<nlohmann::json> analyze_launches(Runs& runs, const std::string& dir,
                                             const std::string& tag,
                                             std::map<std::string, std::string> extra) {
  extra[protocol::kMode] = "analyze";
  runs.run(tag, extra, false);
  std::istringstream log(read_all(dir + "/" + tag + ".log"));
  std::vector<nlohmann::json> out;
  for (std::string line; std::getline(log, line);) {
    if (line.empty() || line[0] != '{') continue;
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded()) out.push_back(std::move(j));
  }
  return out;
}

// The time model (docs/timing.md) on those launches: the sum of their
// predicted H100 durations, 0 when a launch has none.
double predicted_time_ns(const std::vector<nlohmann::json>& launches) {
  double sum = 0;
  int n = 0;
  for (const nlohmann::json& j : launches) {
    if (!j.contains("timing")) continue;
    const nlohmann::json& t = j["timing"];
    if (!t.value("valid", false)) return 0;
    sum += t.value("duration_ns", 0.0);
    ++n;
  }
  return n ? sum : 0;
}

// The proof of one candidate (fix::Runner): the program run with K rebuilt
// from the rewritten source, compared with the reference run.
class Prover {
 public:
  Prover(Runs& runs, const ProgramRun& ref, const LaunchOptions& build,
         const fix::LoggedLaunch& first, const std::string& dir, const bank::Model& sm90,
         const std::function<void(const std::string&)>& note)
      : runs_(runs),
        ref_(ref),
        build_(build),
        first_(first),
        dir_(dir),
        sm90_(sm90),
        note_(note),
        ref_snaps_(fix::read_snapshots(dir + "/reference.snap")) {}

  fix::RunResult operator()(const std::string& path, uint32_t dynamic_shared);
  // A TMA tile's swizzle proof: the tensor maps' swizzle (-1: as built).
  int tma_swizzle = -1;
  // The analyze run of the last verified candidate (its swizzle what-if).
  const std::vector<nlohmann::json>& last_analyzed() const { return analyzed_; }

 private:
  void learn_noise();
  std::string compare(const ProgramRun& got, const std::string& tag) const;

  Runs& runs_;
  const ProgramRun& ref_;
  const LaunchOptions& build_;
  const fix::LoggedLaunch& first_;
  const std::string dir_;
  const bank::Model& sm90_;
  const std::function<void(const std::string&)>& note_;
  const std::vector<fix::Snapshot> ref_snaps_;
  unsigned proof_ = 0;
  bool compare_stdout_ = true, noise_known_ = false;
  std::vector<nlohmann::json> analyzed_;
};

// A second run of the program as built, before the first proof, tells
// which of its outputs are its own run-to-run noise: a program that prints
// timings (events time the emulation) would otherwise have every candidate
// rejected for its stdout.
void Prover::learn_noise() {
  if (noise_known_) return;
  noise_known_ = true;
  const std::string again_snap = dir_ + "/again.snap";
  ProgramRun again = runs_.run("again", {{protocol::kFixSnapshot, again_snap}});
  if (again.out != ref_.out) {
    compare_stdout_ = false;
    note_(fmt::format(
        "smemlab fix: note: the program's stdout differs between two runs of it as built {}; "
        "the proof compares device memory, exit status and check, not stdout",
        first_difference(ref_.out, again.out)));
  }
  std::vector<fix::Snapshot> again_snaps;
  if (std::filesystem::exists(again_snap)) again_snaps = fix::read_snapshots(again_snap);
  if (std::string d = fix::compare_snapshots(ref_snaps_, again_snaps); !d.empty())
    note_(fmt::format(
        "smemlab fix: note: device memory after {} differs between two runs of the program as "
        "built ({}): its results are not deterministic, so no candidate can be proven equal",
        demangle(first_.kernel), d));
}

fix::RunResult Prover::operator()(const std::string& path, uint32_t dynamic_shared) {
  learn_noise();
  fix::RunResult r;
  LaunchOptions lo = build_;
  lo.file = path;
  PreparedInput in;
  try {
    prepare_input(lo, &in);
  } catch (const UsageError& e) {
    r.error = fmt::format("the rewritten source does not compile: {}", e.what());
    return r;
  }
  std::string tag = fmt::format("proof{}", proof_++);
  std::map<std::string, std::string> extra = {{protocol::kFixPtx, in.ptx_path},
                                              {protocol::kFixRecord, dir_ + "/" + tag + ".rec"},
                                              {protocol::kFixSnapshot, dir_ + "/" + tag + ".snap"}};
  if (dynamic_shared != first_.dynamic_shared)
    extra[protocol::kFixShared] = std::to_string(dynamic_shared);
  if (tma_swizzle >= 0) extra[protocol::kFixTmaSwizzle] = std::to_string(tma_swizzle);
  ProgramRun got = runs_.run(tag, extra);
  r.findings = got.findings;
  std::vector<fix::LoggedLaunch> proved;
  try {
    proved = read_record(dir_ + "/" + tag + ".rec");
  } catch (const UsageError&) {
  }
  r.measured = measured_cost(proved, sm90_);
  r.error = compare(got, tag);
  analyzed_.clear();
  if (r.error.empty()) {
    // The predicted saving beside the proven one (the original's: fix_program).
    std::map<std::string, std::string> timed = {{protocol::kFixPtx, in.ptx_path}};
    if (dynamic_shared != first_.dynamic_shared)
      timed[protocol::kFixShared] = std::to_string(dynamic_shared);
    if (tma_swizzle >= 0) timed[protocol::kFixTmaSwizzle] = std::to_string(tma_swizzle);
    analyzed_ = analyze_launches(runs_, dir_, tag + "-time", std::move(timed));
    r.predicted_ns = predicted_time_ns(analyzed_);
  }
  return r;
}

// Why the candidate's run is not the program's as built; "" when it is.
std::string Prover::compare(const ProgramRun& got, const std::string& tag) const {
  for (const auto& e : got.errors)
    if (std::find(ref_.errors.begin(), ref_.errors.end(), e) == ref_.errors.end())
      return "the emulated driver: " + e;
  if (got.summary.failed_kernels > ref_.summary.failed_kernels) {
    // The fault is check's finding (the emulator's stop, with its place).
    std::map<std::string, int> before;
    for (const auto& f : ref_.findings) ++before[std::string(check::name(f.kind)) + f.message];
    std::string what;
    for (const auto& f : got.findings)
      if (--before[std::string(check::name(f.kind)) + f.message] < 0 && what.empty())
        what = fmt::format(" (first new finding: {}: {})", check::name(f.kind), f.message);
    return "a kernel launch failed" + what;
  }
  if (got.signaled && !ref_.signaled) return fmt::format("the program {}", describe_end(got));
  std::vector<fix::Snapshot> snaps;
  try {
    if (std::filesystem::exists(dir_ + "/" + tag + ".snap"))
      snaps = fix::read_snapshots(dir_ + "/" + tag + ".snap");
  } catch (const fix::LogError& e) {
    return e.what();
  }
  if (std::string d = fix::compare_snapshots(ref_snaps_, snaps); !d.empty()) return d;
  if (got.signaled != ref_.signaled || got.code != ref_.code)
    return fmt::format("the program {}; as built it {}", describe_end(got), describe_end(ref_));
  if (got.summary.api_errors > ref_.summary.api_errors)
    return fmt::format("check reports {} API errors, the original {}", got.summary.api_errors,
                       ref_.summary.api_errors);
  if (compare_stdout_ && got.out != ref_.out)
    return "the program's stdout differs from the original's " +
           first_difference(ref_.out, got.out);
  return "";
}

// The reference run's launches of K, checked to be one kernel of one
// configuration; throws ProgramFailed when the program as built fails.
std::vector<fix::LoggedLaunch> reference_launches(const ProgramFixOptions& o,
                                                  const std::vector<std::string>& app,
                                                  const ProgramRun& ref,
                                                  const std::string& record) {
  if (!ref.loaded)
    throw UsageError(fmt::format("{} never used CUDA (it did not load libcuda.so.1)", app[0]));
  std::vector<fix::LoggedLaunch> launches = read_record(record);
  if (ref.signaled || ref.summary.failed_kernels || !ref.errors.empty())
    throw ProgramFailed(fmt::format("the program {} ({} of its kernel launches failed){}{}",
                                    describe_end(ref), ref.summary.failed_kernels,
                                    ref.errors.empty() ? "" : ": ",
                                    ref.errors.empty() ? "" : ref.errors.front()));
  if (launches.empty())
    throw UsageError(fmt::format(
        "{} never launched a kernel named {} (it made {} kernel launches{}); --kernel names the "
        "kernel as in FILE.cu, -k/--kernel-name takes a regex over the launched names",
        app[0], o.kernel, ref.summary.launches,
        o.launch_skip || o.launch_count >= 0 ? ", counting --launch-skip/--launch-count" : ""));
  check_selection(launches);
  return launches;
}

std::vector<std::unique_ptr<bank::Model>> models_of(const std::string& archs) {
  try {
    return parse_models(archs);
  } catch (const OptionError& e) {
    throw UsageError(e.what());
  }
}

// Where the program runs from: its executable and the emulated driver's
// directory, checked before anything runs.
std::string program_executable(const ProgramFixOptions& o, const std::vector<std::string>& app,
                               std::string* runtime) {
  if (!o.file.ends_with(".cu"))
    throw UsageError(
        fmt::format("{}: fix needs the CUDA source (.cu) of the program's kernel", o.file));
  if (access(o.file.c_str(), R_OK) != 0)
    throw UsageError(fmt::format("{}: cannot read: {}", o.file, std::strerror(errno)));
  std::string why;
  std::string exe = find_program(app[0], &why);
  if (exe.empty()) throw UsageError(fmt::format("{}: {}", app[0], why));
  *runtime = runtime_dir();
  if (access((*runtime + "/libcuda.so.1").c_str(), R_OK) != 0)
    throw UsageError(fmt::format("the emulated CUDA driver {}/libcuda.so.1 is missing", *runtime));
  return exe;
}

// The kernel loads tiles with TMA (cp.async.bulk.tensor), whose readers the
// swizzle what-if costs under every mode.
bool loads_tiles(const emu::Program& p) {
  return std::any_of(p.ops.begin(), p.ops.end(),
                     [](const emu::Op& op) { return op.code / 16 == emu::TMA; });
}

// The swizzle what-if's proposals for the selected launches: one more run
// of the program, in analyze mode; its launch records are JSON lines.
nlohmann::json swizzle_proposals(Runs& runs, const std::string& dir) {
  nlohmann::json out = nlohmann::json::array();
  for (nlohmann::json& j : analyze_launches(runs, dir, "swizzle", {})) {
    if (!j.contains("swizzle_what_if")) continue;
    for (nlohmann::json& b : j["swizzle_what_if"])
      if (b.contains("proposal")) {
        b["launch"] = j.value("launch", int64_t{-1});
        out.push_back(std::move(b));
      }
  }
  return out;
}

// Where each proposal's tensor-map field is in the host source: every
// swizzle argument of a tensor-map encode (fix::SwizzleArgument) with its
// value where the front end can evaluate it. `host_change` says what a
// rewrite would be, or exactly why there is none (docs/fix.md "TMA tiles").
void locate_swizzle_arguments(const fix::SourceModel& source, nlohmann::json& proposals) {
  nlohmann::json args = nlohmann::json::array();
  for (const fix::SwizzleArgument& a : source.swizzle_arguments)
    args.push_back({{"line", a.line},
                    {"column", a.column},
                    {"text", a.text},
                    {"value", a.value ? nlohmann::json(*a.value) : nlohmann::json(nullptr)},
                    {"rewritable", a.rewritable}});
  for (nlohmann::json& b : proposals) {
    b["host_arguments"] = args;
    const std::string want = b["proposal"].value("tensor_map_swizzle", "");
    std::string change;
    if (source.swizzle_arguments.empty())
      change = "no call with a CUtensorMapSwizzle argument in " + source.path;
    else if (source.swizzle_arguments.size() > 1)
      change = fmt::format("{} tensor-map encodes in {}: which one maps this tile is not followed",
                           source.swizzle_arguments.size(), source.path);
    else if (const fix::SwizzleArgument& a = source.swizzle_arguments.front(); !a.value)
      change =
          fmt::format("{}:{}:{}: the swizzle is `{}`, a value computed at run time: not rewritten",
                      source.path, a.line, a.column, a.text);
    else if (!a.rewritable)
      change = fmt::format("{}:{}:{}: the swizzle `{}` comes from a macro: not rewritten",
                           source.path, a.line, a.column, a.text);
    else
      change = fmt::format("{}:{}:{}: `{}` -> `{}`", source.path, a.line, a.column, a.text, want);
    b["host_change"] = change;
  }
}

int mode_index(const std::string& name) {
  for (int m = 0; m < check::kSwizzleModes; ++m)
    if (name == check::swizzle_mode_name(m)) return m;
  return -1;
}

// The pair's source change for proposal `b`, or nullopt and *why.
std::optional<fix::Edits> tile_edits(const fix::SourceModel& source, const nlohmann::json& b,
                                     std::string* why) {
  fix::TileSwizzle t;
  t.from = mode_index(b.value("swizzle", ""));
  t.to = mode_index(b["proposal"].value("swizzle", ""));
  t.row_bytes = b.value("row_bytes", 0u);
  t.shared_base = b.value("shared_offset", 0u);
  t.wgmma_reads = b.contains("wgmma_reads");
  std::error_code ec;
  const auto mine = std::filesystem::weakly_canonical(source.path, ec);
  for (const nlohmann::json& r : b.value("readers", nlohmann::json::array())) {
    const std::string file = r.value("file", "");
    if (std::filesystem::weakly_canonical(file, ec) != mine) {
      *why = fmt::format("a reader is in {}:{}, not in {}: not rewritten", file, r.value("line", 0),
                         source.path);
      return std::nullopt;
    }
    t.reader_lines.push_back(r.value("line", 0));
  }
  return fix::tile_swizzle_edits(source, t, why);
}

// The proof's own count of the tile's readers: the rebuilt program's
// analyze run, the same launch and tile, now under the proposed mode.
nlohmann::json proven_wavefronts(const std::vector<nlohmann::json>& analyzed,
                                 const nlohmann::json& b) {
  const std::string to = b["proposal"].value("swizzle", "");
  for (const nlohmann::json& j : analyzed)
    if (j.value("launch", int64_t{-2}) == b.value("launch", int64_t{-1}))
      for (const nlohmann::json& e : j.value("swizzle_what_if", nlohmann::json::array()))
        if (e.value("line", 0) == b.value("line", -1) &&
            e.value("shared_offset", 0u) == b.value("shared_offset", 1u) &&
            e.value("swizzle", "") == to && e["wavefronts"].contains(to))
          return e["wavefronts"][to];
  return nullptr;
}

// Applies and proves each TMA tile's swizzle proposal (docs/fix.md, "TMA
// tiles"): the one encode's field and the readers' offsets rewritten
// (fix/tile_swizzle.h), the program run with the rebuilt kernel and its
// tensor maps encoded with the new mode, verified as a layout candidate is;
// the rebuilt kernel's reader wavefronts beside the what-if's prediction.
// Sets each proposal's `applied`; returns the first verified change.
fix::Edits prove_tile_swizzles(const fix::SourceModel& source, const fix::RunResult& original,
                               uint32_t dynamic_shared, Prover& prover, nlohmann::json& proposals) {
  fix::Edits first;
  // By the edits' text (a tile of several launches is proven once): the
  // verdict and that proof's analyze run, each launch's count read from it.
  struct Proof {
    nlohmann::json applied;
    std::vector<nlohmann::json> analyzed;
  };
  std::map<std::string, Proof> proven;
  for (nlohmann::json& b : proposals) {
    std::string why;
    std::optional<fix::Edits> edits = tile_edits(source, b, &why);
    if (!edits) {
      b["applied"] = {{"verdict", "not applied"}, {"why", why}};
      continue;
    }
    const std::string key = fix::apply(source.text, *edits);
    if (auto it = proven.find(key); it != proven.end()) {
      b["applied"] = it->second.applied;
      if (it->second.applied.value("verdict", "") == "verified")
        b["applied"]["proven_wavefronts"] = proven_wavefronts(it->second.analyzed, b);
      continue;
    }
    nlohmann::json edits_json = nlohmann::json::array();
    for (const fix::Edit& e : *edits)
      edits_json.push_back({{"line", fix::line_of(source.text, e.range.begin)},
                            {"old", source.text.substr(e.range.begin, e.range.end - e.range.begin)},
                            {"new", e.text}});
    prover.tma_swizzle = mode_index(b["proposal"].value("swizzle", ""));
    fix::RunResult r = fix::run_rewritten(source, *edits, dynamic_shared, std::ref(prover));
    prover.tma_swizzle = -1;
    const std::string diff = fix::proof_difference(original, r);
    nlohmann::json a = {{"verdict", diff.empty() ? "verified" : "rejected"}, {"edits", edits_json}};
    if (!diff.empty()) a["why"] = diff;
    if (diff.empty() && r.predicted_ns > 0) a["predicted_ns"] = r.predicted_ns;
    if (diff.empty() && first.empty()) first = *edits;
    proven[key] = {a, prover.last_analyzed()};
    b["applied"] = a;
    if (diff.empty())
      b["applied"]["proven_wavefronts"] = proven_wavefronts(prover.last_analyzed(), b);
  }
  return first;
}

}  // namespace

ProgramFix fix_program(const ProgramFixOptions& o, const std::vector<std::string>& app,
                       const std::function<void(const std::string&)>& note) {
  std::string rt;
  const std::string exe = program_executable(o, app, &rt);
  auto models = models_of(o.archs);
  auto sm90 = models_of("sm_90");
  std::string regex = o.kernel_regex.empty() ? regex_for(o.kernel) : o.kernel_regex;
  try {
    std::regex re(regex);
  } catch (const std::regex_error& e) {
    throw UsageError(fmt::format("--kernel-name '{}': {}", regex, e.what()));
  }
  std::vector<std::string> dropped;
  const std::vector<std::string> nvcc_args = nvcc_args_of(o, &dropped);
  if (!dropped.empty())
    note(fmt::format(
        "smemlab fix: note: --nvcc-flags: {} left out: fix builds FILE.cu to PTX for the "
        "architecture of the program's PTX, with line information",
        fmt::join(dropped, " ")));

  TempDir tmp;
  const std::string& dir = tmp.path;
  Runs runs(exe, app, dir);
  const char* old = std::getenv("LD_LIBRARY_PATH");
  runs.env = {{"LD_LIBRARY_PATH", rt + (old && *old ? ":" + std::string(old) : "")},
              {protocol::kMode, protocol::mode_name(protocol::ProgramMode::Check)},
              {protocol::kArch, o.archs.substr(0, o.archs.find(','))},
              {protocol::kKernel, regex},
              {protocol::kLaunchSkip, std::to_string(o.launch_skip)},
              {protocol::kJson, "1"},  // (the log then holds only smemlab's own lines)
              {protocol::kLevel, "ptx"}};
  if (o.launch_count >= 0) runs.env[protocol::kLaunchCount] = std::to_string(o.launch_count);

  // 1. The program as built: what-if data and the proof's reference.
  const std::string ref_record = dir + "/reference.rec", ref_snap = dir + "/reference.snap";
  ProgramRun ref = runs.run(
      "reference", {{protocol::kFixRecord, ref_record}, {protocol::kFixSnapshot, ref_snap}});
  std::vector<fix::LoggedLaunch> launches = reference_launches(o, app, ref, ref_record);
  const fix::LoggedLaunch& first = launches.front();

  // The kernel as the program's module has it: shared variables, line table.
  emu::Device device;
  std::unique_ptr<emu::Module> module;
  const std::string module_ptx = fmt::format("{}.{}.ptx", ref_record, first.module_serial);
  try {
    module = emu::Module::load_file(device, module_ptx);
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("the program's PTX: {}", e.what()));
  }
  const emu::Program& program = module->kernel(first.kernel);
  std::vector<fix::SharedAccess> accesses;
  for (const auto& l : launches)
    for (fix::SharedAccess a : l.accesses) {
      if (a.pc >= program.info.size()) throw UsageError(fmt::format("{}: bad record", ref_record));
      a.instr = &program.info[a.pc];
      accesses.push_back(a);
    }

  LaunchOptions build;
  build.file = o.file;
  build.arch = fmt::format("sm_{}", first.ptx_sm ? first.ptx_sm : 90);
  build.nvcc_args = nvcc_args;
  build.quiet = true;
  check_source_matches(build, first, program, app[0]);

  ProgramFix out;
  out.source = parse_kernel_source(o.file, nvcc_args);
  fix::RunResult original;
  original.findings = ref.findings;
  original.measured = measured_cost(launches, *sm90.front());
  if (o.prove)
    original.predicted_ns = predicted_time_ns(analyze_launches(runs, dir, "reference-time", {}));
  Prover prover(runs, ref, build, first, dir, *sm90.front(), note);
  fix::Options fo;
  fo.max_pad = o.max_pad;
  fo.prove = o.prove;
  fo.threads_per_block = static_cast<unsigned>(first.block.count());
  out.result = fix::find_fixes(out.source, program, first.dynamic_shared, accesses, original,
                               models, std::ref(prover), fo, program.lines);

  if (loads_tiles(program)) {
    out.swizzle_proposals = swizzle_proposals(runs, dir);
    locate_swizzle_arguments(out.source, out.swizzle_proposals);
    if (o.prove)
      out.swizzle_patch = prove_tile_swizzles(out.source, original, first.dynamic_shared, prover,
                                              out.swizzle_proposals);
  }
  out.kernel = first.kernel;
  out.grid = first.grid;
  out.block = first.block;
  out.dynamic_shared = first.dynamic_shared;
  for (const auto& l : launches) {
    out.launches.push_back(l.index);
    if (!(l.grid == first.grid)) out.grids_differ = true;
  }
  return out;
}

}  // namespace smemlab::session
