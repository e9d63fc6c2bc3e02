#include <fmt/core.h>

#include <exception>

#include "cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"smemlab: GPU shared-memory bank conflicts, kernels and checks, with or without a GPU"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "smemlab 0.1.0");
  using namespace smemlab::cli;
  add_bank_command(app);
#ifdef SMEMLAB_HAVE_RUN
  add_run_command(app);
  add_analyze_command(app);
  add_check_command(app);
  add_report_command(app);
#endif
#ifdef SMEMLAB_HAVE_FIX
  add_fix_command(app);
#endif
#ifdef SMEMLAB_HAVE_BENCH
  add_bench_command(app);
#endif
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kOk : kUsage;
  } catch (const ExitCode& e) {
    return e.code;
  } catch (const std::exception& e) {
    fmt::print(stderr, "smemlab: error: {}\n", e.what());
    return kUsage;
  }
  return kOk;
}
