// `smemlab fix FILE.cu --kernel K [...] -- APP [ARGS...]`: fix in program
// mode — its flags, exit codes and output. The workflow (the program's runs,
// the search and the proof) is session/program_fix.h.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/launch_options.h"
#include "report/fix_report.h"
#include "session/program_fix.h"

namespace smemlab::cli {
namespace {

report::FixReport report_of(const session::ProgramFix& fix, const session::ProgramFixOptions& o,
                            const std::vector<std::string>& app, unsigned shown) {
  report::FixReport rep;
  rep.run.source = o.file;
  rep.run.kernel = demangle(fix.kernel);
  rep.run.mangled = fix.kernel;
  rep.run.grid = fix.grid;
  rep.run.block = fix.block;
  rep.run.dynamic_shared = fix.dynamic_shared;
  rep.path = shown_path(o.file);
  rep.source = &fix.source;
  rep.result = &fix.result;
  rep.shown = shown;
  rep.program = app;
  rep.launches = fix.launches;
  rep.grids_differ = fix.grids_differ;
  rep.swizzle_proposals = fix.swizzle_proposals;
  rep.swizzle_patch = fix.swizzle_patch;
  return rep;
}

}  // namespace

int fix_program_mode(int argc, char** argv, int dashdash) {
  session::ProgramFixOptions o;
  bool json = false, sarif = false, patch = false;
  unsigned shown = 8;
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
  app.add_option("--show", shown, "candidates listed per array in the text output")
      ->capture_default_str();
  app.add_flag("--json", json, "JSON output: every candidate of every array");
  app.add_flag("--sarif", sarif, "SARIF 2.1.0 output with the verified change as `fixes`");
  app.add_flag("--patch", patch, "print the verified change as a unified diff (patch -p1)");
  app.footer(
      "Exit status: 0 nothing to fix or every conflicted array has a verified fix; 1 one has "
      "none; 2 usage or input error (FILE.cu not the kernel's source, K never launched, ...); 4 "
      "the program as built fails (a kernel fault, a crash).");
  if (int code = parse_options_before_dashdash(app, argv, dashdash); code >= 0) return code;
  std::vector<std::string> prog(argv + dashdash + 1, argv + argc);
  try {
    if (prog.empty()) throw UsageError("no program after '--'");
    if (int(json) + int(sarif) + int(patch) > 1)
      throw UsageError("--json, --sarif and --patch exclude each other");
    if (o.max_pad == 0 || o.max_pad > 64) throw UsageError("--max-pad: expected 1..64");
    session::ProgramFix fix = session::fix_program(
        o, prog, [](const std::string& line) { fmt::print(stderr, "{}\n", line); });
    return print_fix_report(report_of(fix, o, prog, shown), patch, json, sarif);
  } catch (const session::ProgramFailed& e) {
    fmt::print(stderr, "smemlab fix: {}\n", e.what());
    return kRuntime;
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
