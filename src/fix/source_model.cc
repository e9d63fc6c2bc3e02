#include "fix/source_model.h"

#include <clang-c/Index.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

namespace smemlab::fix {
namespace {

constexpr const char* kPreludePath = "/smemlab-fix/cuda_prelude.h";
constexpr const char* kStubDir = "/smemlab-fix/stub";
constexpr const char* kStubHeaders[] = {"/smemlab-fix/stub/texture_fetch_functions.h",
                                        "/smemlab-fix/stub/texture_indirect_functions.h"};
constexpr const char kPrelude[] =
#include "fix/cuda_prelude.inc"
    ;

std::string str(CXString s) {
  const char* c = clang_getCString(s);
  std::string out = c ? c : "";
  clang_disposeString(s);
  return out;
}

std::vector<CXCursor> children(CXCursor c) {
  std::vector<CXCursor> out;
  clang_visitChildren(
      c,
      [](CXCursor child, CXCursor, CXClientData data) {
        static_cast<std::vector<CXCursor>*>(data)->push_back(child);
        return CXChildVisit_Continue;
      },
      &out);
  return out;
}

// Expansion offset in the main file, or nullopt outside it.
std::optional<unsigned> offset_of(CXSourceLocation loc) {
  if (!clang_Location_isFromMainFile(loc)) return std::nullopt;
  unsigned off = 0;
  clang_getExpansionLocation(loc, nullptr, nullptr, nullptr, &off);
  return off;
}

// A range is rewritable when both ends are spelled where they expand (no macro).
bool spelled_in_place(CXSourceRange r) {
  for (CXSourceLocation l : {clang_getRangeStart(r), clang_getRangeEnd(r)}) {
    if (!clang_Location_isFromMainFile(l)) return false;
    unsigned exp = 0, spell = 0;
    CXFile ef = nullptr, sf = nullptr;
    clang_getExpansionLocation(l, &ef, nullptr, nullptr, &exp);
    clang_getSpellingLocation(l, &sf, nullptr, nullptr, &spell);
    if (exp != spell || !clang_File_isEqual(ef, sf)) return false;
  }
  return true;
}

Range range_of(CXCursor c) {
  CXSourceRange r = clang_getCursorExtent(c);
  Range out;
  clang_getExpansionLocation(clang_getRangeStart(r), nullptr, nullptr, nullptr, &out.begin);
  clang_getExpansionLocation(clang_getRangeEnd(r), nullptr, nullptr, nullptr, &out.end);
  return out;
}

CXCursor strip(CXCursor c) {
  for (;;) {
    CXCursorKind k = clang_getCursorKind(c);
    if (k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr && k != CXCursor_CStyleCastExpr &&
        k != CXCursor_CXXReinterpretCastExpr && k != CXCursor_CXXStaticCastExpr)
      return c;
    auto kids = children(c);
    // Casts have their type as a child too; the expression is the last one.
    std::optional<CXCursor> expr;
    for (const CXCursor& k2 : kids)
      if (clang_isExpression(clang_getCursorKind(k2))) expr = k2;
    if (!expr) return c;
    c = *expr;
  }
}

bool has_side_effect_tokens(CXTranslationUnit tu, CXCursor c) {
  CXToken* tokens = nullptr;
  unsigned n = 0;
  clang_tokenize(tu, clang_getCursorExtent(c), &tokens, &n);
  bool found = false;
  static const char* kModifying[] = {
      "++", "--", "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="};
  for (unsigned i = 0; i < n && !found; ++i) {
    if (clang_getTokenKind(tokens[i]) != CXToken_Punctuation) continue;
    std::string t = str(clang_getTokenSpelling(tu, tokens[i]));
    for (const char* m : kModifying) found |= t == m;
  }
  clang_disposeTokens(tu, tokens, n);
  return found;
}

std::optional<int64_t> evaluate(CXCursor expr) {
  CXEvalResult r = clang_Cursor_Evaluate(expr);
  if (!r) return std::nullopt;
  std::optional<int64_t> out;
  if (clang_EvalResult_getKind(r) == CXEval_Int) out = clang_EvalResult_getAsLongLong(r);
  clang_EvalResult_dispose(r);
  return out;
}

std::optional<unsigned> size_of(CXType t) {
  long long s = clang_Type_getSizeOf(t);
  if (s <= 0) return std::nullopt;
  return static_cast<unsigned>(s);
}

class Walker {
 public:
  Walker(CXTranslationUnit tu, SourceModel& m) : tu_(tu), m_(m) {}

  void collect_arrays(CXCursor c) {
    for (const CXCursor& k : children(c)) {
      if (clang_getCursorKind(k) == CXCursor_VarDecl) maybe_shared(k);
      collect_arrays(k);
    }
  }

  void visit(CXCursor c) {
    CXCursorKind kind = clang_getCursorKind(c);
    if (kind == CXCursor_ArraySubscriptExpr) return subscript(c);
    if (kind == CXCursor_BinaryOperator && offset_use(c)) return;
    if (kind == CXCursor_DeclRefExpr) {
      if (auto a = array_of(c)) ++m_.arrays[*a].other_uses;
      return;
    }
    if (kind == CXCursor_VarDecl && maybe_alias(c)) return;
    for (const CXCursor& k : children(c)) visit(k);
  }

 private:
  // The array a DeclRefExpr names, directly (decl) or through an alias.
  std::optional<size_t> array_of(CXCursor ref, bool* via_alias = nullptr) {
    auto off = offset_of(clang_getCursorLocation(clang_getCursorReferenced(ref)));
    if (!off) return std::nullopt;
    if (auto it = decls_.find(*off); it != decls_.end()) return it->second;
    if (auto it = aliases_.find(*off); it != aliases_.end()) {
      if (via_alias) *via_alias = true;
      return it->second;
    }
    return std::nullopt;
  }

  void maybe_shared(CXCursor c) {
    bool shared = false;
    for (const CXCursor& k : children(c))
      shared |= clang_getCursorKind(k) == CXCursor_CUDASharedAttr;
    if (!shared) return;
    auto off = offset_of(clang_getCursorLocation(c));
    if (!off) return;
    CXType t = clang_getCursorType(c);
    CXType elem = t;
    int dims = 0;
    while (clang_getArrayElementType(elem).kind != CXType_Invalid) {
      elem = clang_getArrayElementType(elem);
      ++dims;
    }
    if (dims == 0) return;  // a shared scalar: no layout to change
    SourceArray a;
    a.name = str(clang_getCursorSpelling(c));
    CXCursor parent = clang_getCursorSemanticParent(c);
    a.function = str(clang_getCursorSpelling(parent));
    a.is_extern = clang_Cursor_getStorageClass(c) == CX_SC_Extern;
    unsigned line = 0, col = 0;
    clang_getExpansionLocation(clang_getCursorLocation(c), nullptr, &line, &col, nullptr);
    a.line = static_cast<int>(line);
    a.column = static_cast<int>(col);
    a.elem_bytes = size_of(elem);
    std::vector<CXCursor> extents;
    for (const CXCursor& k : children(c)) {
      if (!clang_isExpression(clang_getCursorKind(k))) continue;
      if (range_of(k).begin <= *off) continue;  // before the name: an attribute's argument
      extents.push_back(k);
    }
    std::sort(extents.begin(), extents.end(),
              [](CXCursor x, CXCursor y) { return range_of(x).begin < range_of(y).begin; });
    for (const CXCursor& e : extents) {
      a.extents.push_back(range_of(e));
      a.extent_values.push_back(evaluate(e));
    }
    decls_[*off] = m_.arrays.size();
    m_.arrays.push_back(std::move(a));
  }

  // `T* p = reinterpret_cast<T*>(dyn);`: p is an alias of dyn. A pointer
  // initialised from a subscript (`&tile[r][0]`) is not: its offset is unknown.
  bool maybe_alias(CXCursor var) {
    CXType t = clang_getCursorType(var);
    if (t.kind != CXType_Pointer) return false;
    std::optional<size_t> target;
    bool subscripted = false;
    std::vector<CXCursor> stack = children(var);
    while (!stack.empty()) {
      CXCursor k = stack.back();
      stack.pop_back();
      CXCursorKind kk = clang_getCursorKind(k);
      if (kk == CXCursor_ArraySubscriptExpr) subscripted = true;
      if (kk == CXCursor_DeclRefExpr) {
        if (auto a = array_of(k)) target = a;
      }
      for (const CXCursor& g : children(k)) stack.push_back(g);
    }
    if (!target || subscripted) return false;
    auto off = offset_of(clang_getCursorLocation(var));
    if (!off) return false;
    aliases_[*off] = *target;
    SourceArray& a = m_.arrays[*target];
    if (auto pointee = size_of(clang_getPointeeType(t)))
      a.alias_elem_bytes = std::min(a.alias_elem_bytes.value_or(*pointee), *pointee);
    return true;
  }

  // `base + E` / `E + base` with base the array or an alias: recorded as an
  // offset use, E visited for further uses.
  bool offset_use(CXCursor c) {
    auto kids = children(c);
    if (kids.size() != 2) return false;
    CXCursor l = strip(kids[0]), r = strip(kids[1]);
    const bool base_left = clang_getCursorKind(l) == CXCursor_DeclRefExpr && array_of(l);
    const bool base_right = clang_getCursorKind(r) == CXCursor_DeclRefExpr && array_of(r);
    if (base_left == base_right || operator_of(c, kids[0]) != "+") return false;
    CXCursor base = base_left ? l : r, e = base_left ? kids[1] : kids[0];
    CXType t = clang_getCanonicalType(clang_getCursorType(base));
    CXType pointee =
        t.kind == CXType_Pointer ? clang_getPointeeType(t) : clang_getArrayElementType(t);
    if (pointee.kind == CXType_Invalid ||
        clang_getCanonicalType(clang_getCursorType(e)).kind == CXType_Pointer)
      return false;
    OffsetUse u;
    u.offset = range_of(e);
    u.elem_bytes = size_of(pointee).value_or(0);
    u.side_effects = has_side_effect_tokens(tu_, e);
    u.rewritable = spelled_in_place(clang_getCursorExtent(e));
    CXSourceRange whole = clang_getCursorExtent(c);
    unsigned l1 = 0, l2 = 0;
    clang_getExpansionLocation(clang_getRangeStart(whole), nullptr, &l1, nullptr, nullptr);
    clang_getExpansionLocation(clang_getRangeEnd(whole), nullptr, &l2, nullptr, nullptr);
    u.line = static_cast<int>(l1), u.end_line = static_cast<int>(l2);
    m_.arrays[*array_of(base)].offsets.push_back(u);
    visit(e);
    return true;
  }

  // The binary operator of `c`: its first token after the left operand.
  std::string operator_of(CXCursor c, CXCursor left) {
    const unsigned after = range_of(left).end;
    CXToken* tokens = nullptr;
    unsigned n = 0;
    clang_tokenize(tu_, clang_getCursorExtent(c), &tokens, &n);
    std::string op;
    for (unsigned i = 0; i < n && op.empty(); ++i) {
      unsigned off = 0;
      clang_getExpansionLocation(clang_getTokenLocation(tu_, tokens[i]), nullptr, nullptr, nullptr,
                                 &off);
      if (off >= after && clang_getTokenKind(tokens[i]) == CXToken_Punctuation)
        op = str(clang_getTokenSpelling(tu_, tokens[i]));
    }
    clang_disposeTokens(tu_, tokens, n);
    return op;
  }

  void subscript(CXCursor c) {
    std::vector<CXCursor> indexes;
    CXCursor cur = c;
    while (clang_getCursorKind(cur) == CXCursor_ArraySubscriptExpr) {
      auto kids = children(cur);
      if (kids.size() != 2) break;
      indexes.insert(indexes.begin(), kids[1]);
      cur = strip(kids[0]);
    }
    bool via_alias = false;
    std::optional<size_t> a;
    if (clang_getCursorKind(cur) == CXCursor_DeclRefExpr) a = array_of(cur, &via_alias);
    if (!a) visit(cur);
    if (a && offset_of(clang_getCursorLocation(c))) {
      Subscript s;
      s.whole = range_of(c);
      s.via_alias = via_alias;
      s.rewritable = spelled_in_place(clang_getCursorExtent(c));
      s.elem_bytes = size_of(clang_getCursorType(c)).value_or(0);
      unsigned line = 0;
      clang_getExpansionLocation(clang_getCursorLocation(c), nullptr, &line, nullptr, nullptr);
      s.line = static_cast<int>(line);
      for (const CXCursor& i : indexes) {
        s.index.push_back(range_of(i));
        s.side_effects |= has_side_effect_tokens(tu_, i);
        s.rewritable &= spelled_in_place(clang_getCursorExtent(i));
      }
      m_.arrays[*a].subscripts.push_back(s);
    }
    for (const CXCursor& i : indexes) visit(i);
  }

  CXTranslationUnit tu_;
  SourceModel& m_;
  std::map<unsigned, size_t> decls_;    // declaration offset -> array
  std::map<unsigned, size_t> aliases_;  // alias declaration offset -> array
};

struct IndexDeleter {
  void operator()(void* p) const { clang_disposeIndex(p); }
};
struct TuDeleter {
  void operator()(CXTranslationUnitImpl* p) const { clang_disposeTranslationUnit(p); }
};

// Every call under `c` with 12 arguments whose 10th is of type
// CUtensorMapSwizzle (through its typedef or the enum itself).
void find_swizzle_arguments(CXCursor c, SourceModel& m) {
  if (clang_getCursorKind(c) == CXCursor_CallExpr && clang_Cursor_getNumArguments(c) == 12 &&
      clang_Location_isFromMainFile(clang_getCursorLocation(c))) {
    CXCursor arg = clang_Cursor_getArgument(c, 9);
    const std::string type =
        str(clang_getTypeSpelling(clang_getCanonicalType(clang_getCursorType(arg))));
    if (type == "enum CUtensorMapSwizzle_enum" || type == "CUtensorMapSwizzle_enum") {
      SwizzleArgument a;
      a.range = range_of(arg);
      a.rewritable = spelled_in_place(clang_getCursorExtent(arg));
      a.text = m.text.substr(a.range.begin, a.range.end - a.range.begin);
      unsigned line = 0, column = 0;
      clang_getExpansionLocation(clang_getCursorLocation(arg), nullptr, &line, &column, nullptr);
      a.line = static_cast<int>(line), a.column = static_cast<int>(column);
      if (CXEvalResult e = clang_Cursor_Evaluate(arg)) {
        if (clang_EvalResult_getKind(e) == CXEval_Int) a.value = clang_EvalResult_getAsLongLong(e);
        clang_EvalResult_dispose(e);
      }
      m.swizzle_arguments.push_back(a);
    }
  }
  for (const CXCursor& k : children(c)) find_swizzle_arguments(k, m);
}

}  // namespace

int line_of(const std::string& text, unsigned offset) {
  return 1 + static_cast<int>(std::count(
                 text.begin(), text.begin() + std::min<size_t>(offset, text.size()), '\n'));
}

std::string cuda_toolkit() {
  std::vector<std::string> candidates;
  for (const char* var : {"CUDA_PATH", "CUDA_HOME"})
    if (const char* v = std::getenv(var); v && *v) candidates.emplace_back(v);
  candidates.emplace_back("/usr/local/cuda");
  for (const std::string& c : candidates)
    if (std::ifstream(c + "/include/cuda_runtime.h")) return c;
  return {};
}

SourceModel parse_source(const std::string& path, const std::vector<std::string>& include_dirs) {
  SourceModel m;
  m.path = path;
  {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(fmt::format("{}: cannot read file", path));
    std::stringstream ss;
    ss << in.rdbuf();
    m.text = ss.str();
  }
  std::string dir = path.find('/') == std::string::npos ? "." : path.substr(0, path.rfind('/'));
  const std::string cuda = cuda_toolkit();
  std::vector<std::string> args = {
      "-x", "cuda", "--cuda-host-only", "--cuda-gpu-arch=sm_80", "-std=c++17", "-w"};
  std::vector<CXUnsavedFile> unsaved;
  if (!cuda.empty()) {
    // CUDA's own headers through clang's CUDA wrapper. Clang 14's wrapper
    // still declares the texture templates CUDA 12 removed and includes
    // texture headers CUDA 13 no longer ships: its texture part is switched
    // off and those headers are empty files of the front end's own.
    args.insert(args.end(), {"--cuda-path=" + cuda, "-D__CLANG_CUDA_TEXTURE_INTRINSICS_H__",
                             "-isystem", kStubDir});
    for (const char* h : kStubHeaders) unsaved.push_back({h, "", 0});
  } else {
    // No toolkit: the prelude of CUDA keywords and built-ins stands in.
    args.insert(args.end(), {"-nocudainc", "-nocudalib", "-include", kPreludePath});
    unsaved.push_back({kPreludePath, kPrelude, sizeof kPrelude - 1});
  }
  args.push_back("-I" + dir);
  for (const auto& d : include_dirs) args.push_back("-I" + d);
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());

  std::unique_ptr<void, IndexDeleter> index(clang_createIndex(0, 0));
  CXTranslationUnit raw = nullptr;
  CXErrorCode err = clang_parseTranslationUnit2(
      index.get(), path.c_str(), argv.data(), static_cast<int>(argv.size()), unsaved.data(),
      static_cast<unsigned>(unsaved.size()), CXTranslationUnit_KeepGoing, &raw);
  if (err != CXError_Success || !raw)
    throw Error(fmt::format("{}: libclang could not parse the file (error {})", path,
                            static_cast<int>(err)));
  std::unique_ptr<CXTranslationUnitImpl, TuDeleter> tu(raw);
  for (unsigned i = 0, n = clang_getNumDiagnostics(raw); i < n; ++i) {
    CXDiagnostic d = clang_getDiagnostic(raw, i);
    if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error)
      m.diagnostics.push_back(str(clang_formatDiagnostic(
          d, CXDiagnostic_DisplaySourceLocation | CXDiagnostic_DisplayColumn)));
    clang_disposeDiagnostic(d);
  }
  Walker w(raw, m);
  CXCursor root = clang_getTranslationUnitCursor(raw);
  w.collect_arrays(root);
  for (const CXCursor& top : children(root))  // the main file's declarations, not the headers'
    if (clang_Location_isFromMainFile(clang_getCursorLocation(top))) find_swizzle_arguments(top, m);
  for (const CXCursor& top : children(root))
    if (clang_Location_isFromMainFile(clang_getCursorLocation(top))) w.visit(top);
  return m;
}

}  // namespace smemlab::fix
