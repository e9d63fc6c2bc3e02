// nvdisasm's text (`nvdisasm -g -c`) parsed into what the SASS mapping needs:
// per function, every memory instruction with its source line (from the
// `//## File "...", line N` comments), space, load/store, width and the
// address as base + immediate offset. Everything else is ignored.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace smemlab::sass {

enum class Space : uint8_t { Shared, Global, Local, Generic };
const char* space_name(Space s);

struct MemInstr {
  uint32_t address = 0;  // offset in the function's code (/*0d70*/)
  std::string file;      // innermost source file of the instruction
  int line = 0;          // 0: no line information
  std::string opcode;    // "LDS.128"
  Space space = Space::Shared;
  bool store = false;
  unsigned width = 4;  // bytes per lane
  // Address registers with the version of their value (bumped at every
  // instruction that writes the register, in code order), e.g. "R17#2",
  // "R7#1+UR4#0", "" (absolute): equal bases hold equal values.
  std::string base;
  int64_t offset = 0;  // immediate part of the address
  std::string text;    // the whole instruction, for messages
};

// Function name -> its memory instructions in code order.
using Disassembly = std::map<std::string, std::vector<MemInstr>>;

// Parses nvdisasm -g -c output. Lines it does not understand are skipped:
// only LDS/STS/LDG/STG/LDL/STL/LD/ST instructions matter here.
Disassembly parse_disassembly(const std::string& text);

// Function name -> registers per thread its SASS uses: the highest general
// register written or read (R0..R254, a 64/128-bit operand counting its
// pair or quad) plus one. The time model's occupancy input; ptxas's own
// count (cubin .nv.info REGCOUNT) can be a little higher.
using RegisterCounts = std::map<std::string, uint32_t>;
RegisterCounts registers_used(const std::string& text);

// Function name -> the N of each HGMMA.64xNx.. with null operands and its
// own predicate off (`HGMMA.64x8x16.F16 RZ, gdesc[URZ], RZ, !UPT, gsb0`),
// in code order: what ptxas emits for a wgmma.commit_group that has no
// HGMMA of its own to carry the commit. It reads nothing, but Nsight
// Compute's SASS-patched gmma counters count it (docs/bank-model.md).
using NullHgmmas = std::map<std::string, std::vector<unsigned>>;
NullHgmmas null_hgmmas(const std::string& text);

// Function name -> its LDGSTS (cp.async) instructions in code order, with
// their source line and form: `.BYPASS` (.cg), `.ZFILL` (the src-size in a
// register), or a predicate as the last operand without .ZFILL (ptxas's form
// for a src-size it proves 0 or the full width: lanes whose predicate is
// false zero-fill). The H100 costs the two src-size forms of .cg apart
// (docs/bank-model.md, cp.async).
struct LdgstsInstr {
  std::string file;  // innermost source file, "" without line information
  int line = 0;
  bool bypass = false, zfill = false, predicated = false;
  std::string predicate;  // the predicated form's last operand ("P0", "!P3"), else ""
  std::string text;       // the whole instruction
};
using LdgstsInstrs = std::map<std::string, std::vector<LdgstsInstr>>;
LdgstsInstrs ldgsts_instrs(const std::string& text);

}  // namespace smemlab::sass
