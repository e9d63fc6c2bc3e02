// PTX module as parsed from nvcc's text: declarations, functions and their
// instructions with operands, labels and source locations. The parser keeps
// PTX's own vocabulary (opcode and modifier strings); src/emu decodes it once.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ptx/line_table.h"

namespace smemlab::ptx {

// Position in the PTX text (1-based).
struct TextPos {
  int line = 0;
  int col = 0;
};

enum class StateSpace { Reg, Global, Shared, Local, Const, Param, Generic };

const char* space_name(StateSpace s);

struct Operand {
  enum class Kind {
    Reg,     // %r1, a predicate, a special register (%tid.x) or a symbol name
    Imm,     // integer immediate
    FImm,    // 0fXXXXXXXX (f32 bits) or 0dXXXXXXXXXXXXXXXX (f64 bits)
    Addr,    // [base + offset]; base may be a register, a symbol or empty
    Vector,  // {a, b, c, d}
    List,    // (a, b) in call sequences
    Sink,    // _
  };
  Kind kind = Kind::Reg;
  std::string name;            // register/symbol, address base ("" = absolute)
  std::string pair;            // second destination of "a|b" (setp, shfl.sync)
  bool negate = false;         // !%p
  bool minus = false;          // -%r (vmad's negated operands)
  uint64_t bits = 0;           // Imm value, FImm bits
  bool is_f64 = false;         // FImm is 0d
  int64_t offset = 0;          // Addr offset
  std::vector<Operand> elems;  // Vector / List; Addr: [a, b, {c}] of tex/suld/sust after a
  TextPos pos;
};

struct Instruction {
  std::string guard;  // predicate register name or ""
  bool guard_negate = false;
  std::string opcode;             // "ld"
  std::vector<std::string> mods;  // {"global", "v4", "f32"}
  std::vector<Operand> operands;
  TextPos pos;
  int loc = -1;              // index into Module::lines, -1 without .loc
  std::string text() const;  // opcode with modifiers, e.g. "ld.global.v4.f32"
  bool has_mod(const char* m) const;
};

// The largest variable (.global, .const, .shared, .local) the emulator
// accepts: it allocates every variable in full.
constexpr int64_t kMaxVariableBytes = 1ll << 30;

// A module-scope symbol's linkage (PTX's .visible/.weak/.extern/.common);
// ptx/link.h joins the modules of separately compiled units by it.
enum class Linkage { Internal, Visible, Weak, Common, Extern };

// One scalar PTX type; `.b`, `.u`, `.s`, `.f` plus size.
struct VarDecl {
  StateSpace space = StateSpace::Global;
  std::string name;
  std::string type;   // "b8", "u32", "f32", ...
  int align = 0;      // 0 = natural
  int64_t count = 1;  // elements; 0 for `[]` (extern shared)
  bool is_extern = false;
  Linkage linkage = Linkage::Internal;  // module-scope variables only
  bool is_array = false;
  std::vector<uint8_t> init;                                  // initializer bytes (empty = zero)
  std::vector<std::pair<int64_t, std::string>> init_symbols;  // byte offset -> symbol address
  TextPos pos;
  int64_t size_bytes() const;
};

struct RegDecl {
  std::string type;  // "pred", "b32", "f32", ...
  std::string name;  // unique name (scopes renamed); prefix when count > 0
  int count = -1;    // -1 for a single register, N for name<N>
  TextPos pos;
};

struct Function {
  std::string name;
  bool is_entry = false;
  bool has_body = false;
  Linkage linkage = Linkage::Internal;
  std::vector<VarDecl> params;
  std::vector<VarDecl> retvals;
  std::vector<VarDecl> locals;  // .shared/.local/.param/.const declared in the body
  std::vector<RegDecl> regs;
  std::vector<Instruction> body;
  std::map<std::string, int> labels;                       // label -> index of the next instruction
  std::map<std::string, std::vector<int64_t>> directives;  // .maxntid, .reqntid, ...
  TextPos pos;
};

struct Module {
  std::string path;  // for messages
  std::string version, target;
  int address_size = 64;
  std::vector<VarDecl> globals;  // module-scope .global/.shared/.const
  std::vector<Function> functions;
  LineTable lines;

  const Function* find(const std::string& name) const;
  std::vector<const Function*> kernels() const;
};

int type_size(const std::string& type);  // "f32" -> 4, "pred" -> 0

}  // namespace smemlab::ptx
