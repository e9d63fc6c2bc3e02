#include "emu/launch.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <thread>

#include "emu/block.h"
#include "ptx/parser.h"

namespace smemlab::emu {

const char* space_name(Space s) {
  switch (s) {
    case Space::Global:
      return "global";
    case Space::Shared:
      return "shared";
    case Space::Local:
      return "local";
    case Space::Const:
      return "const";
    case Space::Param:
      return "param";
  }
  return "?";
}

const char* memop_name(MemOp o) {
  switch (o) {
    case MemOp::Load:
      return "load";
    case MemOp::Store:
      return "store";
    case MemOp::Atomic:
      return "atomic";
    case MemOp::Reduction:
      return "reduction";
    case MemOp::CpAsyncLoad:
      return "cp.async load";
    case MemOp::CpAsyncStore:
      return "cp.async store";
  }
  return "?";
}

uint64_t Device::malloc(uint64_t bytes, std::string name) {
  return mem_.allocate(bytes, std::move(name));
}

void Device::copy_to(uint64_t dst, const void* src, uint64_t bytes) {
  if (bytes == 0) return;
  uint8_t* p = mem_.translate(dst, bytes);
  if (!p)
    throw std::out_of_range(
        fmt::format("copy of {} bytes to 0x{:x}: not inside one allocation", bytes, dst));
  std::memcpy(p, src, bytes);
}

void Device::copy_from(void* dst, uint64_t src, uint64_t bytes) const {
  if (bytes == 0) return;
  const uint8_t* p = mem_.translate(src, bytes);
  if (!p)
    throw std::out_of_range(
        fmt::format("copy of {} bytes from 0x{:x}: not inside one allocation", bytes, src));
  std::memcpy(dst, p, bytes);
}

void Device::memset(uint64_t dst, int value, uint64_t bytes) {
  uint8_t* p = mem_.translate(dst, bytes);
  if (!p) throw std::out_of_range("memset outside an allocation");
  std::memset(p, value, bytes);
}

static uint32_t align_up(uint32_t v, uint32_t a) { return a ? (v + a - 1) / a * a : v; }

Module::Module(Device& dev, ptx::Module m) : dev_(dev), ptx_(std::move(m)) {
  for (const auto& g : ptx_.globals) {
    if (g.space == ptx::StateSpace::Global) {
      uint64_t size = static_cast<uint64_t>(std::max<int64_t>(g.size_bytes(), 1));
      uint64_t addr = dev_.malloc(size, g.name);
      if (!g.init.empty())
        dev_.copy_to(addr, g.init.data(), std::min<uint64_t>(g.init.size(), size));
      layout_.symbols[g.name] = {MSpace::Global, addr};
    } else if (g.space == ptx::StateSpace::Const) {
      uint32_t al = g.align ? static_cast<uint32_t>(g.align) : 8;
      uint32_t off = align_up(static_cast<uint32_t>(const_bank_.size()), al);
      const_bank_.resize(off + static_cast<uint32_t>(std::max<int64_t>(g.size_bytes(), 1)), 0);
      std::copy(g.init.begin(), g.init.end(), const_bank_.begin() + off);
      layout_.symbols[g.name] = {MSpace::Const, off};
    }
  }
  // Initializers that hold addresses of other variables (generic(sym)).
  for (const auto& g : ptx_.globals) {
    for (const auto& [off, name] : g.init_symbols) {
      auto it = layout_.symbols.find(name);
      if (it == layout_.symbols.end()) continue;
      uint64_t v = it->second.space == MSpace::Const ? kConstWindow + it->second.address
                                                     : it->second.address;
      set_symbol(g.name, &v, std::min<uint64_t>(8, static_cast<uint64_t>(ptx::type_size(g.type))),
                 static_cast<uint64_t>(off));
    }
  }
  layout_.const_bytes = static_cast<uint32_t>(const_bank_.size());
}

std::unique_ptr<Module> Module::load_file(Device& dev, const std::string& path) {
  return std::unique_ptr<Module>(new Module(dev, ptx::parse_file(path)));
}

std::unique_ptr<Module> Module::load_text(Device& dev, const std::string& text,
                                          const std::string& name) {
  return std::unique_ptr<Module>(new Module(dev, ptx::parse(text, name)));
}

std::vector<std::string> Module::kernel_names() const {
  std::vector<std::string> out;
  for (const auto* k : ptx_.kernels()) out.push_back(k->name);
  return out;
}

const Program& Module::kernel(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = programs_.find(name);
  if (it != programs_.end()) return *it->second;
  const ptx::Function* f = ptx_.find(name);
  if (!f || !f->is_entry)
    throw DecodeError(fmt::format("{}: no kernel named '{}'", ptx_.path, name));
  auto p = decode_kernel(ptx_, *f, layout_);
  const Program& ref = *p;
  programs_[name] = std::move(p);
  return ref;
}

void Module::set_symbol(const std::string& symbol, const void* data, uint64_t bytes,
                        uint64_t offset) {
  auto it = layout_.symbols.find(symbol);
  if (it == layout_.symbols.end())
    throw std::out_of_range(fmt::format("no .const or .global symbol '{}'", symbol));
  if (it->second.space == MSpace::Global) {
    dev_.copy_to(it->second.address + offset, data, bytes);
    return;
  }
  uint64_t at = it->second.address + offset;
  if (at + bytes > const_bank_.size())
    throw std::out_of_range(fmt::format("write past the end of '{}'", symbol));
  std::memcpy(const_bank_.data() + at, data, bytes);
}

uint64_t Module::global_address(const std::string& symbol) const {
  auto it = layout_.symbols.find(symbol);
  return it == layout_.symbols.end() || it->second.space != MSpace::Global ? 0 : it->second.address;
}

std::string LaunchError::what() const {
  std::string s = message;
  std::vector<std::string> where;
  if (kind != "launch" && kind != "decode") {
    where.push_back(fmt::format("block ({},{},{})", block.x, block.y, block.z));
    if (has_thread) where.push_back(fmt::format("thread ({},{},{})", thread.x, thread.y, thread.z));
    if (ptx_line) where.push_back(fmt::format("{} at PTX line {}", instruction, ptx_line));
    if (!source.empty()) where.push_back(source);
  }
  if (!where.empty()) {
    s += " [";
    for (size_t i = 0; i < where.size(); ++i) s += (i ? ", " : "") + where[i];
    s += "]";
  }
  return s;
}

namespace {

LaunchError to_error(const Program& p, const LaunchConfig& cfg, Dim3 block, const Fault& f) {
  LaunchError e;
  e.kind = f.kind;
  e.message = f.message;
  e.block = block;
  if (f.lane >= 0) {
    uint32_t t = f.warp * 32 + static_cast<uint32_t>(f.lane);
    e.thread = {t % cfg.block.x, (t / cfg.block.x) % cfg.block.y, t / (cfg.block.x * cfg.block.y)};
    e.has_thread = true;
  }
  // Thread faults and deadlocks (where the first waiting warp waits).
  if ((f.lane >= 0 || f.kind == "deadlock") && f.pc < p.ops.size()) {
    const InstrInfo& i = p.info[p.ops[f.pc].info];
    e.ptx_line = i.ptx_line;
    e.instruction = i.text;
    if (i.loc >= 0 && p.lines) {
      e.source = p.lines->describe(i.loc);
      const ptx::SourceLoc* outer = p.lines->chain(i.loc).back();
      e.source_file = p.lines->file(outer->file);
      e.source_line = outer->line;
    }
  }
  return e;
}

LaunchStatus launch_error(std::string msg) {
  LaunchStatus s;
  s.error = LaunchError{};
  s.error->kind = "launch";
  s.error->message = std::move(msg);
  return s;
}

}  // namespace

LaunchStatus launch_raw(Module& m, const std::string& kernel, const LaunchConfig& cfg,
                        const std::vector<ArgBytes>& args) {
  const Program& p = m.kernel(kernel);
  if (args.size() != p.params.size())
    return launch_error(fmt::format("kernel {} takes {} arguments, {} given", kernel,
                                    p.params.size(), args.size()));
  std::vector<uint8_t> params(p.param_bytes + 1, 0);
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].size() != p.params[i].size)
      return launch_error(fmt::format("argument {} of {} has {} bytes, the parameter ({}) has {}",
                                      i, kernel, args[i].size(), p.params[i].type,
                                      p.params[i].size));
    std::memcpy(params.data() + p.params[i].offset, args[i].data(), args[i].size());
  }
  if (cfg.block.count() == 0 || cfg.block.count() > 1024 || cfg.block.z > 64)
    return launch_error(fmt::format("invalid block size ({},{},{}): 1 to 1024 threads", cfg.block.x,
                                    cfg.block.y, cfg.block.z));
  if (cfg.grid.count() == 0) return launch_error("invalid grid size: zero blocks");
  if (uint64_t{p.static_shared} + cfg.dynamic_shared > 227 * 1024)
    return launch_error(fmt::format("{} bytes of shared memory requested; the limit is 232448",
                                    p.static_shared + cfg.dynamic_shared));

  LaunchEnv env;
  env.prog = &p;
  env.global = &m.device().memory();
  env.params = params.data();
  env.const_bank = m.const_bank().data();
  env.const_bytes = static_cast<uint32_t>(m.const_bank().size());
  env.grid = cfg.grid;
  env.block = cfg.block;
  env.dynamic_shared = cfg.dynamic_shared;
  env.budget = cfg.budget;

  KernelObserver* ko = cfg.observer;
  if (ko)
    ko->on_kernel_begin(
        KernelInfo{kernel, cfg.grid, cfg.block, p.static_shared, cfg.dynamic_shared, p.lines});

  for (const Dim3& b : cfg.only_blocks)
    if (b.x >= cfg.grid.x || b.y >= cfg.grid.y || b.z >= cfg.grid.z)
      return launch_error(fmt::format("block ({},{},{}) is outside the grid", b.x, b.y, b.z));
  uint64_t nblocks = cfg.only_blocks.empty() ? cfg.grid.count() : cfg.only_blocks.size();
  unsigned nthreads = cfg.threads ? cfg.threads : std::max(1u, std::thread::hardware_concurrency());
  nthreads = static_cast<unsigned>(std::min<uint64_t>(nthreads, nblocks));
  std::atomic<uint64_t> next{0}, steps{0}, lane_steps{0}, ran{0};
  std::atomic<uint64_t> fault_at{UINT64_MAX};
  std::mutex mu;
  std::optional<LaunchError> first_error;
  uint64_t first_error_block = UINT64_MAX;
  // Finished blocks wait here until all lower-numbered ones are done.
  std::map<uint64_t, std::pair<Dim3, std::unique_ptr<BlockObserver>>> pending;
  uint64_t next_finish = 0;

  auto finish = [&](uint64_t idx, Dim3 id, std::unique_ptr<BlockObserver> obs) {
    std::lock_guard<std::mutex> lock(mu);
    pending[idx] = {id, std::move(obs)};
    while (!pending.empty() && pending.begin()->first == next_finish) {
      auto node = pending.extract(pending.begin());
      if (ko) ko->finish_block(node.mapped().first, std::move(node.mapped().second));
      ++next_finish;
    }
  };

  auto record = [&](uint64_t idx, LaunchError err) {
    std::lock_guard<std::mutex> lock(mu);
    if (idx < first_error_block) {
      first_error_block = idx;
      first_error = std::move(err);
      uint64_t cur = fault_at.load();
      while (idx < cur && !fault_at.compare_exchange_weak(cur, idx)) {
      }
    }
  };

  auto worker = [&]() {
    BlockRunner runner;
    for (;;) {
      uint64_t idx = next.fetch_add(1);
      if (idx >= nblocks) return;
      Dim3 id = !cfg.only_blocks.empty()
                    ? cfg.only_blocks[idx]
                    : Dim3{static_cast<uint32_t>(idx % cfg.grid.x),
                           static_cast<uint32_t>((idx / cfg.grid.x) % cfg.grid.y),
                           static_cast<uint32_t>(idx / (uint64_t{cfg.grid.x} * cfg.grid.y))};
      if (idx > fault_at.load()) {
        finish(idx, id, nullptr);
        continue;
      }
      std::unique_ptr<BlockObserver> obs = ko ? ko->make_block_observer(id) : nullptr;
      try {
        runner.run(env, id, obs.get());
        ran.fetch_add(1);
      } catch (const Fault& f) {
        record(idx, to_error(p, cfg, id, f));
      } catch (const std::exception& e) {
        // Host-side failures (out of memory, an observer throwing) end the
        // launch with a message instead of std::terminate in a worker.
        LaunchError err;
        err.kind = "internal";
        err.message = fmt::format("emulator error: {}", e.what());
        err.block = id;
        record(idx, std::move(err));
      }
      steps.fetch_add(runner.context().steps);
      lane_steps.fetch_add(runner.context().lane_steps);
      finish(idx, id, std::move(obs));
    }
  };
  if (nthreads <= 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (unsigned i = 0; i < nthreads; ++i) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
  }
  LaunchStatus st;
  st.error = first_error;
  st.warp_instructions = steps.load();
  st.lane_instructions = lane_steps.load();
  st.blocks_run = ran.load();
  if (ko) ko->on_kernel_end(st.ok());
  return st;
}

}  // namespace smemlab::emu
