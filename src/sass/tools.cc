#include "sass/tools.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

extern char** environ;

namespace smemlab::sass {
namespace {

bool executable(const std::string& p) { return !p.empty() && access(p.c_str(), X_OK) == 0; }

std::string find_one(const char* env, const char* name, const std::string& configured) {
  if (const char* e = std::getenv(env); e && *e) return executable(e) ? e : "";
  if (const char* path = std::getenv("PATH")) {
    std::stringstream in(path);
    for (std::string dir; std::getline(in, dir, ':');) {
      std::string c = (dir.empty() ? "." : dir) + "/" + name;
      if (executable(c)) return c;
    }
  }
  std::string cuda = std::string("/usr/local/cuda/bin/") + name;
  if (executable(cuda)) return cuda;
  return executable(configured) ? configured : "";
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// FNV-1a, 64 bits: a cache key, not a security measure.
uint64_t fnv1a(const std::string& s, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// Runs argv with stdout and stderr into files; returns the exit status (-1: did not run).
int run(const std::vector<std::string>& argv, const std::string& out, const std::string& err) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, argv[0].c_str(), &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

std::string cache_dir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = fmt::format("{}/smemlab-sass-{}", tmp && *tmp ? tmp : "/tmp", getuid());
  mkdir(dir.c_str(), 0700);
  return dir;
}

// A tool's identity for the cache key: path, size and modification time
// (a new toolkit in the same place gives a new key).
std::string version_of(const std::string& path) {
  struct stat st {};
  stat(path.c_str(), &st);
  return fmt::format("{} {} {}", path, st.st_size, st.st_mtim.tv_sec);
}

std::string first_line(const std::string& s) {
  std::string l = s.substr(0, s.find('\n'));
  return l.size() > 300 ? l.substr(0, 300) : l;
}

}  // namespace

Tools find_tools() {
  Tools t;
#ifdef SMEMLAB_NVDISASM_PATH
  const std::string configured = SMEMLAB_NVDISASM_PATH;
#else
  const std::string configured;
#endif
  t.ptxas = find_one("SMEMLAB_PTXAS", "ptxas", "");
  t.nvdisasm = find_one("SMEMLAB_NVDISASM", "nvdisasm", configured);
  if (t.ptxas.empty())
    t.missing = "ptxas not found (PATH, /usr/local/cuda/bin, $SMEMLAB_PTXAS)";
  else if (t.nvdisasm.empty())
    t.missing =
        "nvdisasm not found (PATH, /usr/local/cuda/bin, $SMEMLAB_NVDISASM; scripts/setup "
        "installs it from PyPI: nvidia-cuda-nvdisasm)";
  return t;
}

Disassembled disassemble(const Tools& tools, const std::string& ptx_text, const std::string& arch,
                         const std::string& entry) {
  Disassembled d;
  std::string dir = cache_dir();
  uint64_t key = fnv1a(arch + "\n" + entry + "\n" + version_of(tools.ptxas) + "\n" +
                       version_of(tools.nvdisasm) + "\n" + ptx_text);
  std::string base = fmt::format("{}/{:016x}", dir, key);
  std::string cached = base + ".sass";
  if (access(cached.c_str(), R_OK) == 0) {
    d.text = read_file(cached);
    if (!d.text.empty()) return d;
  }
  // Unique names per process: several analyses may fill the cache at once.
  std::string tmp = fmt::format("{}.{}", base, getpid());
  {
    std::ofstream ptx(tmp + ".ptx", std::ios::binary);
    ptx << ptx_text;
  }
  std::vector<std::string> ptxas = {tools.ptxas, "-arch=" + arch, "-lineinfo", "-o",
                                    tmp + ".cubin"};
  if (!entry.empty()) ptxas.insert(ptxas.end(), {"--entry", entry});
  ptxas.push_back(tmp + ".ptx");
  int rc = run(ptxas, "/dev/null", tmp + ".err");
  if (rc != 0) {
    d.error = fmt::format("ptxas -arch={} failed: {}", arch, first_line(read_file(tmp + ".err")));
  } else {
    rc = run({tools.nvdisasm, "-g", "-c", tmp + ".cubin"}, tmp + ".sass", tmp + ".err");
    if (rc != 0)
      d.error = fmt::format("nvdisasm failed: {}", first_line(read_file(tmp + ".err")));
    else
      d.text = read_file(tmp + ".sass");
  }
  if (d.error.empty() && !d.text.empty()) rename((tmp + ".sass").c_str(), cached.c_str());
  for (const char* ext : {".ptx", ".cubin", ".err", ".sass"}) unlink((tmp + ext).c_str());
  return d;
}

Disassembled disassemble_cubin(const Tools& tools, const std::string& cubin) {
  Disassembled d;
  std::string dir = cache_dir();
  uint64_t key = fnv1a("cubin\n" + version_of(tools.nvdisasm) + "\n" + cubin);
  std::string base = fmt::format("{}/{:016x}", dir, key);
  std::string cached = base + ".sass";
  if (access(cached.c_str(), R_OK) == 0) {
    d.text = read_file(cached);
    if (!d.text.empty()) return d;
  }
  std::string tmp = fmt::format("{}.{}", base, getpid());
  {
    std::ofstream out(tmp + ".cubin", std::ios::binary);
    out << cubin;
  }
  int rc = run({tools.nvdisasm, "-g", "-c", tmp + ".cubin"}, tmp + ".sass", tmp + ".err");
  if (rc != 0)
    d.error = fmt::format("nvdisasm failed: {}", first_line(read_file(tmp + ".err")));
  else
    d.text = read_file(tmp + ".sass");
  if (d.error.empty() && !d.text.empty()) rename((tmp + ".sass").c_str(), cached.c_str());
  for (const char* ext : {".cubin", ".err", ".sass"}) unlink((tmp + ext).c_str());
  return d;
}

}  // namespace smemlab::sass
