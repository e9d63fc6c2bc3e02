// Maps a kernel's PTX memory instructions onto the SASS instructions that
// perform them (docs/sass.md). ptxas merges neighbouring accesses into one
// wider instruction (two ld.shared.f32 -> LDS.64), narrows a vector access
// whose results are partly unused (ld.shared.v4 -> LDS.64) or splits one.
// The match is made per source line, space and direction, by offsets from a
// common base register: each PTX access [off, off+w) shifted by one delta d
// must lie inside one SASS access of the same base (merged or identical) or
// contain SASS accesses (narrowed, split). Accesses that cannot be matched
// keep the PTX grouping, with a note naming them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "emu/observer.h"
#include "emu/program.h"
#include "ptx/ir.h"
#include "sass/disasm.h"

namespace smemlab::sass {

// One SASS request a PTX access contributes to: the SASS instruction's
// address for a lane is the PTX lane address + rel; `member` is this PTX
// access's index among the group's members.
struct Part {
  uint32_t group = 0;
  int32_t rel = 0;
  uint8_t width = 0;  // bytes per lane of the SASS instruction
  uint8_t member = 0;
};

// One SASS instruction that does not do exactly what one PTX instruction
// does. `info` stands for it in the reports: pc beyond the PTX program's,
// the first member's PTX line and source location.
struct Group {
  emu::InstrInfo info;
  uint8_t width = 0;
  uint8_t members = 1;
};

// A PTX instruction that could not be mapped (kept at PTX level).
struct Note {
  std::string where;  // "file.cu:12"
  int ptx_line = 0;
  std::string instr;  // "ld.shared.f32"
  std::string reason;
};

struct KernelMap {
  // Indexed by pc; empty: the access is executed as the PTX says.
  std::vector<std::vector<Part>> parts;
  std::vector<Group> groups;
  std::vector<Note> notes;
  // Indexed by pc (empty: none): N of the SASS-only HGMMA.64xN ptxas emits
  // for this wgmma.commit_group (null operands, predicated off), 0 for none.
  std::vector<uint16_t> sass_only_gmma;
  bool any_sass_only_gmma = false;
  // Indexed by pc (empty: none): the SASS form of each cp.async.cg with a
  // src-size operand (ldgsts_forms.cc); Unknown where the SASS does not say.
  std::vector<emu::LdgstsForm> ldgsts_form;
  // Whether the SASS level changes what the counting analyses see.
  bool regroups() const { return !groups.empty() || any_sass_only_gmma || !ldgsts_form.empty(); }
};

// The map for `kernel` (mangled) of `module` as decoded into `program`.
// `sass` is that kernel's memory instructions.
KernelMap map_kernel(const ptx::Module& module, const std::string& kernel,
                     const emu::Program& program, const std::vector<MemInstr>& sass);

// Fills map->sass_only_gmma from the kernel's null HGMMAs (null_hgmmas, in
// code order; sass_only_gmma.cc): ptxas emits one for a wgmma.commit_group
// whose basic block has no wgmma.mma_async before it to carry the commit.
// The PTX commits that rule picks are matched in order with the SASS's
// null HGMMAs when their numbers agree; otherwise none is mapped and a
// note says so (the counts stay the PTX's).
void map_sass_only_gmma(const ptx::Module& module, const std::string& kernel,
                        const emu::Program& program, const std::vector<unsigned>& nulls,
                        KernelMap* map);

// Fills map->ldgsts_form (ldgsts_forms.cc) for the kernel's cp.async.cg with
// a src-size operand from its LDGSTS (`ldgsts`, ldgsts_instrs): the form of
// the .BYPASS LDGSTS on the PTX instruction's source line when they all
// have one (.ZFILL or predicated); for a line with none, the form every
// such LDGSTS of the kernel has, if one. Otherwise Unknown, with a note
// (the counters keep those requests unmodelled, as at PTX level).
void map_ldgsts_forms(const ptx::Module& module, const std::string& kernel,
                      const emu::Program& program, const std::vector<LdgstsInstr>& ldgsts,
                      KernelMap* map);

}  // namespace smemlab::sass
