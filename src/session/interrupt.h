// Ctrl-C for long runs: SIGINT/SIGTERM set a flag that launches poll
// (emu::LaunchConfig::stop) and are forwarded to a running nvcc; a second
// signal removes the temporary files named here and exits at once. The state
// is async-signal-safe (an atomic flag, a pid, fixed buffers) so that the
// handler may touch it.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <string>

namespace smemlab::session {

// The exit status after Ctrl-C (the shell's 128 + SIGINT).
constexpr int kInterruptedStatus = 130;

// Thrown when a step stops because of the flag (nvcc was interrupted). Not a
// std::exception: nothing on the way may take it for an input error.
struct Interrupted {};

void install_interrupt_handlers();
const std::atomic<bool>& interrupted();
// The child a signal is forwarded to (0: none).
void set_interrupt_child(pid_t pid);
// The temporary PTX and its directory, removed by a second signal ("": none).
void set_interrupt_temp_paths(const std::string& dir, const std::string& file);

}  // namespace smemlab::session
