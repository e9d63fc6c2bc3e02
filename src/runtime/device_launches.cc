// Dynamic parallelism in program mode: the grids a kernel launches
// (emu/device_runtime.h) run after the grid that launched them, depth
// first, each as a launch of its own — numbered, selected, analyzed and
// reported like a host launch, named as the child of its parent launch.
#include <fmt/format.h>

#include <algorithm>

#include "report/progress.h"
#include "runtime/driver.h"

namespace smemlab::runtime {

Function* Driver::device_function(Module& m, const std::string& kernel) {
  auto it = m.functions.find(kernel);
  if (it == m.functions.end()) {
    auto fn = std::make_unique<Function>();
    fn->module = &m;
    fn->name = kernel;
    it = m.functions.emplace(kernel, std::move(fn)).first;
  }
  return it->second.get();
}

std::string Driver::parent_note(uint64_t index) const {
  auto it = parent_launch_.find(index);
  return it == parent_launch_.end() ? "" : fmt::format(" (child of launch {})", it->second);
}

void Driver::run_launch(Function* f, uint64_t index, emu::LaunchConfig cfg,
                        std::vector<emu::ArgBytes> args, bool selected) {
  struct Pending {
    uint64_t parent;
    emu::ChildLaunch launch;
  };
  std::vector<Pending> stack;  // the next to run last
  auto push = [&](uint64_t parent, std::vector<emu::ChildLaunch> children) {
    for (auto it = children.rbegin(); it != children.rend(); ++it)
      stack.push_back({parent, std::move(*it)});
    pending_device_launches_ = stack.size();
  };
  Module& m = *f->module;
  push(index, run_grid(f, index, cfg, args, selected));
  while (!stack.empty() && sticky == CUDA_SUCCESS) {
    Pending p = std::move(stack.back());
    stack.pop_back();
    pending_device_launches_ = stack.size();
    Function* cf = device_function(m, p.launch.kernel);
    const emu::Program* prog = nullptr;
    CUresult refused = CUDA_SUCCESS;
    if (!(prog = program(cf, "", &refused))) continue;  // said once, by program()
    const uint64_t ci = launches++;
    parent_launch_[ci] = p.parent;
    emu::LaunchConfig cc = cfg;
    cc.grid = p.launch.grid;
    cc.block = p.launch.block;
    cc.dynamic_shared = p.launch.shared;
    cc.only_blocks.clear();
    if (cfg.progress)
      cc.progress = report::terminal_progress(fmt::format("launch {}: {}", ci, demangle(cf->name)));
    cc.cooperative = false;
    cc.cluster = {1, 1, 1};
    cc.explicit_cluster = false;
    cc.shared_limit.bytes = std::min(
        cc.shared_limit.optin,
        std::max<uint32_t>(static_cast<uint32_t>(spec.shared_per_block),
                           prog->static_shared + static_cast<uint32_t>(cf->max_dynamic_shared)));
    // A child's configuration the device runtime accepted but the kernel
    // cannot run with (its shared memory): a launch error of the child.
    if (std::string e = emu::launch_refusal(*m.emu, cf->name, cc, p.launch.args); !e.empty()) {
      ++failed_kernels;
      error_line(fmt::format("launch {} of {}{}: {}", ci, demangle(cf->name), parent_note(ci), e));
      continue;
    }
    push(ci, run_grid(cf, ci, cc, p.launch.args, selection_.select(cf->name)));
  }
  pending_device_launches_ = 0;
}

}  // namespace smemlab::runtime
