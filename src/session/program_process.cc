#include "session/program_process.h"

#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace smemlab::session {
namespace {

std::string dir_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// The path of the ASan runtime this process was linked with ("" without
// ASan), found at start-up: never look it up between fork and exec.
std::string own_asan_runtime() {
  std::string path;
#if defined(__SANITIZE_ADDRESS__)
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        std::string name = info->dlpi_name ? info->dlpi_name : "";
        if (name.find("/libasan.so") == std::string::npos) return 0;
        *static_cast<std::string*>(data) = name;
        return 1;
      },
      &path);
#endif
  return path;
}
const std::string kOwnAsanRuntime = own_asan_runtime();

}  // namespace

void preload_own_sanitizer() {
  if (kOwnAsanRuntime.empty()) return;
  const char* old = std::getenv("LD_PRELOAD");
  std::string preload = old ? old : "";
  if (preload.find("libasan.so") != std::string::npos) return;  // preloaded already
  setenv("LD_PRELOAD", (kOwnAsanRuntime + (preload.empty() ? "" : ":" + preload)).c_str(), 1);
}

std::string runtime_dir() {
  if (const char* d = std::getenv("SMEMLAB_RUNTIME_DIR")) return d;
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  buf[n] = 0;
  return dir_of(buf) + "/runtime";
}

// APP as execvp would find it; "" with *why set if it cannot be run.
std::string find_program(const std::string& app, std::string* why) {
  auto check = [&](const std::string& p) {
    struct stat st;
    if (stat(p.c_str(), &st) != 0) return false;
    if (S_ISDIR(st.st_mode)) {
      *why = "is a directory";
      return false;
    }
    if (access(p.c_str(), X_OK) != 0) {
      *why = "is not executable";
      return false;
    }
    return true;
  };
  *why = "not found";
  if (app.find('/') != std::string::npos) return check(app) ? app : "";
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string d = dirs.substr(start, end - start);
    std::string p = (d.empty() ? "." : d) + "/" + app;
    if (check(p)) return p;
    start = end + 1;
  }
  return "";
}

}  // namespace smemlab::session
