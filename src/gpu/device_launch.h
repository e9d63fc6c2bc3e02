// Runs one kernel launch from PTX text on the real GPU (CUDA runtime library
// API, JIT-compiled by the driver), with the same arguments the emulator
// gets. It exists so that the emulator, Nsight Compute and compute-sanitizer
// see identical launches: `smemlab run --gpu`, scripts/validate-ncu and
// scripts/gpu-check all go through it. Built only when CUDA is found.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace smemlab::gpu {

// A kernel argument: scalar bytes passed by value, or a buffer whose bytes
// are copied to a fresh device allocation and back after the launch.
struct Arg {
  bool is_buffer = false;
  std::vector<uint8_t> bytes;
};

struct Launch {
  std::string ptx;                    // whole PTX module text
  std::string kernel;                 // mangled entry name
  std::array<unsigned, 3> grid{1, 1, 1};
  std::array<unsigned, 3> block{1, 1, 1};
  unsigned dynamic_shared = 0;
  std::vector<Arg> args;              // in parameter order
  // After the checked launch, time this many more launches of the same
  // arguments (CUDA events around each; the buffers then hold the last
  // launch's results, which the caller never sees).
  int timed_launches = 0;
};

struct Outcome {
  std::vector<std::vector<uint8_t>> buffers;  // final contents, one per Arg (empty for scalars)
  std::string device;                         // e.g. "NVIDIA H100 80GB HBM3 (sm_90)"
  int registers = 0;
  size_t static_shared = 0;
  std::vector<float> times_ms;  // one per timed launch, in launch order
};

class NoDevice : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws NoDevice when no CUDA device is usable, Error for anything else
// (JIT failure, unknown kernel, launch or execution error).
Outcome run(const Launch& launch);

}  // namespace smemlab::gpu
