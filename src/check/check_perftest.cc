// Cost of checking and analyzing over plain emulation (issue 10: `check` at
// most 3x `run`; issue 14: `analyze --blocks all` at most 2x): the same
// launch of a suite kernel emulated with no observer (what `run` does), with
// the bank + memory-access analyses (what `analyze --blocks all` runs), with
// the DefectCheck observer (what `check` runs), and with all three (`analyze
// --check`). Launches are the
// kernels' own `// smemlab:` recipes in kernels/*.cu (nvcc compiles them
// once, outside the timed loop), larger launches of the same kernels, and
// looping kernels (many iterations per thread). One host thread, so the
// numbers are per-core cost. After the runs, a table gives each mode's time
// as a ratio to plain emulation of the same launch, timed in pairs (each
// launch of a mode beside a plain one), so that a shared machine's drift
// in speed does not enter the ratio.
// Results are recorded in docs/check-cost.md.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "bank/bank.h"
#include "check/access_stats.h"
#include "check/bank_stats.h"
#include "check/defects.h"
#include "check/observer_set.h"
#include "session/launch_spec.h"

namespace smemlab::check {
namespace {

// kEvents: an observer that ignores every event, so what the emulator itself
// spends on reporting events (building each MemAccess) is told apart from
// what the analyses spend on them.
enum Mode { kNone, kBankAccess, kDefects, kAll, kEvents };

struct IgnoreEvents final : emu::KernelObserver {
  std::unique_ptr<emu::BlockObserver> make_block_observer(emu::Dim3) override {
    return std::make_unique<emu::BlockObserver>();
  }
};

// CPU time of the calling thread, in seconds.
double thread_cpu() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// SMEMLAB_KERNELS_DIR in the environment overrides the build-time path.
std::string kernel_file(const char* name) {
  const char* dir = std::getenv("SMEMLAB_KERNELS_DIR");
  return std::string(dir ? dir : SMEMLAB_KERNELS_DIR) + "/" + name;
}

// As `smemlab check` builds it (src/cli/analysis_run.cc).
MemoryLayout layout_of(const emu::Program& prog) {
  MemoryLayout l;
  for (const auto& v : prog.shared_vars) l.shared.push_back({v.name, v.offset, v.size});
  l.dynamic_offset = prog.static_shared;
  l.frame_bytes = prog.frame_bytes;
  return l;
}

// `launch` empty: the file's recipe for the kernel; else grid, block and args
// of a larger launch, to separate per-launch set-up from per-access cost.
struct Launch {
  std::string grid, block;
  std::vector<std::string> args;
};

void run_options(benchmark::State& state, session::LaunchOptions o) {
  auto mode = static_cast<Mode>(state.range(0));
  o.threads = 1;
  session::Prepared p;
  try {
    session::prepare_launch(o, &p);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  const emu::Program& prog = p.module->kernel(p.kernel);
  uint64_t warp_instr = 0, findings = 0;
  // Plain emulation of the same launch, run beside each timed launch of
  // another mode (before it on even iterations, after it on odd ones) with
  // the timer paused: each pair's ratio of CPU times is taken over the same
  // short stretch of time, so the drift of a shared machine's speed (up to
  // 1.6x within seconds on the VMs measured) cancels out; the median of the
  // pairs' ratios drops the pairs a neighbour's burst split.
  std::vector<double> ratios;
  double plain_cpu = 0;
  uint64_t iteration = 0;
  auto plain = [&] {
    state.PauseTiming();
    double t0 = thread_cpu();
    emu::LaunchConfig cfg = p.config;
    cfg.observer = nullptr;
    emu::launch_raw(*p.module, p.kernel, cfg, p.args.bytes);
    plain_cpu = thread_cpu() - t0;
    state.ResumeTiming();
  };
  for (auto _ : state) {
    bool paired = mode != kNone, before = iteration++ % 2 == 0;
    if (paired && before) plain();
    double t0 = thread_cpu();
    // Fresh analyses per launch: they accumulate, and setting them up is
    // part of what checking costs.
    std::vector<std::unique_ptr<bank::Model>> models;
    models.push_back(bank::make_model("sm_90"));
    BankAnalysis banks(std::move(models));
    AccessAnalysis access;
    DefectCheck defects(layout_of(prog));
    ObserverSet set;
    if (mode == kBankAccess || mode == kAll) {
      set.add(&banks);
      set.add(&access);
    }
    if (mode == kDefects || mode == kAll) set.add(&defects);
    IgnoreEvents ignore;
    if (mode == kEvents) set.add(&ignore);
    emu::LaunchConfig cfg = p.config;
    cfg.observer = mode == kNone ? nullptr : &set;
    auto st = emu::launch_raw(*p.module, p.kernel, cfg, p.args.bytes);
    double mode_cpu = thread_cpu() - t0;
    if (!st.ok()) {
      state.SkipWithError(st.error->what().c_str());
      return;
    }
    warp_instr += st.warp_instructions;
    findings += defects.findings().size();
    if (paired && !before) plain();
    if (paired && plain_cpu > 0) ratios.push_back(mode_cpu / plain_cpu);
  }
  if (!ratios.empty()) {
    std::nth_element(ratios.begin(), ratios.begin() + ratios.size() / 2, ratios.end());
    state.counters["paired"] = ratios[ratios.size() / 2];
  }
  state.counters["warp_instr/s"] =
      benchmark::Counter(static_cast<double>(warp_instr), benchmark::Counter::kIsRate);
  // The suite is clean: a finding here means the benchmark measures a
  // different path than a clean `smemlab check`.
  state.counters["findings"] = static_cast<double>(findings);
}

void run(benchmark::State& state, const char* file, const char* kernel, const Launch& launch = {}) {
  session::LaunchOptions o;
  o.file = kernel_file(file);
  o.kernel = kernel;
  o.grid = launch.grid;
  o.block = launch.block;
  o.args = launch.args;
  run_options(state, o);
}

// A kernel of the suite at its recipe. Each file is compiled once (nvcc,
// outside the timed loops) and its PTX run with the recipe's launch flags.
void run_recipe(benchmark::State& state, const std::string& file, const std::string& kernel) {
  static std::map<std::string, std::unique_ptr<session::PreparedInput>> compiled;
  auto& in = compiled[file];
  session::LaunchOptions o;
  o.file = file;
  o.kernel = kernel;
  try {
    if (!in) {
      in = std::make_unique<session::PreparedInput>();
      session::prepare_input(o, in.get());
    }
    session::apply_recipe(o, *in);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  o.file = in->ptx_path;
  run_options(state, o);
}

// Every kernel of kernels/*.cu at its first recipe, as `check` and
// `analyze` (modes 0-3, 1-3 each paired with plain emulation): the "every
// suite kernel" of issue 10's target. Registered from the files' text.
// SMEMLAB_PERF_ITERATIONS=N: every benchmark runs exactly N iterations, so
// that instruction counts (callgrind) of two modes or two builds compare.
void fixed_iterations(benchmark::internal::Benchmark* b) {
  if (const char* n = std::getenv("SMEMLAB_PERF_ITERATIONS"); n && std::atoi(n) > 0)
    b->Iterations(std::atoi(n));
}

void register_recipes() {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(kernel_file(""), ec))
    if (e.path().extension() == ".cu" && e.path().filename().string()[0] != '.')
      files.push_back(e.path());  // (not `smemlab fix`'s hidden copies)
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    std::set<std::string> seen;
    for (const session::Recipe& r : session::read_recipes(f.string())) {
      std::string kernel = r.kernel();
      if (kernel.empty() || !seen.insert(kernel).second) continue;
      std::string name = "BM_recipe/" + f.stem().string() + "/" + kernel;
      benchmark::RegisterBenchmark(
          name.c_str(),
          [file = f.string(), kernel](benchmark::State& s) { run_recipe(s, file, kernel); })
          ->ArgName("mode")
          ->Arg(kNone)
          ->Arg(kBankAccess)
          ->Arg(kDefects)
          ->Arg(kAll)
          ->Unit(benchmark::kMicrosecond)
          ->UseRealTime()
          ->Apply(fixed_iterations);
    }
  }
}

void BM_transposeCoalesced(benchmark::State& s) { run(s, "transpose.cu", "transposeCoalesced"); }
void BM_reduce_shuffle(benchmark::State& s) { run(s, "reduction.cu", "reduce_shuffle"); }
void BM_matmul_tiled16(benchmark::State& s) { run(s, "matmul.cu", "matmul_tiled16"); }
void BM_setRowReadCol(benchmark::State& s) { run(s, "tiles.cu", "setRowReadCol"); }

// Larger launches (16x-64x the recipes' blocks).
void BM_transposeCoalesced_512(benchmark::State& s) {
  run(s, "transpose.cu", "transposeCoalesced",
      {"16,16", "32,8", {"float[262144]=random(1)", "float[262144]=zeros", "int=512", "int=512"}});
}
void BM_reduce_shuffle_256k(benchmark::State& s) {
  run(s, "reduction.cu", "reduce_shuffle",
      {"512", "256", {"float[262144]=random(1)", "float[512]=zeros", "int=262144"}});
}
void BM_matmul_tiled16_256(benchmark::State& s) {
  run(s, "matmul.cu", "matmul_tiled16",
      {"16,16",
       "16,16",
       {"float[65536]=random(1)", "float[65536]=random(2)", "float[65536]=zeros", "int=256",
        "int=256", "int=256"}});
}
void BM_setRowReadCol_64(benchmark::State& s) {
  run(s, "tiles.cu", "setRowReadCol", {"64", "32,32", {"int[65536]=zeros"}});
}

// Looping kernels: a grid-stride reduction over 1 M floats with 2 blocks
// (about 64 iterations per thread), and the tiled matmul over a long K.
void BM_reduce_grid_stride_u8_1m(benchmark::State& s) {
  run(s, "reduction.cu", "reduce_grid_stride_u8",
      {"2",
       "256",
       {"float[1048576]=random(1)", "float[2]=zeros", "int[1]=zeros", "float[1]=zeros",
        "int=1048576"}});
}
void BM_matmul_tiled16_k2048(benchmark::State& s) {
  run(s, "matmul.cu", "matmul_tiled16",
      {"2,2",
       "16,16",
       {"float[65536]=random(1)", "float[65536]=random(2)", "float[1024]=zeros", "int=32", "int=32",
        "int=2048"}});
}

void modes(benchmark::internal::Benchmark* b) {
  b->ArgName("mode")->Arg(kNone)->Arg(kBankAccess)->Arg(kDefects)->Arg(kAll)->Arg(kEvents);
  b->Unit(benchmark::kMicrosecond)->UseRealTime();
  fixed_iterations(b);
}

BENCHMARK(BM_transposeCoalesced)->Apply(modes);
BENCHMARK(BM_reduce_shuffle)->Apply(modes);
BENCHMARK(BM_matmul_tiled16)->Apply(modes);
BENCHMARK(BM_setRowReadCol)->Apply(modes);
BENCHMARK(BM_transposeCoalesced_512)->Apply(modes);
BENCHMARK(BM_reduce_shuffle_256k)->Apply(modes);
BENCHMARK(BM_matmul_tiled16_256)->Apply(modes);
BENCHMARK(BM_setRowReadCol_64)->Apply(modes);
BENCHMARK(BM_reduce_grid_stride_u8_1m)->Apply(modes);
BENCHMARK(BM_matmul_tiled16_k2048)->Apply(modes);

// The console output, then one line per launch: each mode's time over plain
// emulation's (median when --benchmark_repetitions is given). CPU time of
// the benchmark thread, which runs the whole launch (threads = 1): on a
// shared machine it does not count the time other processes hold the core.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      if (r.error_occurred) continue;
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name != "median") continue;
      // "BM_x/mode:3/real_time[_median]" -> launch "BM_x", mode 3.
      std::string name = r.benchmark_name();
      auto at = name.find("/mode:");
      if (at == std::string::npos) continue;
      int mode = std::atoi(name.c_str() + at + 6);
      auto& slot = times_[name.substr(0, at)];
      if (r.run_type == Run::RT_Aggregate || !slot.count(mode)) {
        slot[mode] = r.GetAdjustedCPUTime();
        auto c = r.counters.find("paired");
        if (c != r.counters.end()) paired_[name.substr(0, at)][mode] = c->second.value;
      }
    }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    std::printf(
        "\nCPU time per launch over plain emulation (run = mode 0), in microseconds; the ratio\n"
        "in parentheses is paired (each launch of the mode beside a plain one, see run()):\n");
    std::printf("%-32s %12s %17s %17s %17s %17s\n", "launch", "run (us)", "analyze", "check",
                "analyze --check", "events only");
    for (const auto& [launch, t] : times_) {
      // (Without mode 0 in the run, only the paired ratios are shown.)
      double base = t.count(kNone) ? t.at(kNone) : NAN;
      std::printf("%-32s %12.1f", launch.c_str(), base);
      for (int m : {kBankAccess, kDefects, kAll, kEvents}) {
        const auto& pr = paired_[launch];
        if (t.count(m))
          std::printf(" %9.1f (%4.2fx)", t.at(m), pr.count(m) ? pr.at(m) : t.at(m) / base);
        else
          std::printf(" %17s", "-");
      }
      std::printf("\n");
    }
    // The targets are per launch: the worst of each mode says whether all meet them.
    std::printf("\nWorst paired ratio per mode:\n");
    for (int m : {kBankAccess, kDefects, kAll, kEvents}) {
      double worst = 0;
      std::string at;
      for (const auto& [launch, pr] : paired_)
        if (pr.count(m) && pr.at(m) > worst) {
          worst = pr.at(m);
          at = launch;
        }
      if (!at.empty()) std::printf("  mode %d: %.2fx (%s)\n", m, worst, at.c_str());
    }
  }

 private:
  std::map<std::string, std::map<int, double>> times_, paired_;
};

}  // namespace
}  // namespace smemlab::check

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  smemlab::check::register_recipes();
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  smemlab::check::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
