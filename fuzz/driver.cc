// A deterministic mutation driver for the fuzz harnesses, used where
// libFuzzer is not linked (the default and asan builds, so CI runs them as
// ordinary tests). It calls the harness's LLVMFuzzerTestOneInput on every
// seed as is, then on mutants of the seeds: byte flips, inserted and
// deleted runs, duplicated runs, splices of two seeds, tokens of the
// surface's dictionary and boundary numbers. The same seed (--seed) gives
// the same inputs, so a failure reproduces.
//
//   fuzz_ptx [--runs N] [--seconds S] [--seed K] [--timeout S] [--dict FILE] SEED...
//
// SEED is a file or a directory (its files, not recursive). Before each
// input runs it is kept in memory; a crash (a signal, a sanitizer report)
// or an input running over --timeout seconds writes it to
// fuzz-crash-<pid>.bin in the working directory and names it on stderr.
// Run that file alone (`fuzz_ptx fuzz-crash-123.bin --runs 0`) to reproduce.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

using Bytes = std::vector<uint8_t>;

// The input being run, for the crash handlers (plain globals: read from a
// signal handler with write() only).
const uint8_t* g_data = nullptr;
size_t g_size = 0;
char g_crash_path[64];

void save_current() {
  int fd = open(g_crash_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return;
  size_t off = 0;
  while (off < g_size) {
    ssize_t n = write(fd, g_data + off, g_size - off);
    if (n <= 0) break;
    off += static_cast<size_t>(n);
  }
  close(fd);
  const char msg[] = "fuzz driver: the failing input is in ";
  ssize_t ignored = write(2, msg, sizeof msg - 1);
  ignored = write(2, g_crash_path, strlen(g_crash_path));
  ignored = write(2, "\n", 1);
  (void)ignored;
}

extern "C" void on_crash(int sig) {
  save_current();
  if (sig == SIGALRM) {
    const char msg[] = "fuzz driver: input ran longer than --timeout (a hang?)\n";
    ssize_t ignored = write(2, msg, sizeof msg - 1);
    (void)ignored;
  }
  signal(sig == SIGALRM ? SIGABRT : sig, SIG_DFL);
  raise(sig == SIGALRM ? SIGABRT : sig);
}

}  // namespace

// AddressSanitizer calls this before it exits on a report.
extern "C" void __sanitizer_set_death_callback(void (*)(void)) __attribute__((weak));

namespace {

Bytes read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// libFuzzer's dictionary format: one `name="token"` or `"token"` a line,
// with \\, \" and \xNN escapes; other lines are ignored.
std::vector<Bytes> read_dict(const std::string& path) {
  std::vector<Bytes> out;
  std::ifstream in(path);
  if (!in) {
    dprintf(2, "fuzz driver: cannot read dictionary %s\n", path.c_str());
    std::exit(2);
  }
  for (std::string line; std::getline(in, line);) {
    size_t a = line.find('"'), b = line.rfind('"');
    if (line.empty() || line[0] == '#' || a == std::string::npos || b <= a) continue;
    Bytes tok;
    for (size_t i = a + 1; i < b; ++i) {
      if (line[i] == '\\' && i + 1 < b) {
        char c = line[++i];
        if (c == 'x' && i + 2 < b) {
          tok.push_back(static_cast<uint8_t>(std::stoi(line.substr(i + 1, 2), nullptr, 16)));
          i += 2;
        } else {
          tok.push_back(static_cast<uint8_t>(c));
        }
      } else {
        tok.push_back(static_cast<uint8_t>(line[i]));
      }
    }
    out.push_back(tok);
  }
  return out;
}

const char* const kNumbers[] = {
    "0",          "-1",         "1",          "31",          "32",
    "1024",       "1025",       "65535",      "65536",       "2147483647",
    "2147483648", "4294967295", "4294967296", "-2147483648", "9223372036854775807",
    "9223372036854775808",      "-9223372036854775808",      "18446744073709551615",
    "18446744073709551616",     "99999999999999999999999",   "0x7fffffff",
    "0xffffffffffffffff",       "0x10000000000000000",       "1e308",
    "1e309",      "-0",         "nan",        "inf",         "4611686018427387904"};

class Mutator {
 public:
  Mutator(uint64_t seed, const std::vector<Bytes>& seeds, const std::vector<Bytes>& dict)
      : rng_(seed), seeds_(seeds), dict_(dict) {}

  Bytes mutate(const Bytes& in) {
    Bytes b = in;
    int n = 1 + static_cast<int>(pick(4));
    for (int i = 0; i < n; ++i) once(b);
    if (b.size() > kMaxSize) b.resize(kMaxSize);
    return b;
  }

 private:
  static constexpr size_t kMaxSize = 1 << 20;
  std::mt19937_64 rng_;
  const std::vector<Bytes>& seeds_;
  const std::vector<Bytes>& dict_;

  size_t pick(size_t n) { return n ? static_cast<size_t>(rng_() % n) : 0; }
  void insert(Bytes& b, const Bytes& what) {
    b.insert(b.begin() + static_cast<ptrdiff_t>(pick(b.size() + 1)), what.begin(), what.end());
  }
  // A span biased towards short ones.
  size_t span(size_t max) { return std::min(max, size_t{1} << pick(10)); }

  void once(Bytes& b) {
    switch (pick(9)) {
      case 0:  // flip a bit
        if (!b.empty()) b[pick(b.size())] ^= static_cast<uint8_t>(1u << pick(8));
        break;
      case 1:  // random byte
        if (!b.empty()) b[pick(b.size())] = static_cast<uint8_t>(rng_());
        break;
      case 2: {  // insert random bytes
        Bytes r(1 + pick(8));
        for (auto& c : r) c = static_cast<uint8_t>(rng_());
        insert(b, r);
        break;
      }
      case 3: {  // delete a run
        if (b.empty()) break;
        size_t at = pick(b.size()), len = span(b.size() - at);
        b.erase(b.begin() + static_cast<ptrdiff_t>(at), b.begin() + static_cast<ptrdiff_t>(at + len));
        break;
      }
      case 4: {  // duplicate a run (repeats, deep nesting)
        if (b.empty()) break;
        size_t at = pick(b.size()), len = span(b.size() - at);
        Bytes run(b.begin() + static_cast<ptrdiff_t>(at), b.begin() + static_cast<ptrdiff_t>(at + len));
        size_t times = 1 + pick(pick(2) ? 4 : 2000);
        Bytes many;
        for (size_t i = 0; i < times && many.size() < kMaxSize; ++i)
          many.insert(many.end(), run.begin(), run.end());
        insert(b, many);
        break;
      }
      case 5: {  // splice: our head with another seed's tail
        if (seeds_.empty()) break;
        const Bytes& o = seeds_[pick(seeds_.size())];
        size_t cut = pick(b.size() + 1), from = pick(o.size() + 1);
        b.resize(cut);
        b.insert(b.end(), o.begin() + static_cast<ptrdiff_t>(from), o.end());
        break;
      }
      case 6:  // a dictionary token
        if (!dict_.empty()) insert(b, dict_[pick(dict_.size())]);
        break;
      case 7: {  // replace a number by a boundary value
        std::string num = kNumbers[pick(std::size(kNumbers))];
        size_t at = pick(b.size() + 1);
        size_t end = at;
        while (end < b.size() && std::isdigit(b[end])) ++end;
        b.erase(b.begin() + static_cast<ptrdiff_t>(at), b.begin() + static_cast<ptrdiff_t>(end));
        b.insert(b.begin() + static_cast<ptrdiff_t>(at), num.begin(), num.end());
        break;
      }
      case 8:  // truncate
        b.resize(pick(b.size() + 1));
        break;
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  uint64_t runs = 10000, seed = 1;
  double seconds = 0;
  unsigned timeout = 10;
  std::vector<std::string> inputs;
  std::vector<Bytes> dict;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        dprintf(2, "fuzz driver: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--runs")
      runs = std::stoull(value());
    else if (a == "--seconds")
      seconds = std::stod(value());
    else if (a == "--seed")
      seed = std::stoull(value());
    else if (a == "--timeout")
      timeout = static_cast<unsigned>(std::stoul(value()));
    else if (a == "--dict")
      dict = read_dict(value());
    else
      inputs.push_back(a);
  }
  std::snprintf(g_crash_path, sizeof g_crash_path, "fuzz-crash-%d.bin", static_cast<int>(getpid()));
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGALRM}) signal(sig, on_crash);
  if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(save_current);

  std::vector<Bytes> seeds;
  for (const auto& in : inputs) {
    std::filesystem::path p(in);
    if (std::filesystem::is_directory(p)) {
      std::vector<std::filesystem::path> files;
      for (const auto& e : std::filesystem::directory_iterator(p))
        if (e.is_regular_file()) files.push_back(e.path());
      std::sort(files.begin(), files.end());  // directory order is not stable
      for (const auto& f : files) seeds.push_back(read_file(f));
    } else if (std::filesystem::is_regular_file(p)) {
      seeds.push_back(read_file(p));
    } else {
      dprintf(2, "fuzz driver: no such seed file or directory: %s\n", in.c_str());
      return 2;
    }
  }
  if (seeds.empty()) seeds.emplace_back();

  auto run_one = [&](const Bytes& b) {
    g_data = b.data();
    g_size = b.size();
    alarm(timeout);
    LLVMFuzzerTestOneInput(b.data(), b.size());
    alarm(0);
  };
  for (const auto& s : seeds) run_one(s);
  Mutator m(seed, seeds, dict);
  auto start = std::chrono::steady_clock::now();
  uint64_t done = 0;
  std::mt19937_64 choose(seed ^ 0x5eed);
  Bytes cur;
  for (; seconds > 0 || done < runs; ++done) {
    if (seconds > 0 && done % 64 == 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > seconds)
      break;
    // Mostly mutate a seed afresh; sometimes keep mutating the last mutant.
    if (cur.empty() || choose() % 4 != 0) cur = seeds[choose() % seeds.size()];
    cur = m.mutate(cur);
    run_one(cur);
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  dprintf(2, "fuzz driver: %zu seeds and %llu mutants in %.1f s, no crash\n",
               seeds.size(), static_cast<unsigned long long>(done), secs);
  return 0;
}
