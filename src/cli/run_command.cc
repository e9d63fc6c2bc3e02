// `smemlab run FILE.cu|FILE.ptx`: run one kernel in the PTX emulator with
// buffers made from --arg specs; --dump/--print show buffers afterwards.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>

#include "cli/analysis_run.h"
#include "cli/commands.h"
#include "cli/launch_options.h"
#include "emu/half.h"
#ifdef SMEMLAB_HAVE_GPU
#include "cli/gpu_run.h"
#include "cli/predict_launch.h"
#include "gpu/device_launch.h"
#include "report/timing.h"
#endif

namespace smemlab::cli {
namespace {

struct RunOptions {
  LaunchOptions launch;
  std::vector<std::string> dumps;
  std::vector<size_t> prints;
  bool gpu = false, compare = false, stats = false;
  int time = 0;
};

#ifdef SMEMLAB_HAVE_GPU
// The time model's prediction for the launch `o` describes (analyze's
// default blocks and level, counts only) beside the measured median.
std::string predicted_beside(const LaunchOptions& o, double measured_ns,
                             const std::string& device) {
  std::string why_not;
  std::optional<report::GpuPrediction> p = predict_flags(o, &why_not);
  if (!p) return "no time predicted: " + why_not;
  return report::predicted_vs_measured(*p, measured_ns, device);
}
#endif

// The same launch on the real GPU (before the emulator touches the buffers);
// with `timed` > 0, that many more launches are timed and summarized, with
// the time model's prediction beside the median.
std::vector<std::vector<uint8_t>> gpu_buffers(const Prepared& p, int timed,
                                              const LaunchOptions& o) {
#ifdef SMEMLAB_HAVE_GPU
  try {
    gpu::Outcome out = run_on_gpu(p, timed);
    if (!out.times_ms.empty()) {
      std::vector<float> t = out.times_ms;
      std::sort(t.begin(), t.end());
      fmt::print("{}: {} timed launches on {}: median {:.2f} us, min {:.2f} us, max {:.2f} us\n",
                 demangle(p.kernel), t.size(), out.device, 1000 * t[t.size() / 2], 1000 * t.front(),
                 1000 * t.back());
      fmt::print("{}: {}\n", demangle(p.kernel),
                 predicted_beside(o, 1e6 * t[t.size() / 2], out.device));
    }
    return std::move(out.buffers);
  } catch (const gpu::NoDevice& e) {
    fmt::print(stderr, "smemlab run: {}\n", e.what());
    throw ExitCode{kNoDevice};
  } catch (const gpu::Error& e) {
    fmt::print(stderr, "smemlab run: on the GPU: {}\n", e.what());
    throw ExitCode{kRuntime};
  }
#else
  (void)p;
  (void)timed;
  (void)o;
  throw UsageError("--gpu/--compare: this smemlab was built without CUDA");
#endif
}

std::string format_value(const ArgSpec& a, const uint8_t* p);

// Emulator vs GPU, buffer by buffer: bit-identical, or how far apart (in
// units in the last place for floats). Returns true when all are identical.
bool compare_buffers(const Prepared& p, const std::vector<std::vector<uint8_t>>& gpu) {
  bool same = true;
  for (size_t i = 0; i < p.specs.size(); ++i) {
    const ArgSpec& a = p.specs[i];
    if (!a.buffer) continue;
    std::vector<uint8_t> emu(a.count * a.elem_size);
    p.device.copy_from(emu.data(), p.args.buffer[i], emu.size());
    uint64_t differ = 0, first = 0, max_ulp = 0;
    for (uint64_t k = 0; k < a.count; ++k) {
      const uint8_t* x = emu.data() + k * a.elem_size;
      const uint8_t* y = gpu[i].data() + k * a.elem_size;
      if (std::memcmp(x, y, a.elem_size) == 0) continue;
      if (!differ++) first = k;
      if (a.is_float && a.elem_size == 4) {
        int32_t u, v;
        std::memcpy(&u, x, 4);
        std::memcpy(&v, y, 4);
        // Map the sign-magnitude bit patterns to a monotonic integer line.
        int64_t mu = u < 0 ? int64_t{INT32_MIN} - u : u, mv = v < 0 ? int64_t{INT32_MIN} - v : v;
        max_ulp = std::max<uint64_t>(max_ulp, static_cast<uint64_t>(std::llabs(mu - mv)));
      }
    }
    if (!differ) {
      fmt::print("arg {} {}[{}]: bit-identical on the emulator and the GPU\n", i, a.type, a.count);
      continue;
    }
    same = false;
    fmt::print("arg {} {}[{}]: {} elements differ (first at index {}: emulator {}, GPU {}){}\n", i,
               a.type, a.count, differ, first, format_value(a, emu.data() + first * a.elem_size),
               format_value(a, gpu[i].data() + first * a.elem_size),
               max_ulp ? fmt::format(", at most {} ulp apart", max_ulp) : "");
  }
  return same;
}

size_t buffer_index(const Prepared& p, size_t i, const char* what) {
  if (i >= p.specs.size() || !p.specs[i].buffer)
    throw UsageError(fmt::format("{} {}: argument {} is not a buffer", what, i, i));
  return i;
}

std::vector<uint8_t> read_buffer(const Prepared& p, size_t i) {
  const ArgSpec& a = p.specs[i];
  std::vector<uint8_t> data(a.count * a.elem_size);
  p.device.copy_from(data.data(), p.args.buffer[i], data.size());
  return data;
}

std::string format_value(const ArgSpec& a, const uint8_t* p) {
  if (a.half) {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return fmt::format("{}", a.bf16 ? emu::bf16_to_float(h) : emu::half_to_float(h));
  }
  if (a.pointer) {
    uint64_t u;
    std::memcpy(&u, p, 8);
    return fmt::format("0x{:x}", u);
  }
  if (a.is_float) {
    if (a.elem_size == 4) {
      float f;
      std::memcpy(&f, p, 4);
      return fmt::format("{}", f);
    }
    double d;
    std::memcpy(&d, p, 8);
    return fmt::format("{}", d);
  }
  uint64_t u = 0;
  std::memcpy(&u, p, a.elem_size);
  if (a.is_signed && a.elem_size < 8 && (u >> (a.elem_size * 8 - 1)) & 1)
    u |= ~0ull << (a.elem_size * 8);
  return a.is_signed ? fmt::format("{}", static_cast<int64_t>(u)) : fmt::format("{}", u);
}

void run(RunOptions& o) {
  Prepared p;
  prepare_launch_with_progress(o.launch, &p);
  std::vector<std::pair<size_t, std::string>> dumps;
  for (const auto& d : o.dumps) {
    size_t eq = d.find('=');
    if (eq == std::string::npos)
      throw UsageError(fmt::format("bad --dump '{}': expected I=PATH", d));
    size_t i;
    std::string index = d.substr(0, eq);
    try {
      size_t pos = 0;
      if (index.empty() || !std::isdigit(static_cast<unsigned char>(index[0])))
        throw std::invalid_argument(index);
      i = std::stoul(index, &pos);
      if (pos != index.size()) throw std::invalid_argument(index);
    } catch (const std::exception&) {
      throw UsageError(fmt::format("bad --dump '{}': expected I=PATH", d));
    }
    dumps.push_back({buffer_index(p, i, "--dump"), d.substr(eq + 1)});
  }
  for (size_t i : o.prints) buffer_index(p, i, "--print");

  std::vector<std::vector<uint8_t>> gpu;
  if (o.time > 0 && !o.gpu && !o.compare)
    throw UsageError("--time needs --gpu or --compare: only the GPU's launches are timed");
  if (o.gpu || o.compare) gpu = gpu_buffers(p, o.time, o.launch);
  auto buffer = [&](size_t i) { return o.gpu ? gpu[i] : read_buffer(p, i); };
  if (o.gpu) fmt::print("{}: ran on the GPU\n", demangle(p.kernel));

  auto t0 = std::chrono::steady_clock::now();
  emu::LaunchStatus st;
  if (!o.gpu) st = emu::launch_raw(*p.module, p.kernel, p.config, p.args.bytes);
  stop_if_interrupted();
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto& c = p.config;
  if (!st.ok()) {
    fmt::print(stderr, "smemlab run: {}: {}\n", demangle(p.kernel), st.error->what());
    throw ExitCode{exit_status(st.error->kind)};
  }
  if (!o.gpu)
    fmt::print(
        "{}: grid ({},{},{}) block ({},{},{}) shared {}+{} B: ok, {} warp-instructions in {:.3f} "
        "s\n",
        demangle(p.kernel), c.grid.x, c.grid.y, c.grid.z, c.block.x, c.block.y, c.block.z,
        p.module->kernel(p.kernel).static_shared, c.dynamic_shared, st.warp_instructions, secs);
  if (o.stats && !o.gpu)
    fmt::print(
        stderr,
        "smemlab run: stats: {} warp-instructions in {:.3f} s ({:.1f} M warp-instructions/s) "
        "on {} host thread{}\n",
        st.warp_instructions, secs, secs > 0 ? st.warp_instructions / secs / 1e6 : 0.0, st.threads,
        st.threads == 1 ? "" : "s");
  for (const auto& [i, path] : dumps) {
    auto data = buffer(i);
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(data.data()),
              static_cast<std::streamsize>(data.size()));
    if (!out) throw UsageError(fmt::format("--dump: cannot write {}", path));
  }
  for (size_t i : o.prints) {
    const ArgSpec& a = p.specs[i];
    auto data = buffer(i);
    fmt::print("arg {} {}[{}]:", i, a.type, a.count);
    for (uint64_t k = 0; k < a.count; ++k)
      fmt::print(" {}", format_value(a, data.data() + k * a.elem_size));
    fmt::print("\n");
  }
  if (o.compare && !compare_buffers(p, gpu)) throw ExitCode{kFindings};
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto opts = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Run a CUDA kernel on the CPU in the PTX emulator");
  add_launch_options(cmd, opts->launch);
  cmd->add_option("--dump", opts->dumps,
                  "write buffer argument I (0-based) raw to PATH after the run: I=PATH");
  cmd->add_option("--print", opts->prints, "print buffer argument I after the run");
  cmd->add_flag(
      "--gpu", opts->gpu,
      "run the same launch (same PTX, same argument bytes) on the real GPU instead (exit 3 "
      "without a CUDA device)");
  cmd->add_flag("--stats", opts->stats,
                "print warp-instructions executed, wall time, rate and host threads on stderr");
  cmd->add_flag(
      "--compare", opts->compare,
      "run on the GPU and in the emulator and compare every buffer (exit 1 if any differs)");
  cmd->add_option("--time", opts->time,
                  "with --gpu/--compare: after the checked launch, time N more launches of the "
                  "same arguments with CUDA events and print median/min/max, and the time "
                  "model's predicted duration beside the median (docs/timing.md)")
      ->check(CLI::Range(1, 100000));
  cmd->footer(
      "Without launch flags, a `// smemlab: --kernel ... --grid ... --arg ...` line in the file is "
      "used.\n"
      "Exit codes: 0 ok, 1 --compare found a difference, 2 usage or input error (incl. PTX "
      "errors), 3 no "
      "CUDA device (--gpu, --compare), 4 the kernel failed.");
  cmd->callback([opts]() {
    try {
      run(*opts);
    } catch (const UsageError& e) {
      fmt::print(stderr, "smemlab run: error: {}\n", e.what());
      throw ExitCode{kUsage};
    } catch (const emu::DecodeError& e) {
      fmt::print(stderr, "smemlab run: error: {}\n", e.what());
      throw ExitCode{kUsage};
    }
  });
}

}  // namespace smemlab::cli
