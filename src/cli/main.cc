#include <fmt/core.h>

#include <algorithm>
#include <exception>
#include <string>
#include <vector>

#include "cli/commands.h"
#ifdef SMEMLAB_HAVE_RUN
#include "session/interrupt.h"
#endif
#ifdef SMEMLAB_HAVE_PROGRAMS
#include "cli/program_command.h"
#include "session/program_protocol.h"
#endif

namespace smemlab::cli {

int parse_options_before_dashdash(CLI::App& app, char** argv, int dashdash) {
  std::vector<std::string> front(argv + 2, argv + dashdash);
  std::reverse(front.begin(), front.end());  // CLI11 takes a vector in reverse order
  try {
    app.parse(front);
  } catch (const CLI::ParseError& e) {
    int c = app.exit(e);
    return c == 0 ? kOk : kUsage;
  }
  return -1;
}

}  // namespace smemlab::cli

int main(int argc, char** argv) {
  CLI::App app{
      "smemlab: GPU shared-memory bank conflicts, kernels and checks, with or without a GPU"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "smemlab 0.1.0");
  using namespace smemlab::cli;
#ifdef SMEMLAB_HAVE_PROGRAMS
  // `smemlab run|analyze|check [options] -- APP [ARGS...]`: program mode.
  for (int i = 2; i < argc && argc > 1; ++i) {
    std::string cmd = argv[1];
    if (std::string(argv[i]) == "--" && smemlab::session::protocol::parse_mode(cmd))
      return program_main(argc, argv, i);
  }
#endif
#ifdef SMEMLAB_HAVE_FIX
  for (int i = 2; i < argc && std::string(argv[1]) == "fix"; ++i)
    if (std::string(argv[i]) == "--") return fix_program_mode(argc, argv, i);
#endif
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
#ifdef SMEMLAB_HAVE_RUN
  } catch (const smemlab::session::Interrupted&) {
    fmt::print(stderr, "smemlab: interrupted\n");  // unwinding removed the temporary files
    return kInterrupted;
#endif
  } catch (const std::exception& e) {
    fmt::print(stderr, "smemlab: error: {}\n", e.what());
    return kUsage;
  }
  return kOk;
}
