// `smemlab bank --batch FILE.tsv`: the input is the file. A bad row ends
// with a usage error (ExitCode), nothing else; rows and messages are
// printed to /dev/null while the harness runs.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <vector>

#include "bank/bank.h"
#include "cli/bank_input.h"
#include "cli/commands.h"
#include "fuzz/fuzz_main.h"

using namespace smemlab;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto models = bank::all_generations();
  static FILE* devnull = std::fopen("/dev/null", "w");
  static int fd = memfd_create("fuzz.tsv", 0);
  if (fd < 0 || !devnull) return 0;
  if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != static_cast<ssize_t>(size)) return 0;
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  const bank::Model& model = *models[size % models.size()];
  // Sanitizer reports go to file descriptor 2 directly, not through stderr.
  FILE* out = stdout;
  FILE* err = stderr;
  stdout = devnull;
  stderr = devnull;
  try {
    cli::run_batch(path, model);
  } catch (const cli::ExitCode& e) {
    if (e.code != cli::kUsage) std::abort();
  }
  stdout = out;
  stderr = err;
  return 0;
}
