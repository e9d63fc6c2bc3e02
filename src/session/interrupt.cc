#include "session/interrupt.h"

#include <signal.h>
#include <unistd.h>

#include <cstring>

namespace smemlab::session {
namespace {

// The handler only does async-signal-safe things: set the flag, forward the
// signal to nvcc, and on a second signal unlink the temporary files and _exit.
std::atomic<bool> g_interrupted{false};
volatile sig_atomic_t g_nvcc_pid = 0;
char g_temp_dir[256] = "";
char g_temp_ptx[300] = "";

extern "C" void on_signal(int sig) {
  if (g_interrupted.exchange(true)) {
    if (g_temp_ptx[0]) unlink(g_temp_ptx);
    if (g_temp_dir[0]) rmdir(g_temp_dir);  // nvcc's scratch files are gone with nvcc
    _exit(kInterruptedStatus);
  }
  if (g_nvcc_pid > 0) kill(static_cast<pid_t>(g_nvcc_pid), sig);
}

}  // namespace

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

namespace {

void copy_path(char* dst, size_t cap, const std::string& s) {
  dst[0] = '\0';
  if (s.size() < cap) std::memcpy(dst, s.c_str(), s.size() + 1);
}

}  // namespace

const std::atomic<bool>& interrupted() { return g_interrupted; }
void set_interrupt_child(pid_t pid) { g_nvcc_pid = pid; }
void set_interrupt_temp_paths(const std::string& dir, const std::string& file) {
  copy_path(g_temp_dir, sizeof g_temp_dir, dir);
  copy_path(g_temp_ptx, sizeof g_temp_ptx, file);
}

}  // namespace smemlab::session
