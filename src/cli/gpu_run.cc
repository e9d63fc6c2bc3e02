#include "cli/gpu_run.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "gpu/device_launch.h"

namespace smemlab::cli {

gpu::Outcome run_on_gpu(const Prepared& p, int timed_launches) {
  gpu::Launch l;
  std::ifstream in(p.input.ptx_path);
  std::stringstream text;
  text << in.rdbuf();
  l.ptx = text.str();
  l.kernel = p.kernel;
  l.grid = {p.config.grid.x, p.config.grid.y, p.config.grid.z};
  l.block = {p.config.block.x, p.config.block.y, p.config.block.z};
  l.dynamic_shared = p.config.dynamic_shared;
  for (size_t i = 0; i < p.specs.size(); ++i) {
    // Emulator addresses mean nothing on the GPU.
    if (p.specs[i].object != ArgSpec::Object::None)
      throw UsageError(
          fmt::format("--arg '{}': texture and surface arguments work in the emulator only, not "
                      "with --gpu or --compare",
                      p.specs[i].text));
    if (p.specs[i].pointer)
      throw UsageError(
          fmt::format("--arg '{}': ptr arguments work in the emulator only, not with "
                      "--gpu or --compare",
                      p.specs[i].text));
    gpu::Arg a;
    a.is_buffer = p.specs[i].buffer;
    if (a.is_buffer) {
      a.bytes.resize(p.specs[i].count * p.specs[i].elem_size);
      p.device.copy_from(a.bytes.data(), p.args.buffer[i], a.bytes.size());
    } else {
      a.bytes = p.args.bytes[i];
    }
    l.args.push_back(std::move(a));
  }
  l.timed_launches = timed_launches;
  return gpu::run(l);
}

}  // namespace smemlab::cli
