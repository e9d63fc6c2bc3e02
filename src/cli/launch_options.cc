#include "cli/launch_options.h"

#include <cxxabi.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "ptx/lexer.h"

namespace smemlab::cli {
namespace {

bool ends_with(const std::string& s, const std::string& suf) {
  return s.size() >= suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
}

std::string find_nvcc() {
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':')) {
      std::string c = (dir.empty() ? "." : dir) + "/nvcc";
      if (access(c.c_str(), X_OK) == 0) return c;
    }
  }
  if (access("/usr/local/cuda/bin/nvcc", X_OK) == 0) return "/usr/local/cuda/bin/nvcc";
  return "";
}

std::vector<std::string> read_recipes(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line)) {
    size_t p = line.find("// smemlab:");
    if (p == std::string::npos) continue;
    bool only_space = line.find_first_not_of(" \t") == p;
    if (only_space) out.push_back(line.substr(p + 11));
  }
  return out;
}

std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string w;
  while (ss >> w) out.push_back(w);
  return out;
}

uint64_t parse_u64(const std::string& s, const char* what) {
  try {
    size_t pos = 0;
    uint64_t v = std::stoull(s, &pos, 0);
    if (pos != s.size()) throw std::invalid_argument(s);
    return v;
  } catch (const std::exception&) {
    throw UsageError(fmt::format("bad {} '{}'", what, s));
  }
}

}  // namespace

void add_launch_options(CLI::App* cmd, LaunchOptions& o) {
  cmd->add_option("file", o.file,
                  "kernel source (.cu, compiled with nvcc -ptx -lineinfo) or PTX (.ptx)")
      ->required();
  cmd->add_option(
      "--kernel", o.kernel,
      "kernel: mangled, demangled, or demangled without parameters (optional with one kernel)");
  cmd->add_option("--grid", o.grid, "grid size X[,Y[,Z]]");
  cmd->add_option("--block", o.block, "block size X[,Y[,Z]]");
  cmd->add_option("--shared", o.shared, "dynamic shared memory in bytes");
  cmd->add_option(
      "--arg", o.args,
      "kernel argument in parameter order: int=64 unsigned=7 float=1.5 double=.. long=.. or a "
      "buffer "
      "TYPE[N]=zeros|iota|random(SEED)|file:PATH (random: floats in [0,1), integers in [0,1000))");
  // Not --arch: analyze's --arch names bank models.
  cmd->add_option("--nvcc-arch", o.arch, "nvcc -arch for .cu input")->capture_default_str();
  cmd->add_option("--threads", o.threads, "host threads running blocks (0 = all cores)");
  cmd->add_option("--budget", o.budget, "warp-instructions allowed per block")
      ->capture_default_str();
}

PreparedInput::~PreparedInput() {
  if (temporary && !ptx_path.empty()) std::remove(ptx_path.c_str());
}

void prepare_input(const LaunchOptions& o, PreparedInput* out) {
  if (access(o.file.c_str(), R_OK) != 0)
    throw UsageError(fmt::format("{}: cannot read file", o.file));
  out->recipes = read_recipes(o.file);
  if (ends_with(o.file, ".ptx")) {
    out->ptx_path = o.file;
    return;
  }
  if (!ends_with(o.file, ".cu"))
    throw UsageError(fmt::format("{}: expected a .cu or .ptx file", o.file));
  std::string nvcc = find_nvcc();
  if (nvcc.empty())
    throw UsageError(
        fmt::format("{}: nvcc not found (looked in PATH and /usr/local/cuda/bin); "
                    "compile to PTX elsewhere and pass the .ptx",
                    o.file));
  char tmpl[] = "/tmp/smemlab-XXXXXX.ptx";
  int fd = mkstemps(tmpl, 4);
  if (fd < 0) throw UsageError("cannot create a temporary file");
  close(fd);
  out->ptx_path = tmpl;
  out->temporary = true;
  std::string arch = "-arch=" + o.arch;
  std::vector<const char*> argv = {nvcc.c_str(), "-ptx", "-lineinfo",    arch.c_str(),
                                   "-o",         tmpl,   o.file.c_str(), nullptr};
  pid_t pid = fork();
  if (pid == 0) {
    execv(nvcc.c_str(), const_cast<char* const*>(argv.data()));
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw UsageError(fmt::format("{}: nvcc -ptx failed (see its messages above)", o.file));
}

void apply_recipe(LaunchOptions& o, const PreparedInput& in) {
  if (o.launch_flags_given() || in.recipes.empty()) return;
  const std::string* chosen = nullptr;
  for (const auto& r : in.recipes) {
    auto w = split_words(r);
    for (size_t i = 0; i + 1 < w.size(); ++i) {
      if (w[i] == "--kernel" && (o.kernel.empty() || w[i + 1] == o.kernel)) {
        chosen = &r;
        break;
      }
    }
    if (chosen) break;
  }
  if (!chosen && o.kernel.empty()) chosen = &in.recipes.front();
  if (!chosen) return;
  auto w = split_words(*chosen);
  for (size_t i = 0; i < w.size(); ++i) {
    auto value = [&]() -> std::string {
      if (i + 1 >= w.size())
        throw UsageError(fmt::format("{}: recipe: {} needs a value", o.file, w[i]));
      return w[++i];
    };
    if (w[i] == "--kernel")
      o.kernel = value();
    else if (w[i] == "--grid")
      o.grid = value();
    else if (w[i] == "--block")
      o.block = value();
    else if (w[i] == "--shared")
      o.shared = static_cast<uint32_t>(parse_u64(value(), "--shared"));
    else if (w[i] == "--arg")
      o.args.push_back(value());
    else
      throw UsageError(fmt::format("{}: recipe: unknown option '{}'", o.file, w[i]));
  }
}

std::string demangle(const std::string& mangled) {
  int status = 0;
  char* d = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !d) return mangled;
  std::string s(d);
  std::free(d);
  return s;
}

static std::string strip_params(std::string d) {
  if (!d.empty() && d.back() == ')') {
    int depth = 0;
    for (size_t i = d.size(); i-- > 0;) {
      if (d[i] == ')') ++depth;
      if (d[i] == '(' && --depth == 0) {
        d = d.substr(0, i);
        break;
      }
    }
  }
  // Template instantiations carry their return type: "void f<1>".
  if (d.rfind("void ", 0) == 0) d = d.substr(5);
  return d;
}

std::string resolve_kernel(const std::vector<std::string>& mangled, const std::string& want) {
  if (mangled.empty()) throw UsageError("the PTX has no kernels (.entry)");
  if (want.empty()) {
    if (mangled.size() == 1) return mangled[0];
    std::string list;
    for (const auto& m : mangled) list += "\n  " + strip_params(demangle(m));
    throw UsageError("several kernels; choose one with --kernel:" + list);
  }
  std::vector<std::string> hits;
  for (const auto& m : mangled) {
    std::string d = demangle(m);
    std::string dv = d.rfind("void ", 0) == 0 ? d.substr(5) : d;
    if (m == want || d == want || dv == want || strip_params(d) == want) hits.push_back(m);
  }
  if (hits.size() == 1) return hits[0];
  std::string list;
  for (const auto& m : (hits.empty() ? mangled : hits)) list += "\n  " + demangle(m);
  if (hits.empty()) throw UsageError(fmt::format("no kernel named '{}'; kernels:{}", want, list));
  throw UsageError(fmt::format("'{}' is ambiguous:{}", want, list));
}

emu::Dim3 parse_dim(const std::string& s, const char* what) {
  std::vector<uint32_t> v;
  std::stringstream ss(s);
  std::string part;
  while (std::getline(ss, part, ',')) {
    uint64_t x = parse_u64(part, what);
    if (x == 0 || x > 0x7fffffffu) throw UsageError(fmt::format("bad {} '{}'", what, s));
    v.push_back(static_cast<uint32_t>(x));
  }
  if (v.empty() || v.size() > 3)
    throw UsageError(fmt::format("bad {} '{}': expected X[,Y[,Z]]", what, s));
  v.resize(3, 1);
  return {v[0], v[1], v[2]};
}

ArgSpec parse_arg(const std::string& s) {
  ArgSpec a;
  a.text = s;
  size_t eq = s.find('=');
  if (eq == std::string::npos)
    throw UsageError(fmt::format("bad --arg '{}': expected TYPE=VALUE or TYPE[N]=INIT", s));
  std::string lhs = s.substr(0, eq), rhs = s.substr(eq + 1);
  size_t br = lhs.find('[');
  if (br != std::string::npos) {
    if (lhs.back() != ']') throw UsageError(fmt::format("bad --arg '{}'", s));
    a.buffer = true;
    a.count = parse_u64(lhs.substr(br + 1, lhs.size() - br - 2), "buffer size");
    lhs = lhs.substr(0, br);
  }
  struct TypeInfo {
    const char* name;
    uint32_t size;
    bool is_float, is_signed;
  };
  static const TypeInfo types[] = {
      {"char", 1, false, true},    {"uchar", 1, false, false}, {"short", 2, false, true},
      {"ushort", 2, false, false}, {"int", 4, false, true},    {"unsigned", 4, false, false},
      {"uint", 4, false, false},   {"long", 8, false, true},   {"ulong", 8, false, false},
      {"float", 4, true, true},    {"double", 8, true, true}};
  const TypeInfo* t = nullptr;
  for (const auto& ti : types)
    if (lhs == ti.name) t = &ti;
  if (!t)
    throw UsageError(
        fmt::format("bad --arg '{}': unknown type '{}' (char uchar short ushort int unsigned long "
                    "ulong float double)",
                    s, lhs));
  a.type = t->name;
  a.elem_size = t->size;
  a.is_float = t->is_float;
  a.is_signed = t->is_signed;
  if (!a.buffer) {
    a.value = rhs;
    return a;
  }
  if (rhs == "zeros") {
    a.init = ArgSpec::Init::Zeros;
  } else if (rhs == "iota") {
    a.init = ArgSpec::Init::Iota;
  } else if (rhs.rfind("random(", 0) == 0 && rhs.back() == ')') {
    a.init = ArgSpec::Init::Random;
    a.seed = parse_u64(rhs.substr(7, rhs.size() - 8), "random seed");
  } else if (rhs.rfind("file:", 0) == 0) {
    a.init = ArgSpec::Init::File;
    a.path = rhs.substr(5);
  } else {
    throw UsageError(
        fmt::format("bad --arg '{}': INIT is zeros, iota, random(SEED) or file:PATH", s));
  }
  return a;
}

namespace {

void store(std::vector<uint8_t>& out, size_t i, const ArgSpec& a, double fv, int64_t iv,
           bool use_float) {
  uint8_t* p = out.data() + i * a.elem_size;
  if (a.is_float) {
    double d = use_float ? fv : static_cast<double>(iv);
    if (a.elem_size == 4) {
      float f = static_cast<float>(d);
      std::memcpy(p, &f, 4);
    } else {
      std::memcpy(p, &d, 8);
    }
  } else {
    int64_t v = use_float ? static_cast<int64_t>(fv) : iv;
    std::memcpy(p, &v, a.elem_size);  // little-endian truncation
  }
}

}  // namespace

PreparedArgs prepare_args(emu::Device& dev, const std::vector<ArgSpec>& specs) {
  PreparedArgs out;
  for (const auto& a : specs) {
    if (!a.buffer) {
      std::vector<uint8_t> b(a.elem_size);
      try {
        size_t pos = 0;
        if (a.is_float) {
          double d = std::stod(a.value, &pos);
          store(b, 0, a, d, 0, true);
        } else {
          int64_t v = a.is_signed ? std::stoll(a.value, &pos, 0)
                                  : static_cast<int64_t>(std::stoull(a.value, &pos, 0));
          store(b, 0, a, 0, v, false);
        }
        if (pos != a.value.size()) throw std::invalid_argument(a.value);
      } catch (const std::exception&) {
        throw UsageError(fmt::format("bad --arg '{}': '{}' is not a {}", a.text, a.value, a.type));
      }
      out.bytes.push_back(b);
      out.buffer.push_back(0);
      continue;
    }
    std::vector<uint8_t> data(a.count * a.elem_size, 0);
    if (a.init == ArgSpec::Init::Iota) {
      for (uint64_t i = 0; i < a.count; ++i) store(data, i, a, 0, static_cast<int64_t>(i), false);
    } else if (a.init == ArgSpec::Init::Random) {
      uint64_t x = a.seed * 0x9E3779B97F4A7C15ull + 1;
      for (uint64_t i = 0; i < a.count; ++i) {
        x += 0x9E3779B97F4A7C15ull;  // splitmix64
        uint64_t z = x;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        if (a.is_float)
          store(data, i, a, static_cast<double>(z >> 11) * 0x1.0p-53, 0, true);
        else
          store(data, i, a, 0, static_cast<int64_t>(z % 1000), false);
      }
    } else if (a.init == ArgSpec::Init::File) {
      std::ifstream in(a.path, std::ios::binary);
      if (!in) throw UsageError(fmt::format("--arg '{}': cannot read {}", a.text, a.path));
      in.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(data.size()));
      if (static_cast<size_t>(in.gcount()) != data.size())
        throw UsageError(
            fmt::format("--arg '{}': {} has fewer than {} bytes", a.text, a.path, data.size()));
    }
    uint64_t addr = dev.malloc(data.size(), a.text);
    dev.copy_to(addr, data.data(), data.size());
    out.bytes.push_back(emu::arg(addr));
    out.buffer.push_back(addr);
  }
  return out;
}

void prepare_launch(LaunchOptions o, Prepared* p) {
  prepare_input(o, &p->input);
  apply_recipe(o, p->input);
  try {
    p->module = emu::Module::load_file(p->device, p->input.ptx_path);
  } catch (const ptx::ParseError& e) {
    throw UsageError(e.what());
  }
  p->kernel = resolve_kernel(p->module->kernel_names(), o.kernel);
  try {
    p->module->kernel(p->kernel);  // decode now: unsupported instructions are input errors
  } catch (const emu::DecodeError& e) {
    throw UsageError(e.what());
  }
  if (o.grid.empty() || o.block.empty())
    throw UsageError("--grid and --block are required (or a `// smemlab:` recipe in the file)");
  p->config.grid = parse_dim(o.grid, "--grid");
  p->config.block = parse_dim(o.block, "--block");
  p->config.dynamic_shared = o.shared;
  p->config.threads = o.threads;
  p->config.budget = o.budget;
  for (const auto& s : o.args) p->specs.push_back(parse_arg(s));
  const auto& params = p->module->kernel(p->kernel).params;
  if (p->specs.size() != params.size())
    throw UsageError(fmt::format("{} takes {} arguments, {} --arg given", demangle(p->kernel),
                                 params.size(), p->specs.size()));
  for (size_t i = 0; i < params.size(); ++i) {
    uint32_t want = p->specs[i].buffer ? 8 : p->specs[i].elem_size;
    if (want != params[i].size)
      throw UsageError(fmt::format("--arg {} ('{}') is {} bytes but parameter {} is .{} ({} bytes)",
                                   i, p->specs[i].text, want, i, params[i].type, params[i].size));
  }
  p->args = prepare_args(p->device, p->specs);
}

}  // namespace smemlab::cli
