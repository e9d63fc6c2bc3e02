// `smemlab fix FILE.cu --kernel K [...] -- APP [ARGS...]`: fix in program
// mode (docs/fix.md, "Program mode"). The program runs on the emulated
// driver (src/runtime) three ways: once as built, recording the shared
// accesses of its launches of K (the what-if data) and snapshotting device
// memory after each (the proof's reference), and a second time as built
// before the first proof (is its stdout the same every run?); then once per
// proven candidate with K's module replaced by the PTX rebuilt from the
// rewritten FILE.cu (runtime/fix_hooks.h). A candidate is verified when every
// snapshot and the exit status are equal, stdout too unless the program's
// own runs differ in it, and `check` finds nothing new.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "cli/analysis_run.h"
#include "cli/commands.h"
#include "cli/launch_options.h"
#include "cli/program_command.h"
#include "fix/access_log.h"
#include "fix/fix.h"
#include "report/fix_report.h"

namespace smemlab::cli {
namespace {

struct Options {
  std::string file, kernel, kernel_regex, archs = "sm_90", nvcc_flags;
  std::vector<std::string> xnvcc;
  uint64_t launch_skip = 0;
  int64_t launch_count = -1;
  bool json = false, sarif = false, patch = false;
  unsigned max_pad = 8, prove = 3, shown = 8;
};

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
  nlohmann::json summary = nlohmann::json::object();
  std::vector<check::Finding> findings;
  std::vector<std::string> errors;  // the driver's own ERROR lines (not findings)
  uint64_t value(const char* key) const { return summary.value(key, uint64_t{0}); }
};

class Runs {
 public:
  Runs(std::string exe, std::vector<std::string> app, std::string dir)
      : exe_(std::move(exe)), app_(std::move(app)), dir_(std::move(dir)) {}
  std::map<std::string, std::string> env;  // for every run

  ProgramRun run(const std::string& tag, const std::map<std::string, std::string>& extra) {
    std::string base = dir_ + "/" + tag;
    std::string status = base + ".status", output = base + ".log";
    pid_t pid = fork();
    if (pid == 0) {
      preload_own_sanitizer();
      for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
      for (const auto& [k, v] : extra) setenv(k.c_str(), v.c_str(), 1);
      setenv("SMEMLAB_STATUS", status.c_str(), 1);
      setenv("SMEMLAB_OUTPUT", output.c_str(), 1);
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
    if (std::ifstream in(status); in) {
      r.loaded = true;
      try {
        in >> r.summary;
      } catch (const std::exception&) {
      }
    }
    std::ifstream log(output);
    for (std::string line; std::getline(log, line);) {
      if (line.starts_with("{")) {
        try {
          for (const auto& f :
               nlohmann::json::parse(line).value("findings", nlohmann::json::array())) {
            check::Finding x;
            x.kind = check::finding_kind(f.value("kind", std::string()))
                         .value_or(check::FindingKind::Internal);
            x.message = f.value("message", "");
            x.count = f.value("count", uint64_t{1});
            r.findings.push_back(std::move(x));
          }
        } catch (const std::exception&) {
        }
      } else if (line.starts_with("==smemlab== ERROR: ")) {
        r.errors.push_back(line.substr(19));
      }
    }
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

int run_fix(const Options& o, const std::vector<std::string>& app) {
  if (!o.file.ends_with(".cu"))
    throw UsageError(
        fmt::format("{}: fix needs the CUDA source (.cu) of the program's kernel", o.file));
  if (access(o.file.c_str(), R_OK) != 0)
    throw UsageError(fmt::format("{}: cannot read: {}", o.file, std::strerror(errno)));
  std::string why;
  std::string exe = find_program(app[0], &why);
  if (exe.empty()) throw UsageError(fmt::format("{}: {}", app[0], why));
  std::string rt = runtime_dir();
  if (access((rt + "/libcuda.so.1").c_str(), R_OK) != 0)
    throw UsageError(fmt::format("the emulated CUDA driver {}/libcuda.so.1 is missing", rt));
  auto models = parse_models(o.archs);
  auto sm90 = parse_models("sm_90");
  std::string regex = o.kernel_regex.empty() ? regex_for(o.kernel) : o.kernel_regex;
  try {
    std::regex re(regex);
  } catch (const std::regex_error& e) {
    throw UsageError(fmt::format("--kernel-name '{}': {}", regex, e.what()));
  }
  // The program's own nvcc line may be pasted whole: its target and output
  // options are fix's to choose (the PTX's architecture, a temporary file).
  std::vector<std::string> given = split_flags(o.nvcc_flags), nvcc_args, dropped;
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
      dropped.push_back(f + " " + given[++i]);
    } else if (alone || with_value) {
      dropped.push_back(f);
    } else {
      nvcc_args.push_back(f);
    }
  }
  if (!dropped.empty())
    fmt::print(stderr,
               "smemlab fix: note: --nvcc-flags: {} left out: fix builds FILE.cu to PTX for the "
               "architecture of the program's PTX, with line information\n",
               fmt::join(dropped, " "));

  char tmpl[] = "/tmp/smemlab-fix-XXXXXX";
  if (!mkdtemp(tmpl)) throw UsageError("cannot create a temporary directory");
  std::string dir = tmpl;
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  } cleanup{dir};

  Runs runs(exe, app, dir);
  const char* old = std::getenv("LD_LIBRARY_PATH");
  runs.env = {{"LD_LIBRARY_PATH", rt + (old && *old ? ":" + std::string(old) : "")},
              {"SMEMLAB_MODE", "check"},
              {"SMEMLAB_ARCH", o.archs.substr(0, o.archs.find(','))},
              {"SMEMLAB_KERNEL", regex},
              {"SMEMLAB_LAUNCH_SKIP", std::to_string(o.launch_skip)},
              {"SMEMLAB_JSON", "1"},
              {"SMEMLAB_LEVEL", "ptx"}};
  if (o.launch_count >= 0) runs.env["SMEMLAB_LAUNCH_COUNT"] = std::to_string(o.launch_count);

  // 1. The program as built: what-if data and the proof's reference.
  const std::string ref_record = dir + "/reference.rec", ref_snap = dir + "/reference.snap";
  ProgramRun ref = runs.run(
      "reference", {{"SMEMLAB_FIX_RECORD", ref_record}, {"SMEMLAB_FIX_SNAPSHOT", ref_snap}});
  if (!ref.loaded)
    throw UsageError(fmt::format("{} never used CUDA (it did not load libcuda.so.1)", app[0]));
  std::vector<fix::LoggedLaunch> launches = read_record(ref_record);
  if (ref.signaled || ref.value("failed_kernels") || !ref.errors.empty()) {
    fmt::print(stderr, "smemlab fix: the program {} ({} of its kernel launches failed){}{}\n",
               describe_end(ref), ref.value("failed_kernels"), ref.errors.empty() ? "" : ": ",
               ref.errors.empty() ? "" : ref.errors.front());
    throw ExitCode{kRuntime};
  }
  if (launches.empty())
    throw UsageError(fmt::format(
        "{} never launched a kernel named {} (it made {} kernel launches{}); --kernel names the "
        "kernel as in FILE.cu, -k/--kernel-name takes a regex over the launched names",
        app[0], o.kernel, ref.value("launches"),
        o.launch_skip || o.launch_count >= 0 ? ", counting --launch-skip/--launch-count" : ""));
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

  // FILE.cu must be the kernel's source, built as the program built it: the
  // unmodified file's K is compared with the program's before any proof.
  LaunchOptions build;
  build.file = o.file;
  build.arch = fmt::format("sm_{}", first.ptx_sm ? first.ptx_sm : 90);
  build.nvcc_args = nvcc_args;
  build.quiet = true;
  {
    PreparedInput in;
    prepare_input(build, &in);
    emu::Device d;
    auto m = emu::Module::load_file(d, in.ptx_path);
    const auto names = m->kernel_names();
    if (std::find(names.begin(), names.end(), first.kernel) == names.end())
      throw UsageError(fmt::format(
          "{} has no kernel {} ({}), the kernel {} launched: give the source file of that kernel",
          o.file, demangle(first.kernel), first.kernel, app[0]));
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
          o.file, build.arch,
          nvcc_args.empty() ? "" : fmt::format(" ({})", fmt::join(nvcc_args, " ")),
          demangle(first.kernel), mine.ops.size(), shape(mine), program.ops.size(),
          shape(program)));
  }

  fix::SourceModel source;
  try {
    std::vector<std::string> include_dirs;
    for (size_t i = 0; i < nvcc_args.size(); ++i)
      if (nvcc_args[i] == "-I" && i + 1 < nvcc_args.size())
        include_dirs.push_back(nvcc_args[++i]);
      else if (nvcc_args[i].starts_with("-I"))
        include_dirs.push_back(nvcc_args[i].substr(2));
    source = fix::parse_source(o.file, include_dirs);
  } catch (const fix::Error& e) {
    throw UsageError(e.what());
  }
  const std::vector<fix::Snapshot> ref_snaps = fix::read_snapshots(ref_snap);
  // A second run of the program as built, before the first proof, tells
  // which of its outputs are its own run-to-run noise: a program that prints
  // timings (events time the emulation) would otherwise have every candidate
  // rejected for its stdout.
  bool compare_stdout = true, noise_known = false;
  auto learn_noise = [&] {
    if (noise_known) return;
    noise_known = true;
    const std::string again_snap = dir + "/again.snap";
    ProgramRun again = runs.run("again", {{"SMEMLAB_FIX_SNAPSHOT", again_snap}});
    if (again.out != ref.out) {
      compare_stdout = false;
      fmt::print(stderr,
                 "smemlab fix: note: the program's stdout differs between two runs of it as "
                 "built {}; the proof compares device memory, exit status and check, not stdout\n",
                 first_difference(ref.out, again.out));
    }
    std::vector<fix::Snapshot> again_snaps;
    if (std::filesystem::exists(again_snap)) again_snaps = fix::read_snapshots(again_snap);
    if (std::string d = fix::compare_snapshots(ref_snaps, again_snaps); !d.empty())
      fmt::print(stderr,
                 "smemlab fix: note: device memory after {} differs between two runs of the "
                 "program as built ({}): its results are not deterministic, so no candidate can "
                 "be proven equal\n",
                 demangle(first.kernel), d);
  };
  fix::RunResult original;
  original.findings = ref.findings;
  original.measured = measured_cost(launches, *sm90.front());

  unsigned proof = 0;
  fix::Runner runner = [&](const std::string& path, uint32_t dynamic_shared) {
    learn_noise();
    fix::RunResult r;
    LaunchOptions lo = build;
    lo.file = path;
    PreparedInput in;
    try {
      prepare_input(lo, &in);
    } catch (const UsageError& e) {
      r.error = fmt::format("the rewritten source does not compile: {}", e.what());
      return r;
    }
    std::string tag = fmt::format("proof{}", proof++);
    std::map<std::string, std::string> extra = {
        {"SMEMLAB_FIX_PTX", in.ptx_path},
        {"SMEMLAB_FIX_RECORD", dir + "/" + tag + ".rec"},
        {"SMEMLAB_FIX_SNAPSHOT", dir + "/" + tag + ".snap"}};
    if (dynamic_shared != first.dynamic_shared)
      extra["SMEMLAB_FIX_SHARED"] = std::to_string(dynamic_shared);
    ProgramRun got = runs.run(tag, extra);
    r.findings = got.findings;
    std::vector<fix::LoggedLaunch> proved;
    try {
      proved = read_record(dir + "/" + tag + ".rec");
    } catch (const UsageError&) {
    }
    r.measured = measured_cost(proved, *sm90.front());
    for (const auto& e : got.errors)
      if (std::find(ref.errors.begin(), ref.errors.end(), e) == ref.errors.end()) {
        r.error = "the emulated driver: " + e;
        return r;
      }
    if (got.value("failed_kernels") > ref.value("failed_kernels")) {
      // The fault is check's finding (the emulator's stop, with its place).
      std::map<std::string, int> before;
      for (const auto& f : ref.findings) ++before[std::string(check::name(f.kind)) + f.message];
      std::string what;
      for (const auto& f : got.findings)
        if (--before[std::string(check::name(f.kind)) + f.message] < 0 && what.empty())
          what = fmt::format(" (first new finding: {}: {})", check::name(f.kind), f.message);
      r.error = "a kernel launch failed" + what;
      return r;
    }
    if (got.signaled && !ref.signaled) {
      r.error = fmt::format("the program {}", describe_end(got));
      return r;
    }
    std::vector<fix::Snapshot> snaps;
    try {
      if (std::filesystem::exists(dir + "/" + tag + ".snap"))
        snaps = fix::read_snapshots(dir + "/" + tag + ".snap");
    } catch (const fix::LogError& e) {
      r.error = e.what();
      return r;
    }
    r.error = fix::compare_snapshots(ref_snaps, snaps);
    if (!r.error.empty()) return r;
    if (got.signaled != ref.signaled || got.code != ref.code) {
      r.error = fmt::format("the program {}; as built it {}", describe_end(got), describe_end(ref));
      return r;
    }
    if (got.value("api_errors") > ref.value("api_errors")) {
      r.error = fmt::format("check reports {} API errors, the original {}", got.value("api_errors"),
                            ref.value("api_errors"));
      return r;
    }
    if (compare_stdout && got.out != ref.out) {
      r.error =
          "the program's stdout differs from the original's " + first_difference(ref.out, got.out);
      return r;
    }
    return r;
  };

  fix::Options fo;
  fo.max_pad = o.max_pad;
  fo.prove = o.prove;
  fo.threads_per_block = static_cast<unsigned>(first.block.count());
  fix::Result result = fix::find_fixes(source, program, first.dynamic_shared, accesses, original,
                                       models, runner, fo, program.lines);

  // A program's host code calls the CUDA runtime API, which the front end's
  // prelude does not declare: its errors matter only where they hid an array.
  bool unmatched = std::any_of(result.arrays.begin(), result.arrays.end(),
                               [](const fix::ArrayInfo& a) { return a.source_index < 0; });
  if (unmatched && !source.diagnostics.empty())
    fmt::print(stderr,
               "smemlab: note: the C++ front end reported {} error(s) in {} (first: {}); shared "
               "arrays in code it could not parse are not found\n",
               source.diagnostics.size(), o.file, source.diagnostics.front());

  report::FixReport rep;
  rep.run.source = o.file;
  rep.run.kernel = demangle(first.kernel);
  rep.run.mangled = first.kernel;
  rep.run.grid = first.grid;
  rep.run.block = first.block;
  rep.run.dynamic_shared = first.dynamic_shared;
  rep.path = shown_path(o.file);
  rep.source = &source;
  rep.result = &result;
  rep.shown = o.shown;
  rep.program = app;
  for (const auto& l : launches) {
    rep.launches.push_back(l.index);
    if (!(l.grid == first.grid)) rep.grids_differ = true;
  }
  return print_fix_report(rep, o.patch, o.json, o.sarif);
}

}  // namespace

int fix_program_mode(int argc, char** argv, int dashdash) {
  Options o;
  CLI::App app{
      "smemlab fix FILE.cu --kernel K [options] -- APP [ARGS...]: find and prove a "
      "padding or swizzle for the shared arrays of a program's kernel"};
  app.name("smemlab fix");
  app.add_option("file", o.file, "the CUDA source of the kernel (.cu)")->required();
  app.add_option("--kernel", o.kernel, "the kernel, as named in FILE.cu")->required();
  app.add_option("-k,--kernel-name", o.kernel_regex,
                 "which launches: a regex over the launched kernels' names (demangled or "
                 "mangled); default: K's launches");
  app.add_option("--launch-skip", o.launch_skip, "skip the first N selected launches");
  app.add_option("--launch-count", o.launch_count, "use at most N selected launches");
  app.add_option("--nvcc-flags", o.nvcc_flags,
                 "the nvcc options the program's kernel was built with (-I, -D, -std, -O, ...; "
                 "the target is the program's PTX architecture)");
  app.add_option("--Xnvcc", o.xnvcc, "one more nvcc argument (repeatable)");
  app.add_option("--arch", o.archs,
                 "bank models, target first (the first is also the emulated device)")
      ->capture_default_str();
  app.add_option("--max-pad", o.max_pad, "padding tried: 1..N elements per row")
      ->capture_default_str();
  app.add_option("--prove", o.prove, "candidates proven per array, best first")
      ->capture_default_str();
  app.add_option("--show", o.shown, "candidates listed per array in the text output")
      ->capture_default_str();
  app.add_flag("--json", o.json, "JSON output: every candidate of every array");
  app.add_flag("--sarif", o.sarif, "SARIF 2.1.0 output with the verified change as `fixes`");
  app.add_flag("--patch", o.patch, "print the verified change as a unified diff (patch -p1)");
  app.footer(
      "Exit status: 0 nothing to fix or every conflicted array has a verified fix; 1 one has "
      "none; 2 usage or input error (FILE.cu not the kernel's source, K never launched, ...); 4 "
      "the program as built fails (a kernel fault, a crash).");
  if (int code = parse_options_before_dashdash(app, argv, dashdash); code >= 0) return code;
  std::vector<std::string> prog(argv + dashdash + 1, argv + argc);
  try {
    if (prog.empty()) throw UsageError("no program after '--'");
    if (int(o.json) + int(o.sarif) + int(o.patch) > 1)
      throw UsageError("--json, --sarif and --patch exclude each other");
    if (o.max_pad == 0 || o.max_pad > 64) throw UsageError("--max-pad: expected 1..64");
    return run_fix(o, prog);
  } catch (const UsageError& e) {
    fmt::print(stderr, "smemlab fix: error: {}\n", e.what());
    return kUsage;
  } catch (const ExitCode& e) {
    return e.code;
  } catch (const session::Interrupted&) {
    fmt::print(stderr, "smemlab: interrupted\n");
    return kInterrupted;
  }
}

}  // namespace smemlab::cli
