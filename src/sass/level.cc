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

}  // namespace

KernelLevel choose_level(Level wanted, const std::string& ptx_text, const ptx::Module& module,
                         const std::string& kernel, const emu::Program& program) {
  KernelLevel k;
  if (wanted == Level::Ptx) {
    k.reason = "--level ptx";
    return k;
  }
  std::string target = module.target.substr(0, module.target.find(','));
  if (!compilable(target)) {
    k.reason =
        fmt::format("PTX target '{}' is not one ptxas/nvdisasm can give SASS for (sm_75 or newer)",
                    module.target);
    return k;
  }
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
  k.reason = fmt::format(
      "SASS of ptxas -arch={} (the GPU's JIT options), disassembled by nvdisasm; "
      "every --arch model counts these requests",
      target);
  k.map = map_kernel(module, kernel, program, it->second);
  return k;
}

}  // namespace smemlab::sass
