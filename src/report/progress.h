// The progress line of long launches: "kernel: 1234/65536 blocks, 812
// blocks/s, 79 s left" on stderr when it is a terminal, once a launch has run
// a second, at most 5 times a second, erased when the launch ends. The CLI's
// launches use it, and program mode's runtime for every launch of the
// program (labelled "launch N: kernel"). Only ever written to a terminal, so
// JSON, SARIF and logs redirected to files stay clean.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace smemlab::report {

// emu::LaunchConfig::progress's shape.
using Progress = std::function<void(uint64_t done, uint64_t total, bool end)>;

// An empty function when stderr is not a terminal.
Progress terminal_progress(const std::string& label);

// The line's text after `seconds` with `done` of `total` blocks finished.
std::string progress_text(const std::string& label, uint64_t done, uint64_t total, double seconds);

}  // namespace smemlab::report
