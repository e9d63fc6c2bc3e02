#include "runtime/fix_hooks.h"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "fix/access_log.h"
#include "runtime/driver.h"
#include "session/program_protocol.h"

namespace smemlab::runtime {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// The module's .global variables: name and size.
std::vector<std::pair<std::string, uint64_t>> device_variables(const emu::Module& m) {
  std::vector<std::pair<std::string, uint64_t>> out;
  for (const auto& g : m.ptx().globals)
    if (g.space == ptx::StateSpace::Global)
      out.emplace_back(g.name, static_cast<uint64_t>(std::max<int64_t>(g.size_bytes(), 1)));
  return out;
}

}  // namespace

struct FixHooks::State {
  std::string record, snapshot, ptx;
  int64_t shared = -1;
  int tma_swizzle = -1;
  std::unique_ptr<fix::AccessRecorder> recorder;
  std::unique_ptr<emu::Module> override_module;
  std::map<const Module*, uint32_t> module_serials;
  // Bytes of the program module's variables copied into the override's
  // before the launch (to copy back only what the launch changed).
  std::vector<std::pair<std::string, std::vector<uint8_t>>> copied_in;
};

FixHooks& FixHooks::get() {
  static FixHooks* h = new FixHooks();  // never destroyed, as the Driver
  return *h;
}

FixHooks::FixHooks() : s_(std::make_unique<State>()) {
  s_->record = env(session::protocol::kFixRecord);
  s_->snapshot = env(session::protocol::kFixSnapshot);
  s_->ptx = env(session::protocol::kFixPtx);
  std::string shared = env(session::protocol::kFixShared);
  if (!shared.empty()) s_->shared = std::strtoll(shared.c_str(), nullptr, 10);
  std::string sw = env(session::protocol::kFixTmaSwizzle);
  if (!sw.empty()) s_->tma_swizzle = static_cast<int>(std::strtol(sw.c_str(), nullptr, 10));
}

int FixHooks::tensor_map_swizzle(int sw) const {
  return s_->tma_swizzle >= 0 ? s_->tma_swizzle : sw;
}

emu::Module& FixHooks::before(Driver& d, Module& m, const std::string& kernel,
                              emu::LaunchConfig& cfg, emu::KernelObserver** observer) {
  *observer = nullptr;
  if (!s_->record.empty()) {
    s_->recorder = std::make_unique<fix::AccessRecorder>();
    *observer = s_->recorder.get();
  }
  if (s_->shared >= 0) {
    // The proposed layout's size, checked against the device's maximum as
    // before the limit moved into the launch: whether the program must
    // then opt in with cudaFuncSetAttribute is not proven by a fix run.
    cfg.dynamic_shared = static_cast<uint32_t>(s_->shared);
    cfg.shared_limit.bytes = cfg.shared_limit.optin;
  }
  if (s_->ptx.empty()) return *m.emu;
  if (!s_->override_module) {
    std::ifstream in(s_->ptx);
    if (!in) throw std::runtime_error(fmt::format("SMEMLAB_FIX_PTX: cannot read {}", s_->ptx));
    std::stringstream text;
    text << in.rdbuf();
    try {
      s_->override_module = emu::Module::load_text(d.device, text.str(), s_->ptx);
    } catch (const std::exception& e) {
      throw std::runtime_error(fmt::format("the rebuilt kernel's PTX: {}", e.what()));
    }
  }
  emu::Module& o = *s_->override_module;
  try {
    o.kernel(kernel);
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("the rebuilt PTX {}: {}", s_->ptx, e.what()));
  }
  // The program module's variables are the state the rest of the program
  // sees: the override starts from them.
  s_->copied_in.clear();
  for (const auto& [name, size] : device_variables(o)) {
    uint64_t from = m.emu->global_address(name);
    if (!from) continue;
    std::vector<uint8_t> bytes(size);
    d.device.copy_from(bytes.data(), from, size);
    o.set_symbol(name, bytes.data(), size);
    s_->copied_in.emplace_back(name, std::move(bytes));
  }
  for (const auto& c : m.consts) {
    try {
      o.set_symbol(c.symbol, c.data, c.size);
    } catch (const std::out_of_range&) {
      // A __constant__ variable the rebuilt kernel does not use.
    }
  }
  return o;
}

void FixHooks::after(Driver& d, Module& m, uint64_t index, const std::string& kernel,
                     const emu::LaunchConfig& cfg) {
  if (s_->override_module) {
    emu::Module& o = *s_->override_module;
    for (auto& [name, before] : s_->copied_in) {
      std::vector<uint8_t> now(before.size());
      d.device.copy_from(now.data(), o.global_address(name), now.size());
      uint64_t to = m.emu->global_address(name);
      for (size_t i = 0; i < now.size(); ++i)
        if (now[i] != before[i]) d.device.copy_to(to + i, &now[i], 1);
    }
    s_->copied_in.clear();
  }
  if (s_->recorder) {
    fix::LoggedLaunch l;
    l.index = index;
    l.kernel = kernel;
    l.module = m.name;
    auto [it, fresh] =
        s_->module_serials.try_emplace(&m, static_cast<uint32_t>(s_->module_serials.size()));
    l.module_serial = it->second;
    if (fresh)
      std::ofstream(fmt::format("{}.{}.ptx", s_->record, l.module_serial), std::ios::binary)
          << m.ptx_text;
    l.ptx_sm = m.ptx_sm;
    l.grid = cfg.grid;
    l.block = cfg.block;
    l.dynamic_shared = cfg.dynamic_shared;
    l.accesses = s_->recorder->accesses();
    for (auto& a : l.accesses) a.instr = nullptr;
    fix::append_launch(s_->record, l);
    s_->recorder.reset();
  }
  if (!s_->snapshot.empty()) {
    fix::Snapshot snap;
    snap.launch = index;
    // Allocations in the order the program made them: addresses differ
    // between runs, the order does not. Registered host memory has no such
    // number (the program's own pages): it is compared through the
    // program's output only.
    std::vector<const Allocation*> live;
    for (const auto& [base, a] : d.allocs)
      if (!a.internal && a.kind != MemKind::Registered) live.push_back(&a);
    std::sort(live.begin(), live.end(),
              [](const Allocation* x, const Allocation* y) { return x->serial < y->serial; });
    for (const Allocation* a : live)
      snap.regions.push_back(fix::hash_region(fmt::format("allocation #{}", a->serial),
                                              reinterpret_cast<const uint8_t*>(a->base), a->size));
    for (const auto& [name, size] : device_variables(*m.emu)) {
      std::vector<uint8_t> bytes(size);
      d.device.copy_from(bytes.data(), m.emu->global_address(name), size);
      snap.regions.push_back(
          fix::hash_region("__device__ variable " + demangle(name), bytes.data(), size));
    }
    fix::append_snapshot(s_->snapshot, snap);
  }
}

}  // namespace smemlab::runtime
