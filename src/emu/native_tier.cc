// The native tier's compile, cache and load (native_tier.h). The key of a
// cached object is a hash of its source, this build (the date and time
// this file was compiled: it includes every header the generated code
// does, so a change to any of them rebuilds it), the compiler and its
// flags; the object's init checks the layouts again when it loads.
#include "emu/native_tier.h"

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <unordered_map>
#include <vector>

#include "emu/exec.h"
// (These headers are the generated code's: see above.)
#include "emu/ops_convert_lane.h"
#include "emu/ops_float_lane.h"
#include "emu/ops_inline.h"
#include "emu/ops_memory_lane.h"
#include "emu/program.h"

extern char** environ;

namespace smemlab::emu {

#ifndef SMEMLAB_NATIVE_INCLUDE
#define SMEMLAB_NATIVE_INCLUDE ""
#endif

struct NativeState {
  std::mutex mu;
  bool started = false;     // a compile (or cache load) was begun
  double spent = 0;         // CPU seconds of its launches so far (interpreted)
  double launch_cpu = -1;   // the process's CPU seconds when a launch began
  double compile_cost = 0;  // the compile's expected CPU seconds
  std::string why;          // why not loaded, once finished without code
  std::string source, so;   // the generated code, its object's path
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

// The directories compiles run in, each with its compiler's process (the
// leader of its own process group; 0 until it is started). At exit each
// compiler is stopped and waited for and every directory removed: a
// compile the program did not live to use leaves no process running and
// no file in the cache. Never destroyed: a detached compile thread may
// still reach it during exit.
struct CompilerChildren {
  std::mutex mu;
  std::map<std::string, pid_t> dirs;
  bool exiting = false;  // (no directory is made or renamed from after this)
};
void remove_tree(const std::string& dir);
CompilerChildren& children() {
  static CompilerChildren* c = [] {
    auto* p = new CompilerChildren;
    std::atexit([] {
      std::lock_guard<std::mutex> lk(children().mu);
      children().exiting = true;
      for (const auto& [dir, pid] : children().dirs) {
        if (pid > 0) {
          kill(-pid, SIGTERM);
          while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
          }
        }
        remove_tree(dir);
      }
      children().dirs.clear();
    });
    return p;
  }();
  return *c;
}

// Why a compile did not finish when the process exited first (no note).
constexpr const char* kStoppedAtExit = "the compile was stopped (the process is exiting)";

// Removes a compile's directory and the files in it (it has no
// subdirectories).
void remove_tree(const std::string& dir) {
  if (DIR* d = opendir(dir.c_str())) {
    while (const dirent* e = readdir(d))
      if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
        std::remove((dir + "/" + e->d_name).c_str());
    closedir(d);
  }
  rmdir(dir.c_str());
}

// Compile directories (`tmp-PID-XXXXXX`) of processes that are gone (a
// process killed before its exit handlers ran): removed when the cache is
// next used.
void remove_stale_compiles(const std::string& cache) {
  DIR* d = opendir(cache.c_str());
  if (!d) return;
  std::vector<std::string> stale;
  while (const dirent* e = readdir(d)) {
    long pid = 0;
    if (std::sscanf(e->d_name, "tmp-%ld-", &pid) == 1 && pid > 0 &&
        kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
      stale.push_back(cache + "/" + e->d_name);
  }
  closedir(d);
  for (const std::string& s : stale) remove_tree(s);
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
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return "";
  remove_stale_compiles(dir);
  return dir;
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

// Runs the compiler in a process group of its own (so stopping it stops
// the compiler's own children too), at nice 10 when `background` (the
// emulator's threads come first on a machine of few cores); "" or why it
// failed (*ran_and_failed: it ran and failed, its output in `log`). `dir`
// is removed if the process exits while it runs.
std::string run_compiler(std::vector<std::string> argv, const std::string& log,
                         const std::string& dir, bool background, bool* ran_and_failed) {
  std::vector<char*> args;
  for (std::string& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
#ifdef __linux__
  // (A Linux thread's nice value is its own, and what it spawns inherits
  // it; this thread is the compile's.)
  if (background) setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
#else
  (void)background;
#endif
  pid_t pid = 0;
  int rc;
  {
    std::lock_guard<std::mutex> lk(children().mu);
    std::vector<char*> env = compiler_environment();
    rc = children().exiting ? ECANCELED
                            : posix_spawnp(&pid, args[0], &fa, &attr, args.data(), env.data());
    if (rc == 0) children().dirs[dir] = pid;
  }
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0)
    return fmt::format("cannot run the compiler '{}' (SMEMLAB_CXX): {}", argv[0],
                       std::strerror(rc));
  int status = 0;
  pid_t got;
  while ((got = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  if (got != pid) return kStoppedAtExit;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    *ran_and_failed = true;
    return fmt::format("the compiler '{}' failed", argv[0]);
  }
  return "";
}

// The global allocation holding `addr` as the generated loads and stores'
// window (ops_memory_lane.h): the block's hint where it holds addr, else
// the allocation found (and kept as the hint unless it is the device
// heap's, which a kernel may free during the launch), as warp_loop.h's
// affine_words.
bool global_window(BlockCtx& b, uint64_t addr, MemWindow* m) {
  const GlobalMemory::Allocation* g = b.global_hint;
  if (!g || addr - g->base >= g->size) {
    g = b.env->global->find(addr);
    if (!g) return false;
    if (addr < kHeapBase) b.global_hint = g;
  }
  *m = {g->data, g->base, g->size};
  return true;
}

// dlopens `so` and fills st's table; "" or why not.
std::string load_object(NativeState& st, const std::string& so, uint32_t num_ops) {
  void* h = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) return fmt::format("cannot load {}: {}", so, dlerror());
  auto init = reinterpret_cast<NativeInitFn>(dlsym(h, kNativeInitSymbol));
  st.entries.assign(2 * size_t{num_ops}, NativeEntry{});  // (runs, then segments)
  NativeAbi abi{kNativeAbiVersion,
                sizeof(Warp),
                sizeof(Op),
                kNumCodes,
                [](int t) { return type_bytes(static_cast<T>(t)); },
                &exec_memory,
                &global_window};
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
// "" or why not. The compile runs in a directory of its own in the cache
// (tmp-PID-XXXXXX: the source, the object, the compiler's output); only a
// finished object is renamed into the cache (atomic: another process
// compiling the same source renames the same), with its source beside it.
// A failed compile's source and output are kept as runs-HASH.cc and
// runs-HASH.log; a compile stopped at exit leaves nothing (children()).
std::string build_object(NativeState& st, const std::string& source, const std::string& so,
                         const std::string& kernel, uint32_t num_ops, bool background) {
  auto t0 = std::chrono::steady_clock::now();
  bool cached = access(so.c_str(), R_OK) == 0;
  if (!cached) {
    const std::string stem = so.substr(0, so.size() - 3);
    const std::string cache = so.substr(0, so.rfind('/'));
    std::string dir = fmt::format("{}/tmp-{}-XXXXXX", cache, getpid());
    {
      // (Made and written under the lock, so exit removes it whole.)
      std::lock_guard<std::mutex> lk(children().mu);
      if (children().exiting) return kStoppedAtExit;
      if (!mkdtemp(dir.data())) return fmt::format("cannot make a directory in {}", cache);
      children().dirs[dir] = 0;
      std::ofstream out(dir + "/runs.cc");
      out << source;
      if (!out) {
        remove_tree(dir);
        children().dirs.erase(dir);
        return fmt::format("cannot write {}/runs.cc", dir);
      }
    }
    std::vector<std::string> argv = compiler_argv();
    argv.insert(argv.end(), {"-o", dir + "/runs.so", dir + "/runs.cc"});
    bool failed = false;
    std::string e = run_compiler(argv, dir + "/runs.log", dir, background, &failed);
    std::lock_guard<std::mutex> lk(children().mu);
    if (children().exiting) return kStoppedAtExit;
    bool moved = false;
    if (e.empty()) {
      moved = std::rename((dir + "/runs.so").c_str(), so.c_str()) == 0;
      if (moved) std::rename((dir + "/runs.cc").c_str(), (stem + ".cc").c_str());
      if (!moved) e = fmt::format("cannot rename into {}", so);
    } else if (failed) {
      std::rename((dir + "/runs.cc").c_str(), (stem + ".cc").c_str());
      std::rename((dir + "/runs.log").c_str(), (stem + ".log").c_str());
      e += fmt::format(" (its output: {}.log)", stem);
    }
    remove_tree(dir);
    children().dirs.erase(dir);
    if (!e.empty()) return e;
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
  if (!why.empty() && why != kStoppedAtExit) note_once(why);
  std::lock_guard<std::mutex> lk(st->mu);
  st->why = why;
  st->done.store(true);
}

}  // namespace

std::shared_ptr<NativeState> native_state(const Program& p) { return state_of(p); }

namespace {

// Starts the compile (now when `sync`, else in a background thread at a
// lower priority) unless begun; called with st.mu held by `lk`, which it
// releases.
void start_compile(const std::shared_ptr<NativeState>& st, std::unique_lock<std::mutex>& lk,
                   const std::string& kernel, uint32_t num_ops, bool sync) {
  st->started = true;
  if (const char* v = std::getenv("SMEMLAB_NATIVE_VERBOSE"); v && *v == '1' && !sync)
    std::fprintf(stderr,
                 "smemlab: compiling the native runs of %s in the background (its launches so "
                 "far: %.2f CPU s; the compile's estimate: %.2f)\n",
                 kernel.c_str(), st->spent, st->compile_cost);
  lk.unlock();
  if (sync) {
    finish_compile(st, build_object(*st, st->source, st->so, kernel, num_ops, false));
  } else {
    std::thread([st, kernel, num_ops] {
      finish_compile(st, build_object(*st, st->source, st->so, kernel, num_ops, true));
    }).detach();
  }
}

double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

double native_compile_estimate(const std::string& source) {
  if (const char* c = std::getenv("SMEMLAB_NATIVE_COST"); c && *c) return std::atof(c);
  // (c++ -O3 of generated sources here, CPU s: 8 KB 1.27, 15 KB 1.45, 96 KB
  // 4.45: about a second of headers and 30 KB per second after them.)
  return 1.0 + static_cast<double>(source.size()) / 30000.0;
}

const std::atomic<const NativeEntry*>* native_runs(const std::shared_ptr<NativeState>& st,
                                                   const Program& p, bool sync) {
  std::unique_lock<std::mutex> lk(st->mu);
  if (st->started) return &st->table;
  st->launch_cpu = process_cpu_seconds();
  if (st->source.empty() && st->why.empty()) {
    // First launch: the source, and its object if an earlier process
    // compiled it (a hash, a stat and a dlopen: the cache answers at once).
    st->source = native_source(p);
    if (st->source.empty()) st->why = "no runs to compile";
    if (!st->source.empty()) st->so = cached_object(st->source, &st->why);
    if (!st->so.empty() && access(st->so.c_str(), R_OK) == 0) sync = true;
    st->compile_cost = native_compile_estimate(st->source);
  }
  if (st->source.empty() || st->so.empty()) {
    if (sync && !st->started && st->why != "no runs to compile") {
      st->started = true;
      note_once(st->why);
    }
    return nullptr;
  }
  // The tier-up rule: a launch of a kernel whose launches so far cost the
  // interpreter more CPU time than its compile is expected to. The compile
  // then overlaps this launch; a kernel not launched again never pays for
  // one, and the compile's CPU time is at most what the kernel had already
  // taken, so it never more than doubles a kernel's cost.
  if (sync || st->spent > st->compile_cost)
    start_compile(st, lk, p.kernel, static_cast<uint32_t>(p.ops.size()), sync);
  return &st->table;
}

void native_work_done(const std::shared_ptr<NativeState>& st, const Program&, uint64_t) {
  std::lock_guard<std::mutex> lk(st->mu);
  // (The process's CPU time over the launch: its worker threads included.)
  if (st->launch_cpu >= 0) st->spent += process_cpu_seconds() - st->launch_cpu;
  st->launch_cpu = -1;
}

bool native_loaded(const Program& p, std::string* why) {
  const std::shared_ptr<NativeState> st = state_of(p);
  std::lock_guard<std::mutex> lk(st->mu);
  if (why) *why = st->started ? st->why : "not compiled (not launched under jit or native)";
  return st->table.load() != nullptr;
}

}  // namespace smemlab::emu
