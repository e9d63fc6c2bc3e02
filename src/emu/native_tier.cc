// The native tier's compile, cache and load (native_tier.h). The key of a
// cached object is a hash of its source, this build (the date and time
// this file was compiled: it includes every header the generated code
// does, so a change to any of them rebuilds it), the compiler and its
// flags; the object's init checks the layouts again when it loads.
#include "emu/native_tier.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>
#include <unordered_map>
#include <vector>

#include "emu/exec.h"
// (These headers are the generated code's: see above.)
#include "emu/ops_convert_lane.h"
#include "emu/ops_float_lane.h"
#include "emu/ops_inline.h"
#include "emu/program.h"

extern char** environ;

namespace smemlab::emu {

#ifndef SMEMLAB_NATIVE_INCLUDE
#define SMEMLAB_NATIVE_INCLUDE ""
#endif

struct NativeState {
  std::mutex mu;
  bool started = false;    // a compile (or cache load) was begun
  uint64_t work = 0;       // warp-instructions of its launches so far
  std::string why;         // why not loaded, once finished without code
  std::string source, so;  // the generated code, its object's path
  std::atomic<bool> done{false};
  std::atomic<const NativeEntry*> table{nullptr};
  std::vector<NativeEntry> entries;
};

namespace {

// A program's state, by a hash of its ops and plan (the generated source is
// a function of those alone): copies of a program, and the same kernel
// decoded again, share its code. Never destroyed (compile threads may
// outlive main).
uint64_t key_mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001b3ull + (h >> 29); }

uint64_t program_key(const Program& p) {
  uint64_t h = 0xcbf29ce484222325ull ^ p.ops.size();
  for (size_t i = 0; i < p.ops.size(); ++i) {
    const Op& o = p.ops[i];
    h = key_mix(h, uint64_t{o.code} | uint64_t{o.t} << 16 | uint64_t{o.t2} << 24 |
                       uint64_t{o.aux} << 32 | uint64_t{o.aux2} << 40 | uint64_t{o.vec} << 48 |
                       uint64_t{o.width} << 56);
    h = key_mix(h, static_cast<uint32_t>(o.guard) | uint64_t{o.guard_neg} << 32);
    for (int k = 0; k < 6; k += 2) h = key_mix(h, o.r[k] | uint64_t{o.r[k + 1]} << 32);
    h = key_mix(h, static_cast<uint64_t>(o.imm));
    h = key_mix(h, o.info | uint64_t{i < p.fused.size() ? p.fused[i] : 0u} << 32);
  }
  return h;
}

std::shared_ptr<NativeState> state_of(const Program& p) {
  static std::mutex* mu = new std::mutex;
  static auto* states = new std::unordered_map<uint64_t, std::shared_ptr<NativeState>>;
  const uint64_t key = program_key(p);
  std::lock_guard<std::mutex> lk(*mu);
  std::shared_ptr<NativeState>& st = (*states)[key];
  if (!st) st = std::make_shared<NativeState>();
  return st;
}

// CallAlu executors per code, for the generated code to call.
const NativeCallAlu* call_alu_table() {
  static const std::vector<NativeCallAlu> t = [] {
    std::vector<NativeCallAlu> v(kNumCodes, nullptr);
#define SMEMLAB_NATIVE_CALL_CallAlu(ty, base, executor) v[code(base, ty)] = &executor;
#define SMEMLAB_NATIVE_CALL_Inline(ty, base, executor)
#define SMEMLAB_NATIVE_CALL_Call(ty, base, executor)
#define SMEMLAB_NATIVE_CALL_InlineFlow(ty, base, executor)
#define SMEMLAB_NATIVE_CALL_CallFlow(ty, base, executor)
#define SMEMLAB_OP(base, types, executor, kind, cls, shape) \
  SMEMLAB_TYPES_##types(SMEMLAB_NATIVE_CALL_##kind, base, executor)
#include "emu/instructions.def"
#undef SMEMLAB_NATIVE_CALL_CallAlu
#undef SMEMLAB_NATIVE_CALL_Inline
#undef SMEMLAB_NATIVE_CALL_Call
#undef SMEMLAB_NATIVE_CALL_InlineFlow
#undef SMEMLAB_NATIVE_CALL_CallFlow
    return v;
  }();
  return t.data();
}

// Compiler processes in flight, ended when the process exits (a compile
// the program did not live to use is not left running). Never destroyed:
// a detached compile thread may still reach it during exit.
struct CompilerChildren {
  std::mutex mu;
  std::set<pid_t> pids;
};
CompilerChildren& children() {
  static CompilerChildren* c = [] {
    auto* p = new CompilerChildren;
    std::atexit([] {
      std::lock_guard<std::mutex> lk(children().mu);
      for (pid_t pid : children().pids) kill(pid, SIGTERM);
    });
    return p;
  }();
  return *c;
}

uint64_t source_hash(const std::string& s, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string cache_dir() {
  const char* x = std::getenv("XDG_CACHE_HOME");
  std::string base;
  if (x && *x)
    base = x;
  else if (const char* home = std::getenv("HOME"); home && *home)
    base = std::string(home) + "/.cache";
  else
    return "";
  std::string dir = base + "/smemlab/native";
  // (mkdir -p of the two levels; an existing one is fine.)
  mkdir(base.c_str(), 0755);
  mkdir((base + "/smemlab").c_str(), 0755);
  mkdir(dir.c_str(), 0755);
  struct stat st;
  return stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) ? dir : "";
}

std::vector<std::string> compiler_argv() {
  const char* c = std::getenv("SMEMLAB_CXX");
  std::vector<std::string> argv;
  std::istringstream in(c && *c ? c : "c++");  // ("ccache g++" is two words)
  for (std::string w; in >> w;) argv.push_back(w);
  argv.insert(argv.end(),
              {"-std=c++20", "-O3", "-fPIC", "-shared", "-fvisibility=hidden", "-ffp-contract=off",
               "-fno-math-errno", "-w", "-DSMEMLAB_ISA_NS=isa_native"});
  // (-fno-math-errno: sqrt as the instruction, so a lane loop with one
  // vectorizes; errno is nothing PTX has.)
  // The interpreter's AVX2 copy where the CPU has it (warp_avx2.cc's target).
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
      __builtin_cpu_supports("bmi2"))
    argv.insert(argv.end(), {"-mavx2", "-mfma", "-mbmi", "-mbmi2", "-DSMEMLAB_ISA_FMA=1"});
  argv.push_back(std::string("-I") + SMEMLAB_NATIVE_INCLUDE);
  return argv;
}

// The compiler's environment: ours without LD_PRELOAD. In program mode this
// process is the user's program with smemlab's libcuda (and, in sanitizer
// builds, the sanitizer's runtime) preloaded; the compiler must run as
// itself, not under them.
std::vector<char*> compiler_environment() {
  std::vector<char*> env;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "LD_PRELOAD=", 11) != 0) env.push_back(*e);
  env.push_back(nullptr);
  return env;
}

// Runs the compiler; "" or why it failed.
std::string run_compiler(std::vector<std::string> argv, const std::string& log) {
  std::vector<char*> args;
  for (std::string& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid = 0;
  int rc;
  {
    std::lock_guard<std::mutex> lk(children().mu);
    std::vector<char*> env = compiler_environment();
    rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), env.data());
    if (rc == 0) children().pids.insert(pid);
  }
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0)
    return fmt::format("cannot run the compiler '{}' (SMEMLAB_CXX): {}", argv[0],
                       std::strerror(rc));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  {
    std::lock_guard<std::mutex> lk(children().mu);
    children().pids.erase(pid);
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return fmt::format("the compiler '{}' failed (its output: {})", argv[0], log);
  return "";
}

// dlopens `so` and fills st's table; "" or why not.
std::string load_object(NativeState& st, const std::string& so, uint32_t num_ops) {
  void* h = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) return fmt::format("cannot load {}: {}", so, dlerror());
  auto init = reinterpret_cast<NativeInitFn>(dlsym(h, kNativeInitSymbol));
  st.entries.assign(num_ops, NativeEntry{});
  NativeAbi abi{kNativeAbiVersion, sizeof(Warp), sizeof(Op), kNumCodes,
                [](int t) { return type_bytes(static_cast<T>(t)); }};
  if (!init || !init(&abi, call_alu_table(), st.entries.data(), num_ops)) {
    dlclose(h);
    return fmt::format("{} was built for another smemlab", so);
  }
  // (Never closed: blocks of any later launch may be running its code.)
  st.table.store(st.entries.data(), std::memory_order_release);
  return "";
}

// Where the object of `source` is cached ("" with *why set: nowhere).
std::string cached_object(const std::string& source, std::string* why) {
  if (!*SMEMLAB_NATIVE_INCLUDE) {
    *why = "this build has no path to its headers";
    return "";
  }
  std::string dir = cache_dir();
  if (dir.empty()) {
    *why = "no cache directory (XDG_CACHE_HOME or HOME)";
    return "";
  }
  std::string key_text = source + "\n" + __DATE__ " " __TIME__ "\n";
  for (const std::string& a : compiler_argv()) key_text += a + " ";
  return fmt::format("{}/runs-{:016x}.so", dir, source_hash(key_text));
}

// Compiles `source` into `so` unless it is there already, and loads it;
// "" or why not.
std::string build_object(NativeState& st, const std::string& source, const std::string& so,
                         const std::string& kernel, uint32_t num_ops) {
  auto t0 = std::chrono::steady_clock::now();
  bool cached = access(so.c_str(), R_OK) == 0;
  if (!cached) {
    std::string stem = so.substr(0, so.size() - 3);
    std::string tmp = fmt::format("{}.{}", stem, getpid());
    {
      std::ofstream out(tmp + ".cc");
      out << source;
      if (!out) return fmt::format("cannot write {}.cc", tmp);
    }
    std::vector<std::string> argv = compiler_argv();
    argv.insert(argv.end(), {"-o", tmp + ".so", tmp + ".cc"});
    if (std::string e = run_compiler(argv, tmp + ".log"); !e.empty()) return e;
    // (Atomic: another process compiling the same source renames the same.)
    if (std::rename((tmp + ".so").c_str(), so.c_str()) != 0)
      return fmt::format("cannot rename into {}", so);
    std::rename((tmp + ".cc").c_str(), (stem + ".cc").c_str());
    std::remove((tmp + ".log").c_str());
  }
  if (std::string e = load_object(st, so, num_ops); !e.empty()) return e;
  if (const char* v = std::getenv("SMEMLAB_NATIVE_VERBOSE"); v && *v == '1')
    std::fprintf(
        stderr, "smemlab: native runs of %s %s in %.0f ms: %s\n", kernel.c_str(),
        cached ? "loaded from the cache" : "compiled",
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(),
        so.c_str());
  return "";
}

// One note per process when native code is unavailable: results are the
// interpreter's either way, only slower.
void note_once(const std::string& why) {
  static std::atomic<bool> said{false};
  if (!said.exchange(true))
    std::fprintf(stderr, "smemlab: note: native runs unavailable (%s); the interpreter runs them\n",
                 why.c_str());
}

void finish_compile(const std::shared_ptr<NativeState>& st, const std::string& why) {
  if (!why.empty()) note_once(why);
  std::lock_guard<std::mutex> lk(st->mu);
  st->why = why;
  st->done.store(true);
}

}  // namespace

std::shared_ptr<NativeState> native_state(const Program& p) { return state_of(p); }

namespace {

// Starts the compile (now when `sync`, else in a background thread) unless
// begun; called with st.mu held by `lk`, which it releases.
void start_compile(const std::shared_ptr<NativeState>& st, std::unique_lock<std::mutex>& lk,
                   const std::string& kernel, uint32_t num_ops, bool sync) {
  st->started = true;
  lk.unlock();
  if (sync) {
    finish_compile(st, build_object(*st, st->source, st->so, kernel, num_ops));
  } else {
    std::thread([st, kernel, num_ops] {
      finish_compile(st, build_object(*st, st->source, st->so, kernel, num_ops));
    }).detach();
  }
}

}  // namespace

const std::atomic<const NativeEntry*>* native_runs(const std::shared_ptr<NativeState>& st,
                                                   const Program& p, bool sync) {
  std::unique_lock<std::mutex> lk(st->mu);
  if (st->started) return &st->table;
  if (st->source.empty() && st->why.empty()) {
    // First launch: the source, and its object if an earlier process
    // compiled it (a hash, a stat and a dlopen: the cache answers at once).
    st->source = native_source(p);
    if (st->source.empty()) st->why = "no runs to compile";
    if (!st->source.empty()) st->so = cached_object(st->source, &st->why);
    if (!st->so.empty() && access(st->so.c_str(), R_OK) == 0) sync = true;
  }
  if (st->source.empty() || st->so.empty()) {
    if (sync && !st->started && st->why != "no runs to compile") {
      st->started = true;
      note_once(st->why);
    }
    return nullptr;
  }
  if (sync || st->work >= kNativeHotWork)
    start_compile(st, lk, p.kernel, static_cast<uint32_t>(p.ops.size()), sync);
  return &st->table;
}

void native_work_done(const std::shared_ptr<NativeState>& st, const Program& p,
                      uint64_t warp_instructions) {
  std::unique_lock<std::mutex> lk(st->mu);
  st->work += warp_instructions;
  // (Started here, the compile overlaps the host's code between launches.)
  if (!st->started && !st->so.empty() && st->work >= kNativeHotWork)
    start_compile(st, lk, p.kernel, static_cast<uint32_t>(p.ops.size()), false);
}

bool native_loaded(const Program& p, std::string* why) {
  const std::shared_ptr<NativeState> st = state_of(p);
  std::lock_guard<std::mutex> lk(st->mu);
  if (why) *why = st->started ? st->why : "not compiled (not launched under jit or native)";
  return st->table.load() != nullptr;
}

}  // namespace smemlab::emu
