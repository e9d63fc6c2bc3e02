#include "cli/launch_options.h"

#include <cxxabi.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "emu/half.h"
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

// Words of a recipe line; "..." or '...' quote a word with spaces
// (--kernel "scale<float, 4>").
std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> out;
  std::string w;
  bool in_word = false;
  char quote = 0;
  for (char c : s) {
    if (quote) {
      if (c == quote)
        quote = 0;
      else
        w += c;
    } else if (c == '"' || c == '\'') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t') {
      if (in_word) out.push_back(w);
      w.clear();
      in_word = false;
    } else {
      w += c;
      in_word = true;
    }
  }
  if (in_word) out.push_back(w);
  return out;
}

std::string without_spaces(std::string s) {
  s.erase(std::remove_if(s.begin(), s.end(), [](unsigned char c) { return std::isspace(c); }),
          s.end());
  return s;
}

std::string dir_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
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

// The recipe naming o.kernel, else (no --kernel) the first; nullptr if none.
const std::string* choose_recipe(const LaunchOptions& o, const std::vector<std::string>& recipes) {
  for (const auto& r : recipes) {
    auto w = split_words(r);
    for (size_t i = 0; i + 1 < w.size(); ++i)
      if (w[i] == "--kernel" &&
          (o.kernel.empty() || without_spaces(w[i + 1]) == without_spaces(o.kernel)))
        return &r;
  }
  return o.kernel.empty() && !recipes.empty() ? &recipes.front() : nullptr;
}

// nvcc options of a recipe line (-I, -D, --std, --use_fast_math, --rdc, --Xnvcc).
std::vector<std::string> recipe_nvcc_args(const std::string& recipe) {
  std::vector<std::string> out;
  auto w = split_words(recipe);
  for (size_t i = 0; i < w.size(); ++i) {
    bool has_next = i + 1 < w.size();
    if ((w[i] == "-I" || w[i] == "-D") && has_next) {
      out.push_back(w[i] + w[i + 1]);
      ++i;
    } else if (w[i].rfind("-I", 0) == 0 || w[i].rfind("-D", 0) == 0)
      out.push_back(w[i]);
    else if (w[i] == "--std" && has_next)
      out.push_back("-std=" + w[++i]);
    else if (w[i] == "--use_fast_math")
      out.push_back("--use_fast_math");
    else if (w[i] == "--rdc")
      out.push_back("-rdc=true");
    else if (w[i] == "--Xnvcc" && has_next)
      out.push_back(w[++i]);
  }
  return out;
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
  // nvcc pass-through for .cu input (also accepted in recipes).
  cmd->add_option_function<std::vector<std::string>>(
      "-I",
      [&o](const std::vector<std::string>& v) {
        for (const auto& d : v) o.nvcc_args.push_back("-I" + d);
      },
      "nvcc: include directory");
  cmd->add_option_function<std::vector<std::string>>(
      "-D",
      [&o](const std::vector<std::string>& v) {
        for (const auto& d : v) o.nvcc_args.push_back("-D" + d);
      },
      "nvcc: macro NAME[=VALUE]");
  cmd->add_option_function<std::string>(
      "--std", [&o](const std::string& v) { o.nvcc_args.push_back("-std=" + v); },
      "nvcc: C++ standard (c++17, c++20)");
  cmd->add_flag_callback(
      "--use_fast_math", [&o]() { o.nvcc_args.push_back("--use_fast_math"); },
      "nvcc: --use_fast_math");
  cmd->add_flag_callback(
      "--rdc", [&o]() { o.nvcc_args.push_back("-rdc=true"); }, "nvcc: -rdc=true");
  cmd->add_option_function<std::vector<std::string>>(
      "--Xnvcc",
      [&o](const std::vector<std::string>& v) {
        for (const auto& a : v) o.nvcc_args.push_back(a);
      },
      "nvcc: any argument, passed as is (repeatable)");
  cmd->add_option("--keep-ptx", o.keep_ptx,
                  "keep the PTX compiled from a .cu in this directory (errors then name it)");
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
  if (!o.keep_ptx.empty()) {
    std::string base = o.file.substr(o.file.rfind('/') + 1);
    out->ptx_path = o.keep_ptx + "/" + base.substr(0, base.size() - 3) + ".ptx";
  } else {
    char tmpl[] = "/tmp/smemlab-XXXXXX.ptx";
    int fd = mkstemps(tmpl, 4);
    if (fd < 0) throw UsageError("cannot create a temporary file");
    close(fd);
    out->ptx_path = tmpl;
    out->temporary = true;
  }
  std::string arch = "-arch=" + o.arch;
  std::vector<const char*> argv = {nvcc.c_str(), "-ptx", "-lineinfo", arch.c_str()};
  // The command line's nvcc options, else the chosen recipe's.
  std::vector<std::string> extra = o.nvcc_args;
  if (extra.empty())
    if (const std::string* r = choose_recipe(o, out->recipes)) extra = recipe_nvcc_args(*r);
  for (const auto& a : extra) argv.push_back(a.c_str());
  for (const char* a : {"-o", out->ptx_path.c_str(), o.file.c_str()}) argv.push_back(a);
  argv.push_back(nullptr);
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
  const std::string* chosen = choose_recipe(o, in.recipes);
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
    else if (w[i] == "-I" || w[i] == "-D" || w[i] == "--std" || w[i] == "--Xnvcc")
      value();  // nvcc options: used by prepare_input (recipe_nvcc_args)
    else if (w[i].rfind("-I", 0) == 0 || w[i].rfind("-D", 0) == 0 || w[i] == "--use_fast_math" ||
             w[i] == "--rdc")
      continue;
    else if (w[i] == "--grid")
      o.grid = value();
    else if (w[i] == "--block")
      o.block = value();
    else if (w[i] == "--shared")
      o.shared = static_cast<uint32_t>(parse_u64(value(), "--shared"));
    else if (w[i] == "--arg") {
      // file:PATH in a recipe is relative to the recipe's file.
      std::string a = value();
      size_t f = a.find("=file:");
      if (f != std::string::npos && f + 6 < a.size() && a[f + 6] != '/')
        a = a.substr(0, f + 6) + dir_of(o.file) + a.substr(f + 6);
      o.args.push_back(a);
    } else
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
  // Spaces do not count ("scale<float, 4>" = "scale<float,4>").
  std::string w = without_spaces(want);
  std::vector<std::string> hits;
  for (const auto& m : mangled) {
    std::string d = demangle(m);
    std::string dv = d.rfind("void ", 0) == 0 ? d.substr(5) : d;
    if (m == want || without_spaces(d) == w || without_spaces(dv) == w ||
        without_spaces(strip_params(d)) == w)
      hits.push_back(m);
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
      {"char", 1, false, true},    {"uchar", 1, false, false},  {"short", 2, false, true},
      {"ushort", 2, false, false}, {"int", 4, false, true},     {"unsigned", 4, false, false},
      {"uint", 4, false, false},   {"long", 8, false, true},    {"ulong", 8, false, false},
      {"float", 4, true, true},    {"double", 8, true, true},   {"int8", 1, false, true},
      {"uint8", 1, false, false},  {"int16", 2, false, true},   {"uint16", 2, false, false},
      {"int32", 4, false, true},   {"uint32", 4, false, false}, {"int64", 8, false, true},
      {"uint64", 8, false, false}, {"half", 2, true, true},     {"bf16", 2, true, true},
      {"ptr", 8, false, false},    {"bytes", 0, false, false}};
  const TypeInfo* t = nullptr;
  for (const auto& ti : types)
    if (lhs == ti.name) t = &ti;
  if (!t)
    throw UsageError(
        fmt::format("bad --arg '{}': unknown type '{}' (char uchar short ushort int unsigned long "
                    "ulong int8 uint8 int16 uint16 int32 uint32 int64 uint64 half bf16 float "
                    "double ptr bytes)",
                    s, lhs));
  a.type = t->name;
  a.elem_size = t->size;
  a.is_float = t->is_float;
  a.is_signed = t->is_signed;
  a.half = t->size == 2 && t->is_float;
  a.bf16 = a.type == "bf16";
  a.pointer = a.type == "ptr";
  a.raw = a.type == "bytes";
  if (a.raw) {  // bytes=HEX: raw parameter bytes, e.g. a struct passed by value
    if (a.buffer || rhs.empty() || rhs.size() % 2 ||
        rhs.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
      throw UsageError(
          fmt::format("bad --arg '{}': bytes=HEX takes an even number of hex digits (no [N])", s));
    a.elem_size = static_cast<uint32_t>(rhs.size() / 2);
    a.value = rhs;
    return a;
  }
  if (!a.buffer) {
    a.value = rhs;
    return a;
  }
  if (rhs.size() >= 2 && rhs.front() == '{' && rhs.back() == '}') {
    a.init = ArgSpec::Init::List;
    std::string body = rhs.substr(1, rhs.size() - 2);
    size_t start = 0;
    while (start <= body.size() && !body.empty()) {
      size_t comma = body.find(',', start);
      std::string v = body.substr(start, comma == std::string::npos ? comma : comma - start);
      v.erase(0, v.find_first_not_of(' '));
      v.erase(v.find_last_not_of(' ') + 1);
      a.list.push_back(v);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (a.list.size() != a.count)
      throw UsageError(
          fmt::format("bad --arg '{}': {} values for {} elements", s, a.list.size(), a.count));
    return a;
  }
  if (a.pointer)
    throw UsageError(fmt::format("bad --arg '{}': a ptr buffer takes a list {{@0,@1+8,0,...}}", s));
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
    if (a.half) {  // rounded to nearest even from float, as __float2half_rn
      uint16_t h = a.bf16 ? emu::float_to_bf16(static_cast<float>(d))
                          : emu::float_to_half(static_cast<float>(d));
      std::memcpy(p, &h, 2);
    } else if (a.elem_size == 4) {
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

namespace {

// One value of `a` into element i of out. "@I" / "@I+OFFSET" (ptr only) is
// the device address of buffer argument I plus OFFSET bytes; floats take
// inf, -inf and nan.
void store_value(std::vector<uint8_t>& out, size_t i, const ArgSpec& a, const std::string& text,
                 const std::vector<uint64_t>& buffers) {
  try {
    size_t pos = 0;
    if (a.pointer && !text.empty() && text[0] == '@') {
      size_t plus = text.find_first_of("+-", 1);
      size_t idx = std::stoul(text.substr(1, plus == std::string::npos ? plus : plus - 1), &pos);
      if (pos != (plus == std::string::npos ? text.size() - 1 : plus - 1))
        throw std::invalid_argument(text);
      int64_t off = 0;
      if (plus != std::string::npos) {
        off = std::stoll(text.substr(plus), &pos, 0);
        if (plus + pos != text.size()) throw std::invalid_argument(text);
      }
      if (idx >= buffers.size() || buffers[idx] == 0)
        throw UsageError(
            fmt::format("bad --arg '{}': '{}' does not name a buffer argument", a.text, text));
      store(out, i, a, 0, static_cast<int64_t>(buffers[idx] + static_cast<uint64_t>(off)), false);
      return;
    }
    if (a.is_float) {
      store(out, i, a, std::stod(text, &pos), 0, true);
    } else {
      int64_t v = a.is_signed ? std::stoll(text, &pos, 0)
                              : static_cast<int64_t>(std::stoull(text, &pos, 0));
      store(out, i, a, 0, v, false);
    }
    if (pos != text.size()) throw std::invalid_argument(text);
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception&) {
    throw UsageError(fmt::format("bad --arg '{}': '{}' is not a {}", a.text, text, a.type));
  }
}

}  // namespace

PreparedArgs prepare_args(emu::Device& dev, const std::vector<ArgSpec>& specs) {
  PreparedArgs out;
  // Buffers first, so that pointer values (@I) can name any buffer argument.
  std::vector<uint64_t> addr_of(specs.size(), 0);
  for (size_t k = 0; k < specs.size(); ++k)
    if (specs[k].buffer)
      addr_of[k] = dev.malloc(specs[k].count * specs[k].elem_size, specs[k].text);
  for (size_t k = 0; k < specs.size(); ++k) {
    const ArgSpec& a = specs[k];
    if (a.raw) {
      std::vector<uint8_t> b(a.elem_size);
      for (size_t j = 0; j < b.size(); ++j)
        b[j] = static_cast<uint8_t>(std::stoul(a.value.substr(2 * j, 2), nullptr, 16));
      out.bytes.push_back(b);
      out.buffer.push_back(0);
      continue;
    }
    if (!a.buffer) {
      std::vector<uint8_t> b(a.elem_size);
      store_value(b, 0, a, a.value, addr_of);
      out.bytes.push_back(b);
      out.buffer.push_back(0);
      continue;
    }
    std::vector<uint8_t> data(a.count * a.elem_size, 0);
    if (a.init == ArgSpec::Init::List) {
      for (uint64_t i = 0; i < a.count; ++i) store_value(data, i, a, a.list[i], addr_of);
    } else if (a.init == ArgSpec::Init::Iota) {
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
    uint64_t addr = addr_of[k];
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
