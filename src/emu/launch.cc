#include "emu/launch.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cfenv>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <tuple>

#include "emu/block.h"
#include "emu/handover.h"
#include "emu/native_tier.h"
#include "emu/tier.h"
#include "emu/worker_pool.h"
#include "ptx/demangle.h"
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
    case MemOp::BulkLoad:
      return "bulk load";
    case MemOp::BulkStore:
      return "bulk store";
    case MemOp::BulkReduce:
      return "bulk reduction";
  }
  return "?";
}

const char* bulk_kind_name(BulkKind k) {
  switch (k) {
    case BulkKind::Load:
      return "load";
    case BulkKind::Store:
      return "store";
    case BulkKind::Reduce:
      return "reduction";
    case BulkKind::Prefetch:
      return "prefetch";
  }
  return "?";
}

const char* mbarrier_kind_name(MbarrierKind k) {
  switch (k) {
    case MbarrierKind::Init:
      return "init";
    case MbarrierKind::Inval:
      return "inval";
    case MbarrierKind::Arrive:
      return "arrive";
    case MbarrierKind::ExpectTx:
      return "expect_tx";
    case MbarrierKind::CompleteTx:
      return "complete_tx";
    case MbarrierKind::TestWait:
      return "test_wait";
    case MbarrierKind::TryWait:
      return "try_wait";
    case MbarrierKind::CpAsyncArrive:
      return "cp.async.mbarrier.arrive";
  }
  return "?";
}

const char* fence_kind_name(FenceKind k) {
  switch (k) {
    case FenceKind::ProxyAsync:
      return "fence.proxy.async";
    case FenceKind::MbarrierInit:
      return "fence.mbarrier_init";
    case FenceKind::ProxyAlias:
      return "fence.proxy.alias";
    case FenceKind::ProxyTensormap:
      return "fence.proxy.tensormap";
    case FenceKind::Memory:
      return "fence";
  }
  return "?";
}

uint64_t Device::malloc(uint64_t bytes, std::string name) {
  return mem_.allocate(bytes, std::move(name));
}

namespace {

// Round-to-nearest for a scope, the caller's mode restored after.
struct NearestRounding {
  int old = std::fegetround();
  NearestRounding() {
    if (old != FE_TONEAREST) std::fesetround(FE_TONEAREST);
  }
  ~NearestRounding() {
    if (old != FE_TONEAREST) std::fesetround(old);
  }
  NearestRounding(const NearestRounding&) = delete;
  NearestRounding& operator=(const NearestRounding&) = delete;
};

// Handles are tagged so that an integer that is not one is recognized.
constexpr uint64_t kTextureTag = 0x7e78000000000000ull;
}  // namespace

uint64_t Device::create_texture(const texture::Descriptor& d) {
  if (d.channels != 1 && d.channels != 2 && d.channels != 4)
    throw std::invalid_argument("texture: 1, 2 or 4 channels");
  if (d.dims < 1 || d.dims > 3 || (d.layered && d.dims == 3))
    throw std::invalid_argument("texture: 1D, 2D or 3D, layered only 1D or 2D");
  if (!d.width || !d.height || !d.depth || !d.layers)
    throw std::invalid_argument("texture: zero extent");
  if (d.pitch && d.pitch < d.width * d.texel_bytes())
    throw std::invalid_argument("texture: pitch smaller than a row");
  if (d.filter == texture::Filter::Linear && d.read == texture::Read::Element &&
      d.format != texture::Format::F16 && d.format != texture::Format::F32)
    throw std::invalid_argument(
        "texture: linear filtering of integer texels needs a normalized-float read");
  // Only the base must be device memory: a GPU does not check the extent
  // (convolutionFFT2D describes 256 KiB more than its buffer holds and reads
  // inside it); each texel read is bounds-checked (ops_texture_exec.cc).
  if (!mem_.translate(d.base, 1))
    throw std::invalid_argument(
        fmt::format("texture: its base 0x{:x} is not in a device allocation", d.base));
  textures_.push_back(d);
  return kTextureTag | textures_.size();
}

bool Device::destroy_texture(uint64_t handle) {
  if (!texture(handle)) return false;
  textures_[(handle & ~kTextureTag) - 1].reset();
  return true;
}

const texture::Descriptor* Device::texture(uint64_t handle) const {
  uint64_t i = handle & ~kTextureTag;
  if ((handle & kTextureTag) != kTextureTag || i == 0 || i > textures_.size() || !textures_[i - 1])
    return nullptr;
  return &*textures_[i - 1];
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
      uint64_t addr = 0;
      try {
        addr = dev_.malloc(size, g.name);
      } catch (const std::length_error& e) {
        throw ptx::ParseError(ptx_.path, g.pos.line, g.pos.col, e.what());
      }
      if (!g.init.empty())
        dev_.copy_to(addr, g.init.data(), std::min<uint64_t>(g.init.size(), size));
      layout_.symbols[g.name] = {MSpace::Global, addr};
    } else if (g.space == ptx::StateSpace::Const) {
      uint32_t al = g.align ? static_cast<uint32_t>(g.align) : 8;
      uint32_t off = align_up(static_cast<uint32_t>(const_bank_.size()), al);
      // CUDA's constant bank is 64 KiB.
      if (uint64_t{off} + static_cast<uint64_t>(g.size_bytes()) > 64 * 1024)
        throw ptx::ParseError(
            ptx_.path, g.pos.line, g.pos.col,
            fmt::format("'{}' does not fit in the 65536-byte constant bank", g.name));
      size_t size = static_cast<size_t>(std::max<int64_t>(g.size_bytes(), 1));
      const_bank_.resize(off + size, 0);
      std::copy_n(g.init.begin(), std::min(g.init.size(), size), const_bank_.begin() + off);
      layout_.symbols[g.name] = {MSpace::Const, off};
    }
  }
  // Initializers that hold addresses of other variables (generic(sym)).
  for (const auto& g : ptx_.globals) {
    for (const auto& [off, name] : g.init_symbols) {
      auto it = layout_.symbols.find(name);
      uint64_t v;
      if (it != layout_.symbols.end()) {
        v = it->second.space == MSpace::Const ? kConstWindow + it->second.address
                                              : it->second.address;
      } else if (const ptx::Function* f = ptx_.find(name)) {
        // A function's address (virtual tables, tables of function pointers).
        v = kFunctionWindow + 16 * static_cast<uint64_t>(f - ptx_.functions.data());
      } else {
        continue;
      }
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

std::unique_ptr<Module> Module::load_parsed(Device& dev, ptx::Module m) {
  return std::unique_ptr<Module>(new Module(dev, std::move(m)));
}

std::vector<std::string> Module::kernel_names() const {
  std::vector<std::string> out;
  for (const auto* k : ptx_.kernels()) out.push_back(k->name);
  return out;
}

const Program& Module::kernel(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = programs_.find(name);
  const uint32_t stack = dev_.stack_bytes();
  // A program with real calls under another stack size is a program of its
  // own (the frame each thread gets differs), kept beside the default one.
  const std::string sized = fmt::format("{}\n{}", name, stack);
  if (it != programs_.end() && (it->second->callees.empty() || it->second->stack_limit == stack))
    return *it->second;
  if (auto s = programs_.find(sized); s != programs_.end()) return *s->second;
  const ptx::Function* f = ptx_.find(name);
  if (!f || !f->is_entry)
    throw DecodeError(fmt::format("{}: no kernel named '{}'", ptx_.path, name));
  auto p = decode_kernel(ptx_, *f, layout_);
  size_stack(*p, stack);
  // Once per program rather than per launch and worker (a launch of small
  // blocks spent a tenth of its time on it).
  p->reg_init = std::make_shared<const RegInit>(make_reg_init(*p));
  const Program& ref = *p;
  programs_[it != programs_.end() ? sized : name] = std::move(p);
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
  if (!refused_launch(kind)) {
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
  if ((f.lane >= 0 || f.kind == FaultKind::Deadlock) && f.pc < p.ops.size()) {
    const InstrInfo& i = p.info[p.ops[f.pc].info];
    e.ptx_line = i.ptx_line;
    e.instruction = i.text;
    e.op_class = op_class(static_cast<Base>(p.ops[f.pc].code / 16));
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
  s.error->kind = FaultKind::Launch;
  s.error->message = std::move(msg);
  return s;
}

// The main thread of a cooperative launch while its blocks run: a stall is
// no block finishing and none storing for cfg.stall_seconds (all still
// running are spinning); it and cfg.stop halt the blocks. Once all `nblocks`
// have run, the workers only hand their blocks' observers over (a checker's
// end-of-block work can take longer than the limit on a loaded host): no
// block is left to stall.
void watch_cooperative(const LaunchConfig& cfg, unsigned nthreads, uint64_t nblocks,
                       const std::atomic<unsigned>& done, const std::atomic<uint64_t>& ran,
                       const std::atomic<uint64_t>& writes, std::atomic<bool>& halt,
                       std::atomic<int>& reason) {
  using Clock = std::chrono::steady_clock;
  auto last = Clock::now();
  uint64_t seen = UINT64_MAX;
  while (done.load() < nthreads) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (halt.load()) continue;
    if (cfg.stop && cfg.stop->load()) {
      int none = 0;
      reason.compare_exchange_strong(none, 3);
      halt.store(true);
      continue;
    }
    uint64_t now = ran.load() + writes.load();
    // A host that runs may still set what the blocks wait for.
    const bool host_runs = cfg.host_waiting && cfg.host_waiting->load() == 0;
    if (now != seen || host_runs || ran.load() >= nblocks) {
      seen = now;
      last = Clock::now();
    } else if (std::chrono::duration<double>(Clock::now() - last).count() > cfg.stall_seconds) {
      int none = 0;
      reason.compare_exchange_strong(none, 2);
      halt.store(true);
    }
  }
}

// The launch's scheduling units: blocks, or clusters (their blocks by
// rank). Unit u's block of rank r is handed over as u * size + r.
struct Units {
  Dim3 grid, cluster;
  uint32_t size = 1;                        // blocks per unit
  const std::vector<Dim3>* only = nullptr;  // blocks sampled (size 1)
  std::vector<Dim3> origins;                // clusters sampled: first blocks
  uint64_t count = 0;
  Dim3 block(uint64_t u, uint32_t rank) const {
    if (only) return (*only)[u];
    const Dim3 c = cluster;
    Dim3 o;
    if (!origins.empty()) {
      o = origins[u];
    } else {
      const uint64_t ncx = grid.x / c.x, ncy = grid.y / c.y;
      o = {static_cast<uint32_t>(u % ncx) * c.x, static_cast<uint32_t>((u / ncx) % ncy) * c.y,
           static_cast<uint32_t>(u / (ncx * ncy)) * c.z};
    }
    return {o.x + rank % c.x, o.y + (rank / c.x) % c.y, o.z + rank / (c.x * c.y)};
  }
};

Units make_units(const LaunchConfig& cfg, Dim3 cluster) {
  Units u;
  u.grid = cfg.grid;
  u.cluster = cluster;
  u.size = static_cast<uint32_t>(cluster.count());
  if (cfg.only_blocks.empty()) {
    u.count = cfg.grid.count() / u.size;
  } else if (u.size == 1) {
    u.only = &cfg.only_blocks;
    u.count = cfg.only_blocks.size();
  } else {
    std::set<std::tuple<uint32_t, uint32_t, uint32_t>> seen;
    for (const Dim3& b : cfg.only_blocks) {
      Dim3 o{b.x - b.x % cluster.x, b.y - b.y % cluster.y, b.z - b.z % cluster.z};
      if (seen.insert({o.x, o.y, o.z}).second) u.origins.push_back(o);
    }
    u.count = u.origins.size();
  }
  return u;
}

}  // namespace

std::string launch_limits_error(Dim3 grid, Dim3 block) {
  if (block.count() == 0 || block.count() > kMaxBlockThreads)
    return fmt::format("block ({},{},{}) has {} threads; CUDA allows 1 to {}", block.x, block.y,
                       block.z, block.count(), kMaxBlockThreads);
  if (block.x > kMaxBlockDimXY || block.y > kMaxBlockDimXY || block.z > kMaxBlockDimZ)
    return fmt::format("block ({},{},{}): CUDA allows at most {} in x and y, {} in z", block.x,
                       block.y, block.z, kMaxBlockDimXY, kMaxBlockDimZ);
  if (grid.count() == 0)
    return fmt::format("grid ({},{},{}) has no blocks", grid.x, grid.y, grid.z);
  if (grid.x > kMaxGridDimX || grid.y > kMaxGridDimYZ || grid.z > kMaxGridDimYZ)
    return fmt::format("grid ({},{},{}): CUDA allows at most {} in x, {} in y and z", grid.x,
                       grid.y, grid.z, kMaxGridDimX, kMaxGridDimYZ);
  return "";
}

std::string resolve_cluster(const ptx::Function& f, const LaunchConfig& cfg, Dim3* cluster,
                            bool* explicit_cluster) {
  auto it = f.directives.find(".reqnctapercluster");
  Dim3 req{0, 0, 0};
  if (it != f.directives.end()) {
    const auto& v = it->second;
    req = {v.size() > 0 ? static_cast<uint32_t>(v[0]) : 1,
           v.size() > 1 ? static_cast<uint32_t>(v[1]) : 1,
           v.size() > 2 ? static_cast<uint32_t>(v[2]) : 1};
  }
  const bool asked = cfg.explicit_cluster || cfg.cluster.count() != 1;
  *cluster = asked ? cfg.cluster : req.x ? req : Dim3{1, 1, 1};
  *explicit_cluster = asked || req.x != 0 || f.directives.count(".explicitcluster");
  const Dim3 c = *cluster, g = cfg.grid;
  if (asked && req.x && (c.x != req.x || c.y != req.y || c.z != req.z))
    return fmt::format(
        "kernel {} was compiled for clusters of ({},{},{}) blocks "
        "(__cluster_dims__); the launch asks for ({},{},{})",
        ptx::demangle(f.name), req.x, req.y, req.z, c.x, c.y, c.z);
  if (c.count() == 0 || c.count() > kMaxClusterBlocks)
    return fmt::format("a cluster of ({},{},{}) = {} blocks: CUDA allows 1 to {} ({} portable)",
                       c.x, c.y, c.z, c.count(), kMaxClusterBlocks, kMaxPortableClusterBlocks);
  if (g.x % c.x || g.y % c.y || g.z % c.z)
    return fmt::format("grid ({},{},{}) is not a whole number of clusters of ({},{},{}) blocks",
                       g.x, g.y, g.z, c.x, c.y, c.z);
  return "";
}

namespace {

// The kernel's arguments in its parameter buffer; "" or why they do not fit.
std::string pack_params(const Program& p, const std::string& kernel,
                        const std::vector<ArgBytes>& args, std::vector<uint8_t>* params) {
  if (args.size() != p.params.size())
    return fmt::format("kernel {} takes {} arguments, {} given", kernel, p.params.size(),
                       args.size());
  params->assign(p.param_bytes + 1, 0);
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].size() != p.params[i].size)
      return fmt::format("argument {} of {} has {} bytes, the parameter ({}) has {}", i, kernel,
                         args[i].size(), p.params[i].type, p.params[i].size);
    std::memcpy(params->data() + p.params[i].offset, args[i].data(), args[i].size());
  }
  return "";
}

// Why the configuration cannot launch, before anything is set up; "" if it can.
std::string config_refusal(const Program& p, const LaunchConfig& cfg) {
  if (std::string e = launch_limits_error(cfg.grid, cfg.block); !e.empty()) return e;
  if (cfg.threads > kMaxHostThreads)
    return fmt::format("{} host threads requested; the limit is {}", cfg.threads, kMaxHostThreads);
  const uint64_t shared = uint64_t{p.static_shared} + cfg.dynamic_shared;
  const SharedLimit& limit = cfg.shared_limit;
  if (shared <= limit.bytes) return "";
  std::string e =
      fmt::format("{} bytes of shared memory ({} static + {} dynamic) exceed the {} allowed",
                  shared, p.static_shared, cfg.dynamic_shared, limit.bytes);
  if (limit.bytes < limit.optin)
    e += fmt::format(
        "; above {} bytes a kernel needs cudaFuncSetAttribute(kernel, "
        "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) (at most {})",
        limit.bytes, limit.optin);
  return e;
}

LaunchEnv make_env(Module& m, const Program& p, const LaunchConfig& cfg, const uint8_t* params) {
  LaunchEnv env;
  env.prog = &p;
  env.global = &m.device().memory();
  env.device = &m.device();
  env.params = params;
  env.const_bank = m.const_bank().data();
  env.const_bytes = static_cast<uint32_t>(m.const_bank().size());
  env.grid = cfg.grid;
  env.block = cfg.block;
  env.dynamic_shared = cfg.dynamic_shared;
  env.budget = cfg.budget;
  env.heap = &m.device().memory().heap();
  env.device_runtime = cfg.device_runtime;
  env.stop = cfg.stop;
  env.host_waiting = cfg.host_waiting;
  env.schedule = cfg.schedule;
  Tier tier = Tier::Jit;
  if (tier_from_env(&tier).empty() && tier != Tier::Interp && p.fused.size() == p.ops.size())
    env.fused = p.fused.data();
  // The runs' native code (native_tier.h): only where asked for
  // (SMEMLAB_TIER=native, compiled before the first launch, or
  // SMEMLAB_NATIVE=1, compiled in the background once hot), so by default
  // no compiler runs and no cache is written. (Lane-outer, it is faster
  // than the interpreted runs on ALU-bound kernels and equal elsewhere:
  // docs/emulator.md, "Issue 30, native runs with lanes as the outer
  // loop"; the default is a separate decision.)
  const char* nat = std::getenv("SMEMLAB_NATIVE");
  if (env.fused && (tier == Tier::Native || (nat && *nat == '1')))
    env.native = native_runs(native_state(p), p, tier == Tier::Native);
  // Quiet epochs keep the `gpu` schedule's results exactly; the interp tier
  // keeps its old turns (the reference the tier tests compare with).
  // SMEMLAB_QUIET_EPOCHS=0 turns them off (to measure them, or to rule them
  // out).
  const char* q = std::getenv("SMEMLAB_QUIET_EPOCHS");
  if (env.fused && cfg.schedule.kind == Schedule::Kind::Gpu && p.quiet.size() == p.ops.size() &&
      !(q && std::strcmp(q, "0") == 0))
    env.quiet = p.quiet.data();
  return env;
}

// The emulator state a block holds while it runs: its registers,
// predicates, local frames and shared memory.
uint64_t block_state_bytes(const Program& p, const LaunchConfig& cfg) {
  uint64_t nwarps = (cfg.block.count() + 31) / 32;
  return nwarps * 32 * (uint64_t{p.num_regs} * 8 + p.frame_bytes) + nwarps * p.num_preds * 4 +
         p.static_shared + cfg.dynamic_shared + 1;
}

// Host threads running the units: as asked (else the cores), no more than
// units, and few enough that the blocks in flight fit kMaxBlockStateBytes
// (their state, not the number of cores, is the bound).
unsigned host_threads(const LaunchConfig& cfg, const Units& units, uint64_t block_bytes) {
  // (Asked once: glibc reads /sys/devices/system/cpu/online on every call,
  // a file open per launch in a program of many short launches.)
  static const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  unsigned n = cfg.threads ? cfg.threads : cores;
  n = std::min(n, kMaxHostThreads);
  n = static_cast<unsigned>(std::min<uint64_t>(n, units.count));
  return static_cast<unsigned>(
      std::clamp<uint64_t>(kMaxBlockStateBytes / (block_bytes * units.size), 1, n));
}

// Why a cooperative launch of `nblocks` cannot run (all co-resident); "" if it can.
std::string cooperative_refusal(const LaunchConfig& cfg, uint64_t nblocks, uint64_t block_bytes) {
  if (!cfg.only_blocks.empty())
    return "a cooperative launch runs the whole grid; blocks cannot be sampled";
  if (nblocks > kMaxCooperativeBlocks)
    return fmt::format(
        "a cooperative launch of {} blocks: the emulator runs at most {} co-resident blocks",
        nblocks, kMaxCooperativeBlocks);
  if (block_bytes * nblocks > kMaxBlockStateBytes)
    return fmt::format(
        "a cooperative launch of {} blocks of {} bytes of emulator state each exceeds the {} "
        "bytes the emulator holds at once",
        nblocks, block_bytes, kMaxBlockStateBytes);
  return "";
}

// The launch's error: the one of the lowest block in hand-over order, so
// that it is the same whatever the threads did.
struct FirstError {
  std::mutex mu;
  std::optional<LaunchError> error;
  uint64_t block = UINT64_MAX;
  std::atomic<uint64_t> at{UINT64_MAX};  // `block`, read without the lock
  void record(uint64_t idx, LaunchError err) {
    std::lock_guard<std::mutex> lock(mu);
    if (idx >= block) return;
    block = idx;
    error = std::move(err);
    uint64_t cur = at.load();
    while (idx < cur && !at.compare_exchange_weak(cur, idx)) {
    }
  }
};

// A cooperative launch's shared state: every block on a thread of its own,
// the caller watching for a stall (watch_cooperative).
struct Cooperation {
  std::atomic<bool> halt{false};
  std::atomic<int> reason{0};  // 1: a block faulted, 2: no progress, 3: cfg.stop
  std::atomic<uint64_t> writes{0};
  std::atomic<unsigned> workers_done{0};
  std::vector<Dim3> stalled;  // blocks stopped while still running (under FirstError::mu)
  // A stall stopped blocks that were running; none stopped (the last
  // finished as the watchdog fired) is no stall.
  bool stalled_blocks() const { return reason.load() == 2 && !stalled.empty(); }
  void stop(int why) {
    int none = 0;
    reason.compare_exchange_strong(none, why);
    halt.store(true);
  }
};

// Runs `worker` on `nthreads` threads of its own and watches them; "" or
// why not every thread could start (those that did are halted).
std::string run_cooperative(const LaunchConfig& cfg, unsigned nthreads, uint64_t nblocks,
                            const std::function<void()>& worker, Cooperation& co,
                            const std::atomic<uint64_t>& ran, size_t* started) {
  std::vector<std::thread> pool;
  std::string spawn_error;
  try {
    for (unsigned i = 0; i < nthreads; ++i) pool.emplace_back(worker);
  } catch (const std::system_error& e) {
    spawn_error = e.what();
  }
  if (spawn_error.empty())
    watch_cooperative(cfg, nthreads, nblocks, co.workers_done, ran, co.writes, co.halt, co.reason);
  else
    co.stop(1);  // the blocks that started would wait for those that cannot
  *started = pool.size();
  for (auto& t : pool) t.join();
  return spawn_error;
}

LaunchError stall_error(const LaunchConfig& cfg, std::vector<Dim3> stalled, uint64_t nblocks,
                        uint64_t finished) {
  std::sort(stalled.begin(), stalled.end(),
            [](Dim3 a, Dim3 b) { return std::tie(a.z, a.y, a.x) < std::tie(b.z, b.y, b.x); });
  LaunchError e;
  e.kind = FaultKind::Deadlock;
  e.block = stalled.empty() ? Dim3{0, 0, 0} : stalled.front();
  e.message = fmt::format(
      "cooperative launch made no progress for {} s: {} of its {} blocks were still running "
      "without a store or atomic, waiting for something no block will do (a grid-wide "
      "barrier, cooperative_groups::this_grid().sync(), that not every block reaches, or a "
      "flag no block sets); {} blocks had finished",
      cfg.stall_seconds, stalled.size(), nblocks, finished);
  return e;
}

LaunchError stop_error(FaultKind kind, std::string message, Dim3 block) {
  LaunchError e;
  e.kind = kind;
  e.message = std::move(message);
  e.block = block;
  return e;
}

}  // namespace

std::string launch_refusal(Module& m, const std::string& kernel, const LaunchConfig& cfg,
                           const std::vector<ArgBytes>& args) {
  const Program& p = m.kernel(kernel);
  std::vector<uint8_t> params;
  if (std::string e = pack_params(p, kernel, args, &params); !e.empty()) return e;
  if (std::string e = config_refusal(p, cfg); !e.empty()) return e;
  Dim3 cluster;
  bool is_explicit = false;
  if (std::string e = resolve_cluster(*m.ptx().find(kernel), cfg, &cluster, &is_explicit);
      !e.empty())
    return e;
  std::string isa_error;
  if (!select_run_warp(&isa_error)) return isa_error;
  return "";
}

LaunchStatus launch_grid(Module& m, const std::string& kernel, const LaunchConfig& cfg,
                         const std::vector<ArgBytes>& args) {
  const Program& p = m.kernel(kernel);
  std::vector<uint8_t> params;
  if (std::string e = pack_params(p, kernel, args, &params); !e.empty()) return launch_error(e);
  if (std::string e = config_refusal(p, cfg); !e.empty()) return launch_error(e);
  if (Tier t; !tier_from_env(&t).empty()) return launch_error(tier_from_env(&t));
  LaunchEnv env = make_env(m, p, cfg, params.data());
  if (std::string e =
          resolve_cluster(*m.ptx().find(kernel), cfg, &env.cluster, &env.explicit_cluster);
      !e.empty())
    return launch_error(e);
  const Units units = make_units(cfg, env.cluster);
  std::string isa_error;
  env.run_warp = select_run_warp(&isa_error);
  if (!env.run_warp) return launch_error(isa_error);

  KernelObserver* ko = cfg.observer;
  if (ko) {
    KernelInfo info;
    info.name = kernel;
    info.grid = cfg.grid;
    info.block = cfg.block;
    info.static_shared = p.static_shared;
    info.dynamic_shared = cfg.dynamic_shared;
    info.lines = p.lines;
    info.cluster = env.cluster;
    for (const Op& op : p.ops) {
      const unsigned base = op.code / 16;
      info.hopper = info.hopper || base == WGMMA || base == WGMMA_SYNC || base == MBAR ||
                    base == BULK || base == BULK_ST || base == TMA || base == FENCE;
    }
    ko->on_kernel_begin(info);
  }

  for (const Dim3& b : cfg.only_blocks)
    if (b.x >= cfg.grid.x || b.y >= cfg.grid.y || b.z >= cfg.grid.z)
      return launch_error(fmt::format("block ({},{},{}) is outside the grid", b.x, b.y, b.z));
  const uint64_t nblocks = units.count * units.size;
  const uint64_t block_bytes = block_state_bytes(p, cfg);
  unsigned nthreads = host_threads(cfg, units, block_bytes);
  Cooperation co;
  uint64_t workspace = 0;
  if (cfg.cooperative) {
    if (std::string e = cooperative_refusal(cfg, nblocks, block_bytes); !e.empty())
      return launch_error(e);
    nthreads = static_cast<unsigned>(units.count);
    workspace = m.device().malloc(16, "grid sync workspace");
    env.grid_workspace = workspace;
    env.cooperative = &co.writes;
    env.stop = &co.halt;
  }
  std::atomic<uint64_t> next{0}, steps{0}, lane_steps{0}, ran{0};
  FirstError first;
  // After a fault in a lower block, or a stop request, workers wait no more
  // for the hand-over (BlockHandover::throttle).
  BlockHandover handover(cfg, ko, nblocks, nthreads, [&] {
    return first.at.load() != UINT64_MAX || (cfg.stop && cfg.stop->load(std::memory_order_relaxed));
  });
  auto record = [&](uint64_t idx, LaunchError err) {
    first.record(idx, std::move(err));
    handover.wake();  // (workers waiting in throttle go on to stop)
  };
  // A block's fault: the launch's error, unless (cooperative) it is a block
  // stopped because of another block's fault or a stall.
  auto on_fault = [&](uint64_t idx, Dim3 id, const Fault& f) {
    if (!cfg.cooperative) {
      record(idx, to_error(p, cfg, id, f));
    } else if (f.kind == FaultKind::Interrupted && co.reason.load() != 3) {
      std::lock_guard<std::mutex> lock(first.mu);
      for (uint32_t r = 0; r < units.size; ++r)
        co.stalled.push_back(units.block(idx / units.size, r));
    } else {
      record(idx, to_error(p, cfg, id, f));
      co.stop(1);
    }
  };
  // Host-side failures (out of memory, an observer throwing) end the
  // launch with a message instead of std::terminate in a worker.
  auto on_internal = [&](uint64_t idx, Dim3 id, const std::exception& e) {
    record(idx, stop_error(FaultKind::Internal, fmt::format("emulator error: {}", e.what()), id));
  };

  auto worker = [&]() {
    // The PTX arithmetic rounds to nearest unless an instruction says
    // otherwise (ops_float.cc, ops_convert.cc set other modes only around
    // such instructions): a program that changed its own thread's mode
    // before the launch must not change the kernel's results.
    NearestRounding nearest;
    BlockRunner runner;
    std::unique_ptr<ClusterRunner> cluster_runner;
    if (units.size > 1) cluster_runner = std::make_unique<ClusterRunner>();
    // Counted here and added once: shared counters bumped per block would
    // bounce one cache line between all the workers. A cooperative launch's
    // watchdog counts finished blocks as they finish.
    uint64_t my_steps = 0, my_lane_steps = 0, my_ran = 0;
    struct Flush {
      std::atomic<uint64_t>& steps;
      std::atomic<uint64_t>& lane_steps;
      std::atomic<uint64_t>& ran;
      uint64_t &s, &l, &r;
      ~Flush() {
        steps.fetch_add(s);
        lane_steps.fetch_add(l);
        ran.fetch_add(r);
      }
    } flush{steps, lane_steps, ran, my_steps, my_lane_steps, my_ran};
    struct Done {
      std::atomic<unsigned>& n;
      ~Done() { n.fetch_add(1); }
    } done{co.workers_done};
    auto count_ran = [&](uint64_t n) {
      cfg.cooperative ? void(ran.fetch_add(n)) : void(my_ran += n);
    };
    std::vector<Dim3> ids(units.size);
    std::vector<std::unique_ptr<BlockObserver>> obs(units.size);
    std::vector<BlockObserver*> raw(units.size);
    for (;;) {
      handover.throttle();
      uint64_t u = next.fetch_add(1);
      if (u >= units.count) return;
      const uint64_t idx = u * units.size;  // the unit's first block, as handed over
      for (uint32_t r = 0; r < units.size; ++r) ids[r] = units.block(u, r);
      // After a fault in a lower block, or a stop request, no further block
      // runs: this worker is done (the blocks below still finish in order;
      // the indices skipped here are all above the first error).
      if (cfg.stop && cfg.stop->load(std::memory_order_relaxed)) {
        record(idx, stop_error(FaultKind::Interrupted, "stopped by a signal", ids[0]));
        return;
      }
      if (idx > first.at.load()) return;
      for (uint32_t r = 0; r < units.size; ++r) {
        obs[r] = ko ? ko->make_block_observer(ids[r]) : nullptr;
        raw[r] = obs[r].get();
      }
      if (units.size == 1) {
        try {
          runner.run(env, ids[0], raw[0]);
          count_ran(1);
        } catch (const Fault& f) {
          on_fault(idx, ids[0], f);
        } catch (const std::exception& e) {
          on_internal(idx, ids[0], e);
        }
        my_steps += runner.context().steps;
        my_lane_steps += runner.context().lane_steps;
        // (A failing block's output up to its fault is printed, as on a GPU.)
        handover.finish(idx, ids[0], std::move(obs[0]), std::move(runner.context_mut().printf_out));
        continue;
      }
      try {
        cluster_runner->run(env, ids, raw, u);
        count_ran(units.size);
      } catch (const Fault& f) {
        uint32_t r = cluster_runner->failed_rank();
        on_fault(idx + r, ids[r], f);
      } catch (const std::exception& e) {
        on_internal(idx, ids[0], e);
      }
      for (uint32_t r = 0; r < units.size; ++r) {
        BlockRunner& br = cluster_runner->block(r);
        my_steps += br.context().steps;
        my_lane_steps += br.context().lane_steps;
        handover.finish(idx + r, ids[r], std::move(obs[r]), std::move(br.context_mut().printf_out));
      }
    }
  };
  if (!cfg.cooperative) {
    // The caller runs blocks too; the helpers come from the pool kept
    // between launches (worker_pool.h).
    run_with_helpers(nthreads > 1 ? nthreads - 1 : 0, worker);
  } else {
    size_t started = 0;
    if (auto e = run_cooperative(cfg, nthreads, nblocks, worker, co, ran, &started); !e.empty())
      first.error = stop_error(
          FaultKind::Launch,
          fmt::format("a cooperative launch of {} blocks needs as many host threads; only {} "
                      "could be started ({})",
                      nblocks, started, e),
          {0, 0, 0});
  }
  handover.finish_all();  // blocks waiting behind quiet ones that finished last
  if (cfg.cooperative) {
    m.device().free(workspace);
    if (co.stalled_blocks() && !first.error)
      first.error = stall_error(cfg, co.stalled, nblocks, ran.load());
  }
  // Nothing runs now: storage of allocations kernels freed can go.
  m.device().memory().heap().release_freed();
  LaunchStatus st;
  st.error = first.error;
  st.warp_instructions = steps.load();
  if (env.native) native_work_done(native_state(p), p, st.warp_instructions);
  st.lane_instructions = lane_steps.load();
  st.blocks_run = ran.load();
  st.threads = nthreads;
  if (cfg.progress) cfg.progress(handover.handed_over(), nblocks, true);
  if (ko) ko->on_kernel_end(st.ok());
  return st;
}

}  // namespace smemlab::emu
