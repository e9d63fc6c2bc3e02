#include "sass/level.h"

#include <fmt/format.h>

#include "sass/disasm.h"
#include "sass/tools.h"

namespace smemlab::sass {

const char* level_name(Level l) { return l == Level::Sass ? "sass" : "ptx"; }

namespace {

// nvdisasm reads sm_75 and newer; older targets have no SASS to compare with.
bool compilable(const std::string& target) {
  if (target.rfind("sm_", 0) != 0) return false;
  int sm = std::atoi(target.c_str() + 3);
  return sm >= 75;
}

// The level of `kernel` from ptxas's SASS of `ptx_text` for `target`.
KernelLevel compiled(const std::string& ptx_text, const ptx::Module& module,
                     const std::string& kernel, const emu::Program& program,
                     const std::string& target) {
  KernelLevel k;
  Tools tools = find_tools();
  if (!tools.missing.empty()) {
    k.reason = tools.missing;
    return k;
  }
  Disassembled d = disassemble(tools, ptx_text, target, kernel);
  if (!d.error.empty()) {
    k.reason = d.error;
    return k;
  }
  Disassembly all = parse_disassembly(d.text);
  auto it = all.find(kernel);
  if (it == all.end()) {
    k.reason = fmt::format("kernel '{}' not found in nvdisasm's output", kernel);
    return k;
  }
  k.level = Level::Sass;
  k.target = target;
  k.map = map_kernel(module, kernel, program, it->second);
  const NullHgmmas nulls = null_hgmmas(d.text);
  if (auto n = nulls.find(kernel); n != nulls.end())
    map_sass_only_gmma(module, kernel, program, n->second, &k.map);
  const LdgstsInstrs ldgsts = ldgsts_instrs(d.text);
  if (auto g = ldgsts.find(kernel); g != ldgsts.end())
    map_ldgsts_forms(module, kernel, program, g->second, &k.map);
  RegisterCounts regs = registers_used(d.text);
  if (auto r = regs.find(kernel); r != regs.end()) k.registers = r->second;
  return k;
}

}  // namespace

KernelLevel choose_level(Level wanted, const std::string& ptx_text, const ptx::Module& module,
                         const std::string& kernel, const emu::Program& program) {
  if (wanted == Level::Ptx) return {Level::Ptx, "", "--level ptx", {}, 0};
  std::string target = module.target.substr(0, module.target.find(','));
  if (!compilable(target))
    return {
        Level::Ptx,
        "",
        fmt::format("PTX target '{}' is not one ptxas/nvdisasm can give SASS for (sm_75 or newer)",
                    module.target),
        {},
        0};
  KernelLevel k = compiled(ptx_text, module, kernel, program, target);
  if (k.level == Level::Sass)
    k.reason = fmt::format(
        "SASS of ptxas -arch={} (the GPU's JIT options), disassembled by nvdisasm; "
        "every --arch model counts these requests",
        target);
  return k;
}

KernelLevel choose_program_level(Level wanted, const std::string& ptx_text,
                                 const ptx::Module& module, const std::string& kernel,
                                 const emu::Program& program, const ProgramSass& sass) {
  if (wanted == Level::Ptx) return {Level::Ptx, "", "--level ptx", {}, 0};
  if (!compilable(sass.target))
    return {Level::Ptx,
            "",
            fmt::format("the emulated GPU {} is not one nvdisasm reads SASS of (sm_75 or newer)",
                        sass.target),
            {},
            0};
  std::string why_not_fatbin = sass.origin;
  if (sass.fatbin) {
    auto it = sass.fatbin->find(kernel);
    if (it != sass.fatbin->end()) {
      KernelLevel k;
      k.level = Level::Sass;
      k.target = sass.target;
      k.reason = fmt::format(
          "SASS of the program's fatbin ({}), disassembled by nvdisasm; every --arch model "
          "counts these requests",
          sass.origin);
      k.map = map_kernel(module, kernel, program, it->second);
      if (sass.fatbin_null_hgmmas)
        if (auto n = sass.fatbin_null_hgmmas->find(kernel); n != sass.fatbin_null_hgmmas->end())
          map_sass_only_gmma(module, kernel, program, n->second, &k.map);
      if (sass.fatbin_ldgsts)
        if (auto g = sass.fatbin_ldgsts->find(kernel); g != sass.fatbin_ldgsts->end())
          map_ldgsts_forms(module, kernel, program, g->second, &k.map);
      if (sass.fatbin_registers)
        if (auto r = sass.fatbin_registers->find(kernel); r != sass.fatbin_registers->end())
          k.registers = r->second;
      return k;
    }
    why_not_fatbin = fmt::format("kernel not found in the {}", sass.origin);
  }
  KernelLevel k = compiled(ptx_text, module, kernel, program, sass.target);
  if (k.level == Level::Sass)
    k.reason = fmt::format(
        "SASS of ptxas -arch={} on the module's compute_{} PTX, as the driver's JIT compiles it "
        "({}), disassembled by nvdisasm; every --arch model counts these requests",
        sass.target, module.target.substr(3, module.target.find(',') - 3), why_not_fatbin);
  else if (!why_not_fatbin.empty())
    k.reason = fmt::format("{} ({})", k.reason, why_not_fatbin);
  return k;
}

}  // namespace smemlab::sass
