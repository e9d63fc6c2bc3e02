#include "ptx/parser.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cctype>
#include <climits>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>

namespace smemlab::ptx {
namespace {

using K = Token::Kind;

bool is_space_kw(const std::string& s) {
  return s == ".global" || s == ".shared" || s == ".const" || s == ".local" || s == ".param";
}
StateSpace space_of(const std::string& s) {
  if (s == ".global") return StateSpace::Global;
  if (s == ".shared") return StateSpace::Shared;
  if (s == ".const") return StateSpace::Const;
  if (s == ".local") return StateSpace::Local;
  return StateSpace::Param;
}
bool is_type_kw(const std::string& s) {
  static const char* types[] = {".b8",  ".b16",  ".b32",   ".b64",  ".b128",   ".u8",
                                ".u16", ".u32",  ".u64",   ".s8",   ".s16",    ".s32",
                                ".s64", ".f16",  ".f16x2", ".bf16", ".bf16x2", ".f32",
                                ".f64", ".pred", ".e4m3",  ".e5m2"};
  for (const char* t : types)
    if (s == t) return true;
  return false;
}

struct Scope {
  std::map<std::string, std::string> singles;
  struct Range {
    std::string prefix;
    int count;
    std::string renamed;
  };
  std::vector<Range> ranges;
  // Labels declared in this scope (name -> unique name; the function's
  // outermost scope keeps the names) and the branch operands (instruction,
  // operand) in it or in closed inner scopes whose label is not yet known:
  // a branch targets the innermost enclosing scope that declares the label,
  // which may come after the branch, so they are resolved when the scope
  // closes.
  std::map<std::string, std::string> labels;
  std::vector<std::pair<size_t, size_t>> label_refs;
};

// The token stream a parser reads: look-ahead, the expectations it checks
// and the FILE:LINE:COL errors they raise, and the bound on nesting.
class TokenCursor {
 public:
  TokenCursor(std::vector<Token> toks, std::string path)
      : t_(std::move(toks)), path_(std::move(path)) {}

 protected:
  std::vector<Token> t_;
  size_t i_ = 0;
  std::string path_;
  int depth_ = 0;  // nesting of `{`/`(` in initializers and operands

  // One level of `{`/`(` nesting; deep nesting is an error, not a stack overflow.
  class Nest {
   public:
    Nest(TokenCursor& p, const Token& at) : p_(p) {
      if (++p_.depth_ > kMaxNesting)
        p_.fail(at, fmt::format("nested deeper than {} levels", kMaxNesting));
    }
    ~Nest() { --p_.depth_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;

   private:
    TokenCursor& p_;
  };

  const Token& peek(size_t k = 0) const { return t_[std::min(i_ + k, t_.size() - 1)]; }
  bool at_end() const { return peek().kind == K::End; }
  const Token& next() {
    const Token& t = peek();
    if (t.kind != K::End) ++i_;
    return t;
  }
  [[noreturn]] void fail(const Token& t, const std::string& msg) const {
    throw ParseError(path_, t.line, t.col, msg);
  }
  static std::string show(const Token& t) {
    switch (t.kind) {
      case K::End:
        return "end of file";
      case K::Int:
        return std::to_string(t.bits);
      case K::Float:
        return "floating-point number";
      case K::String:
        return "\"" + t.text + "\"";
      default:
        return "'" + t.text + "'";
    }
  }
  bool is_punct(const char* p, size_t k = 0) const {
    return peek(k).kind == K::Punct && peek(k).text == p;
  }
  bool accept(const char* p) {
    if (is_punct(p)) {
      next();
      return true;
    }
    return false;
  }
  void expect(const char* p) {
    if (!accept(p)) fail(peek(), fmt::format("expected '{}', found {}", p, show(peek())));
  }
  bool is_ident(const char* s, size_t k = 0) const {
    return peek(k).kind == K::Ident && peek(k).text == s;
  }
  const Token& ident() {
    if (peek().kind != K::Ident)
      fail(peek(), fmt::format("expected a name, found {}", show(peek())));
    return next();
  }
  int64_t integer() {
    const Token& at = peek();
    bool neg = accept("-");
    if (peek().kind != K::Int)
      fail(peek(), fmt::format("expected an integer, found {}", show(peek())));
    uint64_t b = next().bits;
    if (b > uint64_t{INT64_MAX} + (neg ? 1 : 0))
      fail(at, "integer out of range (a signed 64-bit number)");
    return neg ? static_cast<int64_t>(0 - b) : static_cast<int64_t>(b);
  }
  // An integer that must lie in [lo, hi] (it is stored in a narrower type).
  int bounded(int64_t lo, int64_t hi, const char* what) {
    const Token& at = peek();
    int64_t v = integer();
    if (v < lo || v > hi) fail(at, fmt::format("{} {} out of range ({} to {})", what, v, lo, hi));
    return static_cast<int>(v);
  }
  // Skips to the next ';' (a statement this parser does not interpret).
  void skip_statement() {
    while (!accept(";"))
      if (next().kind == K::End) fail(peek(), "missing ';' at end of file");
  }
  TextPos pos(const Token& t) const { return {t.line, t.col}; }
};

// PTX's grammar over the cursor: directives, declarations, functions and
// their instructions, with register renaming and label scopes.
class Parser : TokenCursor {
 public:
  Parser(std::vector<Token> toks, std::string path)
      : TokenCursor(std::move(toks), std::move(path)) {}

  Module run() {
    m_.path = path_;
    while (!at_end()) top_level();
    return std::move(m_);
  }

 private:
  Module m_;
  std::vector<Scope> scopes_;
  int rename_counter_ = 0;
  int cur_loc_ = -1;
  int64_t fn_registers_ = 0;  // registers declared in the current function

  void top_level() {
    const Token& t = peek();
    if (t.kind != K::Ident) fail(t, fmt::format("unexpected {} at top level", show(t)));
    const std::string& s = t.text;
    if (s == ".version") {
      next();
      const Token& v = next();
      if (v.kind == K::Float) {
        double d;
        std::memcpy(&d, &v.bits, 8);
        m_.version = fmt::format("{:.1f}", d);
      } else if (v.kind == K::Int) {
        m_.version = std::to_string(v.bits);
      } else {
        fail(v, "expected a version number");
      }
    } else if (s == ".target") {
      next();
      m_.target = ident().text;
      while (accept(",")) ident();
    } else if (s == ".address_size") {
      next();
      m_.address_size = bounded(32, 64, ".address_size");
    } else if (s == ".file") {
      next();
      int idx = bounded(0, INT_MAX, ".file index");
      if (peek().kind != K::String) fail(peek(), "expected a file name string");
      m_.lines.add_file(idx, next().text);
      while (accept(",")) integer();
    } else if (s == ".section") {
      next();
      ident();
      skip_braces();
    } else if (s == ".pragma") {
      next();
      skip_statement();
    } else if (s == ".visible" || s == ".weak" || s == ".extern" || s == ".common" ||
               s == ".entry" || s == ".func" || is_space_kw(s)) {
      declaration();
    } else {
      fail(t, fmt::format("unknown directive '{}'", s));
    }
  }

  void skip_braces() {
    expect("{");
    int depth = 1;
    while (depth > 0) {
      if (at_end()) fail(peek(), "unterminated section");
      const Token& t = next();
      if (t.kind == K::Punct && t.text == "{") ++depth;
      if (t.kind == K::Punct && t.text == "}") --depth;
    }
  }

  void declaration() {
    bool is_extern = false;
    Linkage linkage = Linkage::Internal;
    while (is_ident(".visible") || is_ident(".weak") || is_ident(".extern") ||
           is_ident(".common")) {
      const std::string& kw = next().text;
      if (kw == ".extern") is_extern = true;
      linkage = kw == ".extern"   ? Linkage::Extern
                : kw == ".weak"   ? Linkage::Weak
                : kw == ".common" ? Linkage::Common
                                  : Linkage::Visible;
    }
    if (is_ident(".entry") || is_ident(".func")) {
      function(linkage);
      return;
    }
    VarDecl v = var_decl(is_extern);
    v.linkage = linkage;
    expect(";");
    m_.globals.push_back(std::move(v));
  }

  // SPACE [.ptr...] [.align N] [.vN] TYPE name[dims] [= init]  (no trailing ';')
  VarDecl var_decl(bool is_extern) {
    VarDecl v;
    v.is_extern = is_extern;
    const Token& sp = ident();
    if (!is_space_kw(sp.text)) fail(sp, fmt::format("expected a state space, found '{}'", sp.text));
    v.space = space_of(sp.text);
    v.pos = pos(sp);
    int vec = 1;
    bool ptr = false;  // after .ptr, [.space] .align N describes the pointee
    for (;;) {
      if (is_ident(".align")) {
        next();
        const Token& at = peek();
        int a = bounded(1, 1 << 16, ".align");
        if (a & (a - 1)) fail(at, fmt::format(".align {} is not a power of two", a));
        if (!ptr) v.align = a;
      } else if (is_ident(".ptr") || is_ident(".global") || is_ident(".shared") ||
                 is_ident(".const") || is_ident(".local")) {
        ptr = ptr || peek().text == ".ptr";
        next();
      } else if (is_ident(".v2") || is_ident(".v4")) {
        vec = next().text == ".v2" ? 2 : 4;
      } else if (peek().kind == K::Ident && is_type_kw(peek().text)) {
        v.type = next().text.substr(1);
      } else {
        break;
      }
    }
    if (v.type.empty()) fail(peek(), fmt::format("expected a type, found {}", show(peek())));
    const Token& name = ident();
    v.name = name.text;
    v.count = vec;
    int64_t elem = std::max(type_size(v.type), 1);
    while (accept("[")) {
      v.is_array = true;
      if (accept("]")) {
        v.count = 0;
        continue;
      }
      const Token& at = peek();
      int64_t n = integer();
      if (n <= 0) fail(at, fmt::format("array size {} must be at least 1", n));
      if (n > kMaxVariableBytes / elem / std::max<int64_t>(v.count, 1))
        fail(at, fmt::format("'{}' is larger than {} bytes (the limit for one variable)", v.name,
                             kMaxVariableBytes));
      v.count *= n;
      expect("]");
    }
    if (accept("=")) initializer(v);
    return v;
  }

  void put_value(VarDecl& v, int64_t index, const Token& t, bool neg) {
    int sz = type_size(v.type);
    if (v.count > 0 && index >= v.count) fail(t, "too many initializers");
    size_t off = static_cast<size_t>(index * sz);
    if (v.init.size() < off + static_cast<size_t>(sz)) v.init.resize(off + static_cast<size_t>(sz));
    uint64_t bits = t.bits;
    if (t.kind == K::Float) {
      double d;
      std::memcpy(&d, &bits, 8);
      if (!t.is_f64 && v.type == "f64") {
        float f;
        uint32_t b = static_cast<uint32_t>(bits);
        std::memcpy(&f, &b, 4);
        d = f;
        std::memcpy(&bits, &d, 8);
      } else if (t.is_f64 && v.type == "f32") {
        float f = static_cast<float>(neg ? -d : d);
        uint32_t b;
        std::memcpy(&b, &f, 4);
        bits = b;
        neg = false;
      }
    }
    if (neg) bits = ~bits + 1;
    std::memcpy(v.init.data() + off, &bits, static_cast<size_t>(sz));
  }

  void initializer(VarDecl& v) {
    int64_t index = 0;
    auto scalar = [&]() {
      bool neg = accept("-");
      const Token& t = peek();
      if (t.kind == K::Int || t.kind == K::Float) {
        put_value(v, index++, next(), neg);
      } else if (t.kind == K::Ident) {
        std::string name = next().text;
        if (name == "generic" || name == "mask") {
          expect("(");
          name = ident().text;
          expect(")");
        }
        v.init_symbols.push_back({index * type_size(v.type), name});
        Token zero;
        zero.kind = K::Int;
        put_value(v, index++, zero, false);
        if (accept("+")) integer();
      } else {
        fail(t, fmt::format("bad initializer {}", show(t)));
      }
    };
    std::function<void()> list = [&]() {
      if (is_punct("{")) {
        Nest nest(*this, next());
        if (!is_punct("}")) {
          do list();
          while (accept(","));
        }
        expect("}");
      } else {
        scalar();
      }
    };
    list();
    if (v.count == 0 && v.is_array) {
      v.count = index;
      if (v.size_bytes() > kMaxVariableBytes)
        fail(peek(), fmt::format("'{}' is larger than {} bytes (the limit for one variable)",
                                 v.name, kMaxVariableBytes));
    }
  }

  void perf_directives(Function& f) {
    while (peek().kind == K::Ident && peek().text[0] == '.' && !is_ident(".reg")) {
      std::string d = next().text;
      std::vector<int64_t> vals;
      if (peek().kind == K::Int) {
        vals.push_back(integer());
        while (accept(",")) vals.push_back(integer());
      }
      f.directives[d] = vals;
    }
  }

  std::vector<VarDecl> param_list() {
    std::vector<VarDecl> out;
    expect("(");
    if (accept(")")) return out;
    do {
      if (is_ident(".reg")) {
        // `.reg .TYPE name` parameter (old ABI): treat like .param.
        Token t = next();
        VarDecl v;
        v.space = StateSpace::Param;
        v.pos = pos(t);
        v.type = ident().text.substr(1);
        v.name = ident().text;
        out.push_back(v);
      } else {
        out.push_back(var_decl(false));
      }
    } while (accept(","));
    expect(")");
    return out;
  }

  void function(Linkage linkage) {
    Function f;
    f.linkage = linkage;
    const Token& kw = next();
    f.is_entry = kw.text == ".entry";
    f.pos = pos(kw);
    if (!f.is_entry && is_punct("(")) f.retvals = param_list();
    f.name = ident().text;
    if (is_punct("(")) f.params = param_list();
    perf_directives(f);
    if (accept(";")) {
      m_.functions.push_back(std::move(f));
      return;
    }
    f.has_body = true;
    cur_loc_ = -1;
    fn_registers_ = 0;
    m_.lines.begin_function();
    scopes_.clear();
    expect("{");
    scopes_.emplace_back();
    body(f);
    m_.functions.push_back(std::move(f));
  }

  std::string fresh(const std::string& name) {
    return fmt::format("{}$s{}", name, ++rename_counter_);
  }
  std::string declare(const std::string& name) {
    if (scopes_.size() <= 1) return name;
    std::string r = fresh(name);
    scopes_.back().singles[name] = r;
    return r;
  }
  std::string resolve(const std::string& name) const {
    for (size_t s = scopes_.size(); s-- > 1;) {
      const Scope& sc = scopes_[s];
      auto it = sc.singles.find(name);
      if (it != sc.singles.end()) return it->second;
      for (const auto& r : sc.ranges) {
        if (name.size() > r.prefix.size() && name.compare(0, r.prefix.size(), r.prefix) == 0) {
          std::string rest = name.substr(r.prefix.size());
          bool digits = true;
          for (char c : rest) digits = digits && std::isdigit(static_cast<unsigned char>(c));
          // Indices past 9 digits exceed any declared count (kMaxRegisters).
          if (digits && rest.size() <= 9 && std::stoll(rest) < r.count) return r.renamed + rest;
        }
      }
    }
    return name;
  }

  // A video instruction's operand with a byte or half-word selector
  // (%r1.b3210, %r2.h10): the register is resolved, the selector kept.
  std::string resolve_selected(const std::string& name) const {
    size_t dot = name.rfind('.');
    if (name.starts_with("%") && dot != std::string::npos && dot + 1 < name.size() &&
        (name[dot + 1] == 'b' || name[dot + 1] == 'h')) {
      std::string_view sel = std::string_view(name).substr(dot + 2);
      bool digits = !sel.empty() && sel.size() <= 4;
      for (char c : sel) digits = digits && c >= '0' && c <= '7';
      if (digits) return resolve(name.substr(0, dot)) + name.substr(dot);
    }
    return resolve(name);
  }

  void body(Function& f) {
    for (;;) {
      const Token& t = peek();
      if (t.kind == K::End) fail(t, fmt::format("missing '}}' at end of function {}", f.name));
      if (t.kind == K::Punct && t.text == "}") {
        next();
        close_scope(f);
        if (scopes_.empty()) return;
        continue;
      }
      if (t.kind == K::Punct && t.text == "{") {
        if (scopes_.size() > kMaxNesting)
          fail(t, fmt::format("nested deeper than {} levels", kMaxNesting));
        next();
        scopes_.emplace_back();
        continue;
      }
      if (t.kind == K::Ident && (t.text == ".reg" || t.text.rfind(".reg.", 0) == 0)) {
        reg_decl(f);
      } else if (t.kind == K::Ident && t.text == ".loc") {
        loc();
      } else if (t.kind == K::Ident && t.text == ".pragma") {
        skip_statement();
      } else if (t.kind == K::Ident && (is_space_kw(t.text) || t.text == ".extern")) {
        bool ext = accept_ident(".extern");
        VarDecl v = var_decl(ext);
        expect(";");
        v.name = declare(v.name);
        f.locals.push_back(std::move(v));
      } else if (t.kind == K::Ident && peek(1).kind == K::Punct && peek(1).text == ":" &&
                 peek(2).kind == K::Ident &&
                 (peek(2).text == ".callprototype" || peek(2).text == ".calltargets")) {
        // `proto: .callprototype ...;` types an indirect call that names it;
        // the emulator checks each call against its callee when it runs.
        skip_statement();
      } else if (t.kind == K::Ident && peek(1).kind == K::Punct && peek(1).text == ":") {
        std::string label = next().text;
        next();
        Scope& sc = scopes_.back();
        if (sc.labels.count(label)) fail(t, fmt::format("label '{}' defined twice", label));
        std::string unique = scopes_.size() > 1 ? fresh(label) : label;
        sc.labels[label] = unique;
        f.labels[unique] = static_cast<int>(f.body.size());
      } else if (t.kind == K::Ident && t.text[0] == '.') {
        fail(t, fmt::format("unknown directive '{}' in function body", t.text));
      } else {
        f.body.push_back(instruction());
        note_label_refs(f);
      }
    }
  }

  // A branch's targets wait for the scope that declares them (close_scope).
  void note_label_refs(const Function& f) {
    const Instruction& in = f.body.back();
    if (in.opcode != "bra") return;
    for (size_t k = 0; k < in.operands.size(); ++k)
      if (in.operands[k].kind == Operand::Kind::Reg)
        scopes_.back().label_refs.push_back({f.body.size() - 1, k});
  }

  // Branches to labels this scope declares get their unique names; the
  // others go to the enclosing scope (the function's keep their names).
  void close_scope(Function& f) {
    Scope sc = std::move(scopes_.back());
    scopes_.pop_back();
    for (const auto& [idx, k] : sc.label_refs) {
      std::string& name = f.body[idx].operands[k].name;
      auto it = sc.labels.find(name);
      if (it != sc.labels.end())
        name = it->second;
      else if (!scopes_.empty())
        scopes_.back().label_refs.push_back({idx, k});
    }
  }

  bool accept_ident(const char* s) {
    if (is_ident(s)) {
      next();
      return true;
    }
    return false;
  }

  void reg_decl(Function& f) {
    const Token& kw = next();
    std::string type;
    // cuda_fp16.hpp's inline asm writes `{.reg.b16 spc, ulp, p;`: the type
    // glued to the keyword is one token.
    if (kw.text.size() > 4) {
      if (kw.text.find(".v2") != std::string::npos || kw.text.find(".v4") != std::string::npos)
        fail(kw, "vector registers are not supported");
      type = kw.text.substr(kw.text.rfind('.') + 1);
    }
    while (peek().kind == K::Ident && peek().text[0] == '.') {
      std::string s = next().text;
      if (s == ".v2" || s == ".v4") fail(kw, "vector registers are not supported");
      type = s.substr(1);
    }
    if (type.empty()) fail(peek(), "expected a register type");
    do {
      const Token& n = ident();
      RegDecl r;
      r.type = type;
      r.pos = pos(n);
      int64_t declared = 1;
      if (accept("<")) {
        r.count = bounded(0, kMaxRegisters, "register count");
        declared = r.count;
        expect(">");
        if (scopes_.size() > 1) {
          std::string renamed = fresh(n.text) + "_";
          scopes_.back().ranges.push_back({n.text, r.count, renamed});
          r.name = renamed;
        } else {
          r.name = n.text;
        }
      } else {
        r.name = declare(n.text);
      }
      fn_registers_ += declared;
      if (fn_registers_ > kMaxRegisters)
        fail(n,
             fmt::format("more than {} registers declared in function {}", kMaxRegisters, f.name));
      f.regs.push_back(std::move(r));
    } while (accept(","));
    expect(";");
  }

  void loc() {
    next();
    int file = bounded(0, INT_MAX, ".loc file");
    int line = bounded(0, INT_MAX, ".loc line");
    int col = bounded(0, INT_MAX, ".loc column");
    std::string fn;
    bool site = false;
    int sf = 0, sl = 0, sc = 0;
    while (accept(",")) {
      const Token& k = ident();
      if (k.text == "function_name") {
        fn = ident().text;
      } else if (k.text == "inlined_at") {
        site = true;
        sf = bounded(0, INT_MAX, ".loc file");
        sl = bounded(0, INT_MAX, ".loc line");
        sc = bounded(0, INT_MAX, ".loc column");
      } else {
        fail(k, fmt::format("unknown .loc attribute '{}'", k.text));
      }
    }
    cur_loc_ = m_.lines.add(file, line, col, fn, site, sf, sl, sc);
  }

  Instruction instruction() {
    Instruction in;
    const Token& first = peek();
    in.pos = pos(first);
    in.loc = cur_loc_;
    if (accept("@")) {
      in.guard_negate = accept("!");
      in.guard = resolve(ident().text);
    }
    const Token& op = ident();
    size_t dot = op.text.find('.');
    in.opcode = op.text.substr(0, dot);
    while (dot != std::string::npos) {
      size_t nd = op.text.find('.', dot + 1);
      in.mods.push_back(op.text.substr(dot + 1, nd == std::string::npos ? nd : nd - dot - 1));
      dot = nd;
    }
    if (!accept(";")) {
      do in.operands.push_back(operand());
      while (accept(","));
      expect(";");
    }
    return in;
  }

  Operand operand() {
    Operand o;
    const Token& t = peek();
    o.pos = pos(t);
    if (accept("[")) {
      o.kind = Operand::Kind::Addr;
      if (peek().kind == K::Ident) o.name = resolve(next().text);
      if (o.name.empty()) {
        o.offset = integer();
      } else {
        while (is_punct("+") || is_punct("-")) {
          const Token& at = peek();
          bool minus = next().text == "-";
          int64_t v = integer();
          if (minus ? __builtin_sub_overflow(o.offset, v, &o.offset)
                    : __builtin_add_overflow(o.offset, v, &o.offset))
            fail(at, "address offset out of range (a signed 64-bit number)");
        }
      }
      // Texture and surface operands: [tex, {x, y}], [tex, sampler, {x, y}].
      while (accept(",")) o.elems.push_back(operand());
      expect("]");
      return o;
    }
    if (is_punct("{")) {
      Nest nest(*this, next());
      o.kind = Operand::Kind::Vector;
      do o.elems.push_back(operand());
      while (accept(","));
      expect("}");
      return o;
    }
    if (is_punct("(")) {
      Nest nest(*this, next());
      o.kind = Operand::Kind::List;
      if (!accept(")")) {
        do o.elems.push_back(operand());
        while (accept(","));
        expect(")");
      }
      return o;
    }
    if (accept("!")) {
      o.negate = true;
      o.name = resolve(ident().text);
      return o;
    }
    bool neg = accept("-");
    if (peek().kind == K::Int) {
      o.kind = Operand::Kind::Imm;
      o.bits = next().bits;
      if (neg) o.bits = ~o.bits + 1;
      return o;
    }
    if (peek().kind == K::Float) {
      o.kind = Operand::Kind::FImm;
      const Token& f = next();
      o.bits = f.bits;
      o.is_f64 = f.is_f64;
      if (neg) o.bits ^= f.is_f64 ? (1ull << 63) : (1ull << 31);
      return o;
    }
    if (neg && !(peek().kind == K::Ident && peek().text.starts_with("%")))
      fail(peek(), "expected a number or a register after '-'");
    o.minus = neg;
    const Token& n = ident();
    if (n.text == "_") {
      o.kind = Operand::Kind::Sink;
      // `_|p` (elect.sync): the first destination discarded.
      if (accept("|")) o.pair = resolve(ident().text);
      return o;
    }
    o.name = resolve_selected(n.text);
    if (accept("|")) o.pair = resolve(ident().text);
    if (is_punct("+") && peek(1).kind == K::Int) {
      next();
      o.offset = integer();
    }
    return o;
  }
};

}  // namespace

Module parse(std::string_view text, const std::string& path) {
  Parser p(lex(text, path), path);
  return p.run();
}

Module parse_file(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) throw ParseError(path, 0, 0, "cannot open file");
  if (!S_ISREG(st.st_mode)) throw ParseError(path, 0, 0, "not a regular file");
  if (st.st_size > kMaxFileBytes)
    throw ParseError(path, 0, 0,
                     fmt::format("{} bytes: larger than the {}-byte limit for a PTX file",
                                 st.st_size, kMaxFileBytes));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ParseError(path, 0, 0, "cannot open file");
  std::string text(static_cast<size_t>(st.st_size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  return parse(text, path);
}

}  // namespace smemlab::ptx
