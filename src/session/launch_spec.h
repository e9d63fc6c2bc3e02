// A launch as the user describes it, made ready to run: the input file (.cu
// compiled with nvcc, or .ptx), --kernel/--grid/--block/--shared/--arg, the
// in-file recipe `// smemlab: ...`, kernel-name resolution (mangled,
// demangled, or demangled without its parameter list), and --arg SPECs
// turned into emulator buffers. Shared by the CLI's run/analyze/check/report/
// fix, the suite tests, the perf tests and the fuzzers; the command-line
// flags themselves are registered in cli/launch_options.h. Bad input throws
// UsageError (the CLI's exit code 2) naming the input and, for recipes,
// FILE:LINE:COLUMN.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "emu/launch.h"
#include "emu/ops_texture.h"
#include "ptx/demangle.h"
#include "session/recipe_lines.h"

namespace smemlab::session {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ArgSpec {
  std::string text;  // as given
  std::string type;  // "float", "int", ...
  uint32_t elem_size = 4;
  bool is_float = false, is_signed = true;
  bool buffer = false;
  uint64_t count = 0;  // buffer elements
  enum class Init { Zeros, Iota, Random, File, List } init = Init::Zeros;
  bool half = false;  // float of 2 bytes: f16, or bf16 when bf16 is set
  bool bf16 = false;
  bool pointer = false;           // ptr: an 8-byte device address, may be "@I[+OFFSET]"
  bool raw = false;               // bytes=HEX: the parameter's bytes as given (structs)
  std::vector<std::string> list;  // TYPE[N]={v0,v1,...}
  uint64_t seed = 0;
  std::string path;   // file:PATH
  std::string value;  // scalar value text
  // texNd:/surfNd: a texture or surface object over this buffer (its
  // elements are the texels' channels); the kernel gets the object's handle.
  enum class Object { None, Texture, Surface } object = Object::None;
  emu::texture::Descriptor desc;  // format, channels, dims, extent, sampling
};

struct LaunchOptions {
  std::string file;
  std::string kernel;
  std::string grid, block;
  uint32_t shared = 0;
  std::vector<std::string> args;
  std::string arch = "sm_90";
  unsigned threads = 0;
  uint64_t budget = 500'000'000;
  std::string schedule = "gpu";        // emu/schedule.h: gpu | serial | random[:SEED]
  std::vector<std::string> nvcc_args;  // passed to nvcc for .cu input (-I, -D, --Xnvcc, ...)
  std::string keep_ptx;                // directory to keep the generated PTX in
  bool quiet = false;                  // no progress line (the CLI's; kept with the other options)
  bool launch_flags_given() const {
    return !grid.empty() || !block.empty() || !args.empty() || shared != 0;
  }
};

// Input files (.cu, .ptx) larger than this are rejected before reading.
constexpr uint64_t kMaxInputBytes = 64ull << 20;

struct PreparedInput {
  std::string ptx_path;         // the PTX to load (a temporary file for .cu input)
  std::vector<Recipe> recipes;  // `// smemlab:` lines of the .cu/.ptx (recipe_lines.h)
  bool temporary = false;
  std::string temp_dir;  // nvcc's output and scratch files (removed with it)
  PreparedInput() = default;
  PreparedInput(const PreparedInput&) = delete;
  PreparedInput& operator=(const PreparedInput&) = delete;
  ~PreparedInput();
};

// Compiles a .cu with `nvcc -ptx -lineinfo -arch=ARCH` (nvcc from PATH or
// /usr/local/cuda/bin) or takes a .ptx as is; reads the recipes.
void prepare_input(const LaunchOptions& o, PreparedInput* out);

// Fills missing launch flags from the recipe (the one naming o.kernel if
// given, else the first) when no launch flags were given on the command line.
void apply_recipe(LaunchOptions& o, const PreparedInput& in);

// Mangled, demangled, or demangled-without-parameters name -> mangled name.
std::string resolve_kernel(const std::vector<std::string>& mangled, const std::string& want);
using ptx::demangle;

emu::Dim3 parse_dim(const std::string& s, const char* what);
// Checks everything about the spec that does not need the kernel: type,
// scalar value in the type's range, buffer size within kMaxAllocationBytes.
ArgSpec parse_arg(const std::string& s);
// A scalar --arg's bytes (little-endian, elem_size of them).
emu::ArgBytes scalar_bytes(const ArgSpec& a);

// Allocates and fills buffers; returns the kernel argument bytes.
struct PreparedArgs {
  std::vector<emu::ArgBytes> bytes;
  std::vector<uint64_t> buffer;  // device address per argument, 0 for scalars
};
PreparedArgs prepare_args(emu::Device& dev, const std::vector<ArgSpec>& specs);

// Everything up to a ready launch: input, recipe, module, kernel, args.
struct Prepared {
  PreparedInput input;
  emu::Device device;
  std::unique_ptr<emu::Module> module;
  std::string kernel;  // mangled
  emu::LaunchConfig config;
  std::vector<ArgSpec> specs;
  PreparedArgs args;
};
// Installs the Ctrl-C handlers (session/interrupt.h) and points
// config.stop at their flag; config.progress is left to the caller.
void prepare_launch(LaunchOptions o, Prepared* p);

}  // namespace smemlab::session
