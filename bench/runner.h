// The `smemlab bench` runner: picks benchmarks from the registry, runs the
// anchors they are compared with first, prints the table and optional JSON.
// bench_command.cc is a thin CLI wrapper around run_benchmarks().
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bench/bench.h"

namespace smemlab::bench {

struct RunOptions {
  bool list = false;         // print "name  description" lines and stop
  std::string filter;        // substring or ECMAScript regex on names ("" = all)
  std::string json_path;     // "" = no JSON, "-" = stdout
  int reps = 25;             // timed runs per benchmark (>= 20)
  uint64_t seed = 0;         // every benchmark's inputs derive from it and its name
  bool quick = false;        // smaller problem sizes
  bool verify_only = false;  // verify each benchmark, skip the timing (ms = 0)
  bool anchors = true;       // run the anchors the selection needs (off: e.g. under a sanitizer)
  // Set (`--predict`): each verified result with a recipe gets the time
  // model's prediction, printed beside the measured time and in the JSON.
  std::function<Predicted(const LaunchRecipe&)> predict;
};

// Indices into `all` of the benchmarks whose names match `filter`: a name
// matches when it contains the filter as a substring or, when the filter is a
// valid regex, when the regex matches part of the name. "" selects all.
std::vector<size_t> select_benchmarks(const std::vector<Benchmark>& all, const std::string& filter);

// Anchors that the non-anchor benchmarks named in `names` will be compared
// with, predicted from their names (topic and trailing size), in run order.
// A benchmark whose result names another anchor gets it run afterwards.
std::vector<std::string> predicted_anchors(const std::vector<std::string>& names,
                                           const std::vector<Benchmark>& all);

// Runs the command; returns the process exit code (0 ok, 1 a verification
// failed, 3 no CUDA device). Prints to stdout; errors to stderr.
int run_benchmarks(const RunOptions& opt);

}  // namespace smemlab::bench
