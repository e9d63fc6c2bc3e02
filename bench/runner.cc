// `smemlab bench`: selection, anchors first, verification, table and JSON.
#include "bench/runner.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

namespace smemlab::bench {

namespace {

bool is_anchor(const std::string& name) { return name.rfind("anchor/", 0) == 0; }

std::string topic_of(const std::string& name) { return name.substr(0, name.find('/')); }

// The last '/'-separated component when it is all digits, else "".
std::string trailing_number(const std::string& name) {
  const auto slash = name.rfind('/');
  const std::string last = slash == std::string::npos ? name : name.substr(slash + 1);
  if (last.empty() ||
      !std::all_of(last.begin(), last.end(), [](unsigned char c) { return std::isdigit(c) != 0; }))
    return "";
  return last;
}

struct DeviceInfo {
  std::string name;
  int cc_major = 0, cc_minor = 0, sms = 0;
  int driver = 0, runtime = 0;
  int sm_clock_mhz = 0, mem_clock_mhz = 0, mem_bus_bits = 0;
  size_t l2_bytes = 0, global_bytes = 0, smem_per_sm = 0, smem_optin = 0;
  std::string date;
  std::string kernel_driver;  // e.g. "580.159.04" from /proc/driver/nvidia/version
};

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

DeviceInfo device_info(const cudaDeviceProp& p, int dev) {
  DeviceInfo d;
  d.name = p.name;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sms = p.multiProcessorCount;
  cudaDriverGetVersion(&d.driver);
  cudaRuntimeGetVersion(&d.runtime);
  int khz = 0;
  // The clock fields left cudaDeviceProp in CUDA 13; the attributes remain.
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev) == cudaSuccess)
    d.sm_clock_mhz = khz / 1000;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, dev) == cudaSuccess)
    d.mem_clock_mhz = khz / 1000;
  cudaDeviceGetAttribute(&d.mem_bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev);
  cudaGetLastError();  // an unsupported attribute must not poison the first benchmark
  d.l2_bytes = p.l2CacheSize;
  d.global_bytes = p.totalGlobalMem;
  d.smem_per_sm = p.sharedMemPerMultiprocessor;
  d.smem_optin = p.sharedMemPerBlockOptin;
  d.date = utc_now();
  // The kernel-module version, read without NVML: the first dotted number
  // on the "NVRM version: ... Kernel Module [for x86_64]  580.159.04 ..." line.
  std::ifstream proc("/proc/driver/nvidia/version");
  std::string line;
  if (std::getline(proc, line)) {
    std::istringstream words(line);
    std::string w;
    const std::regex version(R"(\d+\.\d+(\.\d+)*)");
    while (words >> w)
      if (std::regex_match(w, version)) {
        d.kernel_driver = w;
        break;
      }
  }
  return d;
}

std::string version_string(int v) { return fmt::format("{}.{}", v / 1000, (v % 1000) / 10); }

struct Row {
  const Benchmark* bench = nullptr;
  Result r;
  double pct = NAN;  // percent of the anchor's rate, NaN when none
};

double gbps(const Result& r) { return r.ms > 0 && r.bytes > 0 ? r.bytes / (r.ms * 1e6) : NAN; }
double gflops(const Result& r) { return r.ms > 0 && r.flops > 0 ? r.flops / (r.ms * 1e6) : NAN; }

// Rate of `r` relative to its anchor `a`, in percent: FLOP/s when both count
// flops, else bytes/s (for a reduction of the same N, the time ratio).
double percent_of(const Result& r, const Result& a) {
  if (r.flops > 0 && a.flops > 0) return 100.0 * gflops(r) / gflops(a);
  if (r.bytes > 0 && a.bytes > 0) return 100.0 * gbps(r) / gbps(a);
  return NAN;
}

uint64_t name_hash(const std::string& s) {  // FNV-1a: stable across runs and builds
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

Result run_one(const Benchmark& b, const RunOptions& opt, const cudaDeviceProp& prop) {
  Context ctx;
  ctx.prop = prop;
  ctx.rng.seed(opt.seed ^ name_hash(b.name));
  ctx.reps = opt.reps;
  ctx.quick = opt.quick;
  ctx.verify_only = opt.verify_only;
  Result r;
  try {
    r = b.run(ctx);
    if (!r.verified && r.error.empty()) r.error = "not verified";
    if (opt.predict && r.verified && !r.recipe.kernel.empty()) r.predicted = opt.predict(r.recipe);
  } catch (const std::exception& e) {
    r = Result{};
    r.verified = false;
    r.error = e.what();
    // A sticky error (e.g. an illegal address) would fail every later
    // benchmark; resetting the device gives them a fresh context.
    if (cudaDeviceSynchronize() != cudaSuccess) cudaDeviceReset();
    cudaGetLastError();
  }
  return r;
}

std::string fmt_num(double v, int prec) {
  if (std::isnan(v)) return "-";
  return fmt::format("{:.{}f}", v, prec);
}

constexpr const char* kRowFormat =
    "{:<44} {:>10} {:>9} {:>9} {:>7} {:>4} {:>13} {:>6} {:>5} {:>3}  {}\n";

void print_header(std::FILE* out) {
  fmt::print(out, kRowFormat, "benchmark", "ms", "GB/s", "GFLOP/s", "%anch", "regs", "smem st+dyn",
             "blk/SM", "occ", "ok", "note");
}

void print_row(std::FILE* out, const Row& row) {
  const Result& r = row.r;
  const KernelInfo& k = r.info;
  const bool has_kernel = k.block_threads > 0;
  std::string note = r.verified ? r.note : r.error;
  const auto nl = note.find('\n');
  if (nl != std::string::npos) note = note.substr(0, nl) + " (more below)";
  fmt::print(out, kRowFormat, row.bench->name, fmt_num(r.ms, 4), fmt_num(gbps(r), 1),
             fmt_num(gflops(r), 1), fmt_num(row.pct, 1),
             has_kernel ? std::to_string(k.registers) : "-",
             has_kernel ? fmt::format("{}+{}", k.static_smem, k.dynamic_smem) : "-",
             has_kernel ? std::to_string(k.blocks_per_sm) : "-",
             has_kernel ? fmt_num(k.occupancy, 2) : "-", r.verified ? "yes" : "NO", note);
  std::fflush(out);
}

// The prediction's line under its row: predicted beside measured.
void print_predicted(std::FILE* out, const Result& r) {
  if (r.recipe.kernel.empty() || !r.verified) return;
  const Predicted& p = r.predicted;
  if (!p.made) {
    if (!p.why_not.empty()) fmt::print(out, "  no time predicted: {}\n", p.why_not);
    return;
  }
  fmt::print(out,
             "  predicted {:.1f} us on an {} (limited by {}), measured {:.1f} us: "
             "predicted/measured {:.2f}\n",
             p.duration_ns / 1e3, p.gpu, p.limiter, r.ms * 1e3, p.duration_ns / (r.ms * 1e6));
  std::fflush(out);
}

nlohmann::json predicted_json(const Result& r) {
  const Predicted& p = r.predicted;
  if (r.recipe.kernel.empty()) return nullptr;
  if (!p.made) return {{"why_not", p.why_not}};
  return {{"duration_ns", p.duration_ns},
          {"limiter", p.limiter},
          {"gpu", p.gpu},
          {"ratio", r.ms > 0 ? p.duration_ns / (r.ms * 1e6) : 0.0}};
}

// The predictions' error over the rows that have one: |predicted/measured - 1|.
void print_predicted_summary(std::FILE* out, const std::vector<Row>& rows) {
  std::vector<double> err;
  for (const Row& row : rows)
    if (row.r.predicted.made && row.r.ms > 0)
      err.push_back(std::abs(row.r.predicted.duration_ns / (row.r.ms * 1e6) - 1));
  if (err.empty()) return;
  std::sort(err.begin(), err.end());
  fmt::print(out,
             "predicted beside measured: {} benchmarks, |predicted/measured - 1| median {:.1f}%, "
             "max {:.1f}%\n",
             err.size(), 50 * (err[(err.size() - 1) / 2] + err[err.size() / 2]), 100 * err.back());
}

// Multi-line notes (e.g. the memory-hierarchy table) in full, after the rows.
void print_notes(std::FILE* out, const std::vector<Row>& rows) {
  for (const auto& row : rows) {
    const std::string& note = row.r.verified ? row.r.note : row.r.error;
    if (note.find('\n') == std::string::npos) continue;
    fmt::print(out, "\n{}:\n{}\n", row.bench->name, note);
  }
}

nlohmann::json to_json(const std::vector<Row>& rows, const DeviceInfo& d, const RunOptions& opt) {
  auto num = [](double v) { return std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v); };
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& row : rows) {
    const Result& r = row.r;
    arr.push_back({
        {"name", row.bench->name},
        {"description", row.bench->description},
        {"verified", r.verified},
        {"error", r.error},
        {"ms", r.ms},
        {"samples_ms", r.samples_ms},
        {"bytes", r.bytes},
        {"flops", r.flops},
        {"gb_per_s", num(gbps(r))},
        {"gflop_per_s", num(gflops(r))},
        {"anchor", r.anchor},
        {"percent_of_anchor", num(row.pct)},
        {"registers", r.info.registers},
        {"static_smem", r.info.static_smem},
        {"dynamic_smem", r.info.dynamic_smem},
        {"block_threads", r.info.block_threads},
        {"blocks_per_sm", r.info.blocks_per_sm},
        {"occupancy", r.info.occupancy},
        {"note", r.note},
        {"predicted", predicted_json(r)},
        {"device", d.name},
        {"compute_capability", fmt::format("{}.{}", d.cc_major, d.cc_minor)},
        {"sms", d.sms},
        {"driver", d.kernel_driver},
        {"cuda_driver_api", version_string(d.driver)},
        {"runtime", version_string(d.runtime)},
        {"sm_clock_mhz", d.sm_clock_mhz},
        {"mem_clock_mhz", d.mem_clock_mhz},
        {"date", d.date},
        {"seed", opt.seed},
        {"reps", opt.reps},
        {"quick", opt.quick},
        {"verify_only", opt.verify_only},
    });
  }
  return arr;
}

}  // namespace

std::vector<size_t> select_benchmarks(const std::vector<Benchmark>& all,
                                      const std::string& filter) {
  std::vector<size_t> out;
  std::optional<std::regex> re;
  if (!filter.empty()) {
    try {
      re.emplace(filter, std::regex::ECMAScript);
    } catch (const std::regex_error&) {
      // Not a regex (e.g. "a[b"): substring matching alone.
    }
  }
  for (size_t i = 0; i < all.size(); ++i) {
    const std::string& n = all[i].name;
    if (filter.empty() || n.find(filter) != std::string::npos || (re && std::regex_search(n, *re)))
      out.push_back(i);
  }
  return out;
}

std::vector<std::string> predicted_anchors(const std::vector<std::string>& names,
                                           const std::vector<Benchmark>& all) {
  std::set<std::string> registered;
  std::vector<std::string> cub;
  for (const auto& b : all) {
    registered.insert(b.name);
    if (b.name.rfind("anchor/cub-reduce/", 0) == 0) cub.push_back(b.name);
  }
  std::vector<std::string> out;
  auto add = [&](const std::string& a) {
    if (registered.count(a) && std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
  };
  for (const auto& n : names) {
    if (is_anchor(n)) continue;
    const std::string topic = topic_of(n), num = trailing_number(n);
    if (topic == "matmul" || topic == "sgemm") {
      if (!num.empty()) add("anchor/cublas-sgemm/" + num);
    } else if (topic == "reduction" || topic == "reduce") {
      if (!num.empty() && registered.count("anchor/cub-reduce/" + num))
        add("anchor/cub-reduce/" + num);
      else if (!cub.empty())
        add(cub.front());
    } else {
      add(kCopyAnchor);
    }
  }
  return out;
}

int run_benchmarks(const RunOptions& opt) {
  auto& all = registry();
  // Topic order, registration order within a topic (stable across link order).
  std::vector<size_t> order(all.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return topic_of(all[a].name) < topic_of(all[b].name);
  });

  const std::vector<size_t> picked = select_benchmarks(all, opt.filter);
  if (opt.list) {
    std::set<size_t> chosen(picked.begin(), picked.end());
    for (size_t i : order)
      if (chosen.count(i)) fmt::print("{}  {}\n", all[i].name, all[i].description);
    return 0;
  }
  if (picked.empty()) {
    fmt::print(stderr, "smemlab bench: no benchmark matches '{}' (see --list)\n", opt.filter);
    return 2;
  }

  if (!opt.json_path.empty() && opt.json_path != "-" && !std::ofstream(opt.json_path)) {
    fmt::print(stderr, "smemlab bench: cannot write {}\n", opt.json_path);
    return 2;
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();
    fmt::print(stderr, "no CUDA device\n");
    return 3;
  }
  int dev = 0;
  cudaDeviceProp prop{};
  SMEMLAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
  const DeviceInfo d = device_info(prop, dev);
  // The table goes to stdout, one row as each benchmark ends (so a run cut
  // short still shows what it measured); to stderr when JSON takes stdout.
  std::FILE* table = opt.json_path == "-" ? stderr : stdout;
  fmt::print(table, "device: {} (sm_{}{}, {} SMs, L2 {} MiB, {} KiB shared/SM, max {} KiB/block)\n",
             d.name, d.cc_major, d.cc_minor, d.sms, d.l2_bytes >> 20, d.smem_per_sm >> 10,
             d.smem_optin >> 10);
  fmt::print(
      table,
      "driver: {}  CUDA driver API: {}  runtime: {}  clocks: SM {} MHz, memory {} MHz  date: {}\n",
      d.kernel_driver.empty() ? "?" : d.kernel_driver, version_string(d.driver),
      version_string(d.runtime), d.sm_clock_mhz, d.mem_clock_mhz, d.date);
  fmt::print(table, "seed: {}  reps: {}{}{}\n", opt.seed, opt.reps,
             opt.quick ? "  (quick sizes)" : "",
             opt.verify_only ? "  (verify only: no timing)" : "");
  std::fflush(table);

  std::set<size_t> chosen(picked.begin(), picked.end());
  std::vector<std::string> names;
  for (size_t i : picked) names.push_back(all[i].name);
  std::vector<size_t> run_order;
  std::map<std::string, size_t> by_name;
  for (size_t i = 0; i < all.size(); ++i) by_name[all[i].name] = i;
  if (opt.anchors)
    for (const auto& a : predicted_anchors(names, all)) run_order.push_back(by_name[a]);
  for (size_t i : order)
    if (chosen.count(i) && is_anchor(all[i].name) &&
        std::find(run_order.begin(), run_order.end(), i) == run_order.end())
      run_order.push_back(i);
  for (size_t i : order)
    if (chosen.count(i) && !is_anchor(all[i].name)) run_order.push_back(i);

  std::vector<Row> rows;
  std::map<std::string, size_t> done;  // name -> index in rows
  auto anchor_percent = [&](Row& row) {
    const std::string& a = row.r.anchor;
    if (a.empty()) return;
    auto it = done.find(a);
    if (it == done.end()) return;
    const Result& ar = rows[it->second].r;
    if (ar.verified) row.pct = percent_of(row.r, ar);
  };
  // Rewritten after every benchmark: a run that is stopped leaves valid JSON.
  auto write_json = [&]() -> bool {
    if (opt.json_path.empty() || opt.json_path == "-") return true;
    std::ofstream f(opt.json_path);
    f << to_json(rows, d, opt).dump(2) << "\n";
    return bool(f);
  };
  bool json_ok = true;
  auto run_index = [&](size_t i) {
    fmt::print(stderr, "running {}\n", all[i].name);
    Row row;
    row.bench = &all[i];
    row.r = run_one(all[i], opt, prop);
    anchor_percent(row);
    done[all[i].name] = rows.size();
    print_row(table, row);
    if (opt.predict) print_predicted(table, row.r);
    rows.push_back(std::move(row));
    json_ok = write_json() && json_ok;
  };
  print_header(table);
  for (size_t i : run_order) run_index(i);
  // Anchors named by a result but not predicted from the names: run them
  // now, then show the rows that could only now be compared.
  const size_t before_late = rows.size();
  for (size_t k = 0; k < before_late; ++k) {
    const std::string a = rows[k].r.anchor;
    if (opt.anchors && !a.empty() && !done.count(a) && by_name.count(a)) run_index(by_name[a]);
  }
  if (rows.size() > before_late) {
    fmt::print(table, "\ncompared with anchors run after them:\n");
    for (size_t k = 0; k < before_late; ++k)
      if (std::isnan(rows[k].pct) && !rows[k].r.anchor.empty()) {
        anchor_percent(rows[k]);
        if (!std::isnan(rows[k].pct)) print_row(table, rows[k]);
      }
  }
  for (auto& row : rows)
    if (!row.r.anchor.empty() && !by_name.count(row.r.anchor) && row.r.note.empty())
      row.r.note = "anchor " + row.r.anchor + " not registered";
  print_notes(table, rows);

  int failed = 0;
  for (const auto& row : rows) failed += !row.r.verified;
  if (opt.json_path == "-") std::cout << to_json(rows, d, opt).dump(2) << "\n";
  json_ok = write_json() && json_ok;
  if (!json_ok) {
    fmt::print(stderr, "smemlab bench: cannot write {}\n", opt.json_path);
    return 2;
  }
  print_predicted_summary(table, rows);
  fmt::print(table, "{} benchmarks, {} verified, {} failed\n", rows.size(), rows.size() - failed,
             failed);
  return failed ? 1 : 0;
}

}  // namespace smemlab::bench
