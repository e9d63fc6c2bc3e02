#include "session/launch_spec.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "emu/half.h"
#include "emu/launch.h"
#include "ptx/lexer.h"
#include "session/interrupt.h"

namespace smemlab::session {
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

// --- Input files -----------------------------------------------------------
std::string without_spaces(std::string s) {
  s.erase(std::remove_if(s.begin(), s.end(), [](unsigned char c) { return std::isspace(c); }),
          s.end());
  return s;
}

std::string dir_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

// Digits only (decimal, or hex with 0x): stoull alone would accept "-1"
// (as 2^64-1), leading spaces and a '+'.
uint64_t parse_u64(const std::string& s, const char* what) {
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0])))
    throw UsageError(fmt::format("bad {} '{}': expected a non-negative integer", what, s));
  try {
    size_t pos = 0;
    uint64_t v = std::stoull(s, &pos, 0);
    if (pos != s.size()) throw std::invalid_argument(s);
    return v;
  } catch (const std::out_of_range&) {
    throw UsageError(fmt::format("bad {} '{}': out of range (at most {})", what, s, UINT64_MAX));
  } catch (const std::exception&) {
    throw UsageError(fmt::format("bad {} '{}'", what, s));
  }
}

// The recipe naming o.kernel, else (no --kernel) the first; SIZE_MAX if none.
size_t choose_recipe(const LaunchOptions& o, const std::vector<Recipe>& recipes) {
  for (size_t r = 0; r < recipes.size(); ++r) {
    const auto& w = recipes[r].words;
    for (size_t i = 0; i + 1 < w.size(); ++i)
      if (w[i].text == "--kernel" &&
          (o.kernel.empty() || without_spaces(w[i + 1].text) == without_spaces(o.kernel)))
        return r;
  }
  return o.kernel.empty() && !recipes.empty() ? 0 : SIZE_MAX;
}

// nvcc options of a recipe line (-I, -D, --std, --use_fast_math, --rdc, --Xnvcc).
std::vector<std::string> recipe_nvcc_args(const Recipe& recipe) {
  std::vector<std::string> out;
  const auto& w = recipe.words;
  for (size_t i = 0; i < w.size(); ++i) {
    bool has_next = i + 1 < w.size();
    const std::string& t = w[i].text;
    if ((t == "-I" || t == "-D") && has_next) {
      out.push_back(t + w[i + 1].text);
      ++i;
    } else if (t.rfind("-I", 0) == 0 || t.rfind("-D", 0) == 0)
      out.push_back(t);
    else if (t == "--std" && has_next)
      out.push_back("-std=" + w[++i].text);
    else if (t == "--use_fast_math")
      out.push_back("--use_fast_math");
    else if (t == "--rdc")
      out.push_back("-rdc=true");
    else if (t == "--Xnvcc" && has_next)
      out.push_back(w[++i].text);
  }
  return out;
}

// nvcc's PTX for one command line and one version of the source file, kept
// for the life of the process: `report` and `fix` prepare the same .cu once
// per recipe or candidate run, and nvcc -ptx (seconds) dominated their time.
// Keyed by every argument but the output path and by the file's bytes, so an
// edited or rewritten file is compiled again. Headers the file includes are
// not part of the key: within one process they do not change.
class PtxMemo {
 public:
  bool get(const std::string& key, std::string* ptx) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(key);
    if (it == entries_.end()) return false;
    *ptx = it->second;
    return true;
  }
  void put(const std::string& key, std::string ptx) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (key.size() + ptx.size() > kMaxBytes) return;
    if (bytes_ + key.size() + ptx.size() > kMaxBytes) {  // bounded: start again rather than grow
      entries_.clear();
      bytes_ = 0;
    }
    bytes_ += key.size() + ptx.size();
    entries_[key] = std::move(ptx);
  }

 private:
  static constexpr size_t kMaxBytes = 64u << 20;
  std::mutex mutex_;
  std::map<std::string, std::string> entries_;
  size_t bytes_ = 0;
};

PtxMemo& ptx_memo() {
  static PtxMemo memo;
  return memo;
}

bool read_whole(const std::string& path, std::string* text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  *text = s.str();
  return static_cast<bool>(in) || in.eof();
}

}  // namespace

PreparedInput::~PreparedInput() {
  if (temporary && !ptx_path.empty()) std::remove(ptx_path.c_str());
  if (!temp_dir.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(temp_dir, ec);
    set_interrupt_temp_paths("", "");
  }
}

void prepare_input(const LaunchOptions& o, PreparedInput* out) {
  // The name and the kind of file first: never read a device or a huge file.
  bool is_ptx = ends_with(o.file, ".ptx");
  if (!is_ptx && !ends_with(o.file, ".cu"))
    throw UsageError(fmt::format("{}: expected a .cu or .ptx file", o.file));
  struct stat st {};
  if (stat(o.file.c_str(), &st) != 0 || access(o.file.c_str(), R_OK) != 0)
    throw UsageError(fmt::format("{}: cannot read file", o.file));
  if (!S_ISREG(st.st_mode)) throw UsageError(fmt::format("{}: not a regular file", o.file));
  if (static_cast<uint64_t>(st.st_size) > kMaxInputBytes)
    throw UsageError(fmt::format("{}: {} bytes; input files are limited to {} bytes", o.file,
                                 st.st_size, kMaxInputBytes));
  out->recipes = read_recipes(o.file);
  if (is_ptx) {
    out->ptx_path = o.file;
    return;
  }
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
    // One private directory for the PTX and nvcc's own scratch files
    // (TMPDIR), removed with `out` (also on Ctrl-C).
    std::string base = std::filesystem::temp_directory_path().string();
    std::string tmpl = base + "/smemlab-XXXXXX";
    if (!mkdtemp(tmpl.data()))
      throw UsageError(fmt::format("cannot create a temporary directory in {}", base));
    out->temp_dir = tmpl;
    out->ptx_path = tmpl + "/kernel.ptx";
    out->temporary = true;
    set_interrupt_temp_paths(out->temp_dir, out->ptx_path);
  }
  std::string arch = "-arch=" + o.arch;
  std::vector<const char*> argv = {nvcc.c_str(), "-ptx", "-lineinfo", arch.c_str()};
  // The command line's nvcc options, else the chosen recipe's.
  std::vector<std::string> extra = o.nvcc_args;
  if (extra.empty())
    if (size_t r = choose_recipe(o, out->recipes); r != SIZE_MAX)
      extra = recipe_nvcc_args(out->recipes[r]);
  for (const auto& a : extra) argv.push_back(a.c_str());
  std::string key;
  for (const char* a : argv) key.append(a).push_back('\0');
  std::string source;  // the key holds the file's bytes, not a timestamp
  if (!read_whole(o.file, &source)) throw UsageError(fmt::format("{}: cannot read file", o.file));
  key += source;
  if (std::string ptx; ptx_memo().get(key, &ptx)) {
    std::ofstream f(out->ptx_path, std::ios::binary);
    f << ptx;
    if (!f.flush()) throw UsageError(fmt::format("{}: cannot write", out->ptx_path));
    return;
  }
  for (const char* a : {"-o", out->ptx_path.c_str(), o.file.c_str()}) argv.push_back(a);
  argv.push_back(nullptr);
  std::vector<std::string> env_text;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "TMPDIR=", 7) != 0) env_text.push_back(*e);
  if (!out->temp_dir.empty()) env_text.push_back("TMPDIR=" + out->temp_dir);
  std::vector<const char*> envp;
  for (const auto& e : env_text) envp.push_back(e.c_str());
  envp.push_back(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    execve(nvcc.c_str(), const_cast<char* const*>(argv.data()),
           const_cast<char* const*>(envp.data()));
    _exit(127);
  }
  set_interrupt_child(pid);
  int status = 0;
  bool ok =
      pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  set_interrupt_child(0);
  if (interrupted()) throw Interrupted{};  // unwinding removes the temporary files
  if (!ok) throw UsageError(fmt::format("{}: nvcc -ptx failed (see its messages above)", o.file));
  if (std::string ptx; read_whole(out->ptx_path, &ptx)) ptx_memo().put(key, std::move(ptx));
}

void apply_recipe(LaunchOptions& o, const PreparedInput& in) {
  if (o.launch_flags_given() || in.recipes.empty()) return;
  size_t chosen = choose_recipe(o, in.recipes);
  if (chosen == SIZE_MAX) return;
  const Recipe& recipe = in.recipes[chosen];
  const auto& w = recipe.words;
  // FILE:LINE:COL of word k (lines and columns are 0 for recipes built by
  // hand).
  auto where = [&](size_t k) {
    return fmt::format("{}:{}:{}", o.file, recipe.line, recipe.column + static_cast<int>(w[k].at));
  };
  for (size_t i = 0; i < w.size(); ++i) {
    size_t opt = i;
    const std::string& name = w[i].text;
    // nvcc options: used by prepare_input (recipe_nvcc_args).
    if (name.rfind("-I", 0) == 0 || name.rfind("-D", 0) == 0 || name == "--use_fast_math" ||
        name == "--rdc" || name == "--std" || name == "--Xnvcc") {
      if ((name == "-I" || name == "-D" || name == "--std" || name == "--Xnvcc") && ++i >= w.size())
        throw UsageError(fmt::format("{}: recipe: {} needs a value", where(opt), name));
      continue;
    }
    if (name != "--kernel" && name != "--grid" && name != "--block" && name != "--shared" &&
        name != "--arg")
      throw UsageError(fmt::format("{}: recipe: unknown option '{}'", where(opt), name));
    if (i + 1 >= w.size())
      throw UsageError(fmt::format("{}: recipe: {} needs a value", where(opt), name));
    const std::string& value = w[++i].text;
    // Values are checked here so that an error names the recipe's place.
    try {
      if (name == "--kernel") {
        o.kernel = value;
      } else if (name == "--grid") {
        parse_dim(value, "--grid");
        o.grid = value;
      } else if (name == "--block") {
        parse_dim(value, "--block");
        o.block = value;
      } else if (name == "--shared") {
        uint64_t shared = parse_u64(value, "--shared");
        if (shared > emu::kMaxSharedPerBlock)
          throw UsageError(fmt::format("--shared {}: more than CUDA's {} bytes per block", shared,
                                       emu::kMaxSharedPerBlock));
        o.shared = static_cast<uint32_t>(shared);
      } else {
        // file:PATH in a recipe is relative to the recipe's file.
        std::string a = value;
        size_t f = a.find("=file:");
        if (f != std::string::npos && f + 6 < a.size() && a[f + 6] != '/')
          a = a.substr(0, f + 6) + dir_of(o.file) + a.substr(f + 6);
        parse_arg(a);
        o.args.push_back(a);
      }
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("{}: recipe: {}", where(opt), e.what()));
    }
  }
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
    if (x == 0 || x > emu::kMaxGridDimX)
      throw UsageError(
          fmt::format("bad {} '{}': each dimension is 1 to {}", what, s, emu::kMaxGridDimX));
    v.push_back(static_cast<uint32_t>(x));
  }
  if (v.empty() || v.size() > 3 || s.back() == ',')
    throw UsageError(fmt::format("bad {} '{}': expected X[,Y[,Z]]", what, s));
  v.resize(3, 1);
  return {v[0], v[1], v[2]};
}

namespace {

// texND:FORMAT[W{,H{,D}}]=INIT{/OPTION,...} and surfND:FORMAT[...]=INIT: a
// buffer of W*H*D texels (FORMAT: float half char uchar short ushort int
// uint, with 2 or 4 for channels: float4) and a texture or surface object
// over it, whose handle is the argument (cudaTextureObject_t /
// cudaSurfaceObject_t). Texture options: point|linear, clamp|wrap|mirror|
// border, normalized (coordinates), nfloat (normalized-float reads).
ArgSpec parse_object_arg(const std::string& s) {
  auto bad = [&](const std::string& why) {
    return UsageError(fmt::format("bad --arg '{}': {}", s, why));
  };
  bool tex = s.rfind("tex", 0) == 0;
  size_t colon = s.find(':'), eq = s.find('=');
  if (colon == std::string::npos || eq == std::string::npos || eq < colon)
    throw bad("expected texND:FORMAT[W,H,D]=INIT or surfND:FORMAT[W,H,D]=INIT");
  std::string kind = s.substr(0, colon);
  int dims = kind == "tex1d" || kind == "surf1d"   ? 1
             : kind == "tex2d" || kind == "surf2d" ? 2
             : kind == "tex3d" || kind == "surf3d" ? 3
                                                   : 0;
  if (!dims) throw bad("the object is tex1d, tex2d, tex3d, surf1d, surf2d or surf3d");
  std::string lhs = s.substr(colon + 1, eq - colon - 1), rhs = s.substr(eq + 1);
  std::string options;
  size_t slash = rhs.find('/');
  if (slash != std::string::npos) options = rhs.substr(slash + 1), rhs = rhs.substr(0, slash);
  size_t br = lhs.find('[');
  if (br == std::string::npos || lhs.back() != ']') throw bad("expected FORMAT[W,H,D]");
  std::string fmt_name = lhs.substr(0, br);
  unsigned channels = 1;
  if (!fmt_name.empty() && (fmt_name.back() == '2' || fmt_name.back() == '4')) {  // float4
    channels = static_cast<unsigned>(fmt_name.back() - '0');
    fmt_name.pop_back();
  }
  using F = emu::texture::Format;
  static const struct {
    const char* name;
    const char* elem;  // the buffer's element type
    F format;
  } formats[] = {{"float", "float", F::F32}, {"half", "half", F::F16},
                 {"char", "char", F::S8},    {"uchar", "uchar", F::U8},
                 {"short", "short", F::S16}, {"ushort", "ushort", F::U16},
                 {"int", "int", F::S32},     {"uint", "unsigned", F::U32}};
  const char* elem = nullptr;
  emu::texture::Descriptor d;
  for (const auto& f : formats)
    if (fmt_name == f.name) elem = f.elem, d.format = f.format;
  if (!elem) throw bad(fmt::format("unknown texel format '{}'", lhs.substr(0, br)));
  std::vector<uint64_t> ext;
  std::stringstream in(lhs.substr(br + 1, lhs.size() - br - 2));
  for (std::string part; std::getline(in, part, ',');) {
    uint64_t v = parse_u64(part, "extent");
    if (v == 0 || v > 65536) throw bad("each extent is 1 to 65536 texels");
    ext.push_back(v);
  }
  if (ext.size() != static_cast<size_t>(dims))
    throw bad(fmt::format("{} takes {} extents", kind, dims));
  ext.resize(3, 1);
  d.channels = channels;
  d.dims = static_cast<unsigned>(dims);
  d.width = static_cast<uint32_t>(ext[0]);
  d.height = static_cast<uint32_t>(ext[1]);
  d.depth = static_cast<uint32_t>(ext[2]);
  std::stringstream opts(options);
  for (std::string o; std::getline(opts, o, ',');) {
    using A = emu::texture::Address;
    if (!tex) throw bad("surfaces take no options");
    if (o == "point")
      d.filter = emu::texture::Filter::Point;
    else if (o == "linear")
      d.filter = emu::texture::Filter::Linear;
    else if (o == "clamp" || o == "wrap" || o == "mirror" || o == "border")
      d.address.fill(o == "clamp"    ? A::Clamp
                     : o == "wrap"   ? A::Wrap
                     : o == "mirror" ? A::Mirror
                                     : A::Border);
    else if (o == "normalized")
      d.normalized_coords = true;
    else if (o == "nfloat")
      d.read = emu::texture::Read::NormalizedFloat;
    else
      throw bad(
          fmt::format("unknown option '{}' (point linear clamp wrap mirror border "
                      "normalized nfloat)",
                      o));
  }
  uint64_t texels = ext[0] * ext[1] * ext[2];
  ArgSpec a = parse_arg(fmt::format("{}[{}]={}", elem, texels * channels, rhs));
  a.text = s;
  a.object = tex ? ArgSpec::Object::Texture : ArgSpec::Object::Surface;
  a.desc = d;
  return a;
}

}  // namespace

ArgSpec parse_arg(const std::string& s) {
  if (s.rfind("tex", 0) == 0 || s.rfind("surf", 0) == 0) return parse_object_arg(s);
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
    // The value must fit its type ("@I+OFF" pointers are resolved, and
    // checked, once the buffers exist: prepare_args).
    if (!(a.pointer && !rhs.empty() && rhs[0] == '@')) scalar_bytes(a);
    return a;
  }
  // count * size must not wrap, and the emulator allocates it all.
  if (a.count > emu::kMaxAllocationBytes / a.elem_size)
    throw UsageError(fmt::format(
        "bad --arg '{}': {} elements of {} bytes exceed the {}-byte limit for one buffer", s,
        a.count, a.elem_size, emu::kMaxAllocationBytes));
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

// One scalar value `v` of `a`'s type into element i of `b`, range-checked.
void store_checked(std::vector<uint8_t>& b, size_t i, const ArgSpec& a, const std::string& v) {
  auto bad = [&](const std::string& why) {
    return UsageError(fmt::format("bad --arg '{}': {}", a.text, why));
  };
  size_t pos = 0;
  if (a.is_float) {
    double d = 0;
    try {
      d = std::stod(v, &pos);
    } catch (const std::out_of_range&) {
      throw bad(fmt::format("'{}' is out of range for {}", v, a.type));
    } catch (const std::exception&) {
      throw bad(fmt::format("'{}' is not a {}", v, a.type));
    }
    if (pos != v.size() || v.empty() || std::isspace(static_cast<unsigned char>(v[0])))
      throw bad(fmt::format("'{}' is not a {}", v, a.type));
    if (a.elem_size == 4 && std::isfinite(d) && std::fabs(d) > FLT_MAX)
      throw bad(fmt::format("'{}' is out of range for float", v));
    store(b, i, a, d, 0, true);
    return;
  }
  // Integers: decimal, 0x hex or 0 octal, in the range of the type.
  bool neg = !v.empty() && v[0] == '-';
  std::string digits = neg ? v.substr(1) : v;
  if (digits.empty() || !std::isdigit(static_cast<unsigned char>(digits[0])))
    throw bad(fmt::format("'{}' is not a {}", v, a.type));
  uint64_t mag = 0;
  try {
    mag = std::stoull(digits, &pos, 0);
  } catch (const std::out_of_range&) {
    mag = UINT64_MAX;  // more than 64 bits: out of range for every type, reported below
    pos = digits.size();
  } catch (const std::exception&) {
    throw bad(fmt::format("'{}' is not a {}", v, a.type));
  }
  if (pos != digits.size()) throw bad(fmt::format("'{}' is not a {}", v, a.type));
  unsigned bits = a.elem_size * 8;
  uint64_t max = a.is_signed ? (uint64_t{1} << (bits - 1)) - 1
                             : (bits == 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1);
  uint64_t min_mag = a.is_signed ? uint64_t{1} << (bits - 1) : 0;  // |most negative|
  bool fits = neg ? mag <= min_mag : mag <= max;
  if (!fits) {
    std::string lo = a.is_signed ? fmt::format("-{}", min_mag) : "0";
    throw bad(fmt::format("{} is out of range for {} ({} to {})", v, a.type, lo, max));
  }
  int64_t iv = neg ? static_cast<int64_t>(0 - mag) : static_cast<int64_t>(mag);
  store(b, i, a, 0, iv, false);
}

emu::ArgBytes scalar_bytes(const ArgSpec& a) {
  std::vector<uint8_t> b(a.elem_size);
  store_checked(b, 0, a, a.value);
  return b;
}

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
    store_checked(out, i, a, text);
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception&) {
    throw UsageError(fmt::format("bad --arg '{}': '{}' is not a {}", a.text, text, a.type));
  }
}

PreparedArgs prepare_args(emu::Device& dev, const std::vector<ArgSpec>& specs) {
  PreparedArgs out;
  // Buffers first, so that pointer values (@I) can name any buffer argument.
  std::vector<uint64_t> addr_of(specs.size(), 0);
  for (size_t k = 0; k < specs.size(); ++k)
    if (specs[k].buffer) try {
        addr_of[k] = dev.malloc(specs[k].count * specs[k].elem_size, specs[k].text);
      } catch (const std::length_error& e) {
        throw UsageError(fmt::format("--arg {}", e.what()));
      }
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
    uint64_t value = addr;
    if (a.object != ArgSpec::Object::None) {  // the object's handle instead of the address
      emu::texture::Descriptor d = a.desc;
      d.base = addr;
      try {
        value =
            a.object == ArgSpec::Object::Texture ? dev.create_texture(d) : dev.create_surface(d);
      } catch (const std::invalid_argument& e) {
        throw UsageError(fmt::format("bad --arg '{}': {}", a.text, e.what()));
      }
    }
    out.bytes.push_back(emu::arg(value));
    out.buffer.push_back(addr);
  }
  return out;
}

void prepare_launch(LaunchOptions o, Prepared* p) {
  install_interrupt_handlers();
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
  if (std::string e = emu::launch_limits_error(p->config.grid, p->config.block); !e.empty())
    throw UsageError(fmt::format("--grid {} --block {}: {}", o.grid, o.block, e));
  p->config.dynamic_shared = o.shared;
  p->config.threads = o.threads;
  p->config.budget = o.budget;
  std::optional<emu::Schedule> schedule = emu::parse_schedule(o.schedule);
  if (!schedule)
    throw UsageError(fmt::format(
        "--schedule {}: expected gpu, serial, random or random:SEED (SEED a decimal number)",
        o.schedule));
  p->config.schedule = *schedule;
  p->config.stop = &interrupted();
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

}  // namespace smemlab::session
