#include "report/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>

namespace smemlab::report {
namespace {

std::string duration(double s) {
  uint64_t n = static_cast<uint64_t>(std::ceil(s));
  if (n < 60) return fmt::format("{} s", n);
  if (n < 3600) return fmt::format("{} min {} s", n / 60, n % 60);
  return fmt::format("{} h {} min", n / 3600, n % 3600 / 60);
}

}  // namespace

std::string progress_text(const std::string& label, uint64_t done, uint64_t total, double seconds) {
  std::string s = fmt::format("{}: {}/{} blocks", label, done, total);
  if (seconds <= 0) return s;
  double rate = static_cast<double>(done) / seconds;
  s += fmt::format(", {:.0f} blocks/s", rate);
  // No estimate before the first block is done.
  if (rate > 0 && done < total)
    s += fmt::format(", {} left", duration(static_cast<double>(total - done) / rate));
  return s;
}

Progress terminal_progress(const std::string& label) {
  if (!isatty(STDERR_FILENO)) return {};
  auto start = std::chrono::steady_clock::now();
  auto last = start;
  bool shown = false;
  return [=](uint64_t done, uint64_t total, bool end) mutable {
    if (end) {
      if (shown) fmt::print(stderr, "\r\033[K");
      return;
    }
    auto now = std::chrono::steady_clock::now();
    double secs = std::chrono::duration<double>(now - start).count();
    if (secs < 1.0 || now - last < std::chrono::milliseconds(200)) return;
    last = now;
    shown = true;
    fmt::print(stderr, "\r\033[K{}", progress_text(label, done, total, secs));
    std::fflush(stderr);
  };
}

}  // namespace smemlab::report
