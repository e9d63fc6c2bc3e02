#include "check/defects.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "bank/bank_map.h"

namespace smemlab::check {
namespace {

// Shadow state of one shared-memory byte.
struct Shadow {
  bool written = false, ever_written = false, read = false;
  bool w_atomic = false, r_atomic = false;
  uint32_t w_thread = 0, w_epoch = 0, w_wepoch = 0;
  uint32_t w_lanes = 0;  // lanes of the writing warp-instruction that wrote this byte
  uint64_t w_event = 0;
  const emu::InstrInfo* w_instr = nullptr;
  // Up to two distinct readers in the current epoch.
  uint32_t r_thread = 0, r_epoch = 0, r_wepoch = 0, r2_thread = 0, r2_wepoch = 0;
  bool r2 = false;
  const emu::InstrInfo *r_instr = nullptr, *r2_instr = nullptr;
};

std::string dim_text(emu::Dim3 d) { return fmt::format("({},{},{})", d.x, d.y, d.z); }

}  // namespace

class BlockDefects final : public emu::BlockObserver {
 public:
  BlockDefects(DefectCheck& owner, emu::Dim3 block) : owner_(owner), block_(block) {}

  void on_block_begin(emu::Dim3, emu::Dim3 dim, uint32_t shared_bytes) override {
    threads_ = static_cast<uint32_t>(dim.count());
    shadow_.assign(shared_bytes, Shadow{});
    uniform_.assign(shared_bytes / 4 + 1, true);
    wepoch_.assign((threads_ + 31) / 32, 0);
  }

  void on_memory(const emu::MemAccess& a) override {
    ++event_;
    if (a.mask == 0) return;
    for (unsigned lane = 0; lane < 32; ++lane) {
      if (!(a.mask >> lane & 1u)) continue;
      uint32_t thread = a.warp * 32 + lane;
      uint64_t addr = a.addr[lane];
      if (addr % a.width != 0) {
        report("misaligned", Severity::Error,
               fmt::format("{} {} of {} bytes at address {:#x} is not {}-byte aligned",
                           emu::space_name(a.space), role(a.op), a.width, addr, a.width),
               a.instr, thread, nullptr, 0, role(a.op));
        continue;
      }
      if (a.space == emu::Space::Shared)
        shared(a, thread, addr);
      else if (a.space == emu::Space::Local)
        local(a, thread, addr);
      else if (a.space == emu::Space::Global)
        global(a, thread, addr);
    }
  }

  void on_barrier(const emu::BarrierArrive& b) override {
    uint32_t missing = b.live_mask & ~b.mask;
    if (b.aligned && missing) {
      report("divergent-barrier", Severity::Error,
             fmt::format("barrier {} reached by lanes {} of warp {} but not by lanes {} "
                         "(bar.sync must be reached by all non-exited lanes of a warp)",
                         b.barrier, bank::lane_list(b.mask), b.warp, bank::lane_list(missing)),
             b.instr, b.warp * 32 + static_cast<uint32_t>(__builtin_ctz(b.mask | 1u << 31)),
             nullptr, 0, "barrier");
    }
    if (b.aligned && b.kind != emu::BarrierKind::Arrive && exited_ > 0 &&
        b.expected == threads_ - exited_) {
      report("divergent-barrier", Severity::Error,
             fmt::format("barrier {} waits for the {} threads still running: {} of the block's {} "
                         "threads exited before it (undefined for bar.sync)",
                         b.barrier, b.expected, exited_, threads_),
             b.instr, b.warp * 32, nullptr, 0, "barrier");
    }
    // Different warps at different barrier instructions (within one warp the
    // partial-warp finding above already says it).
    auto& waiting = waiting_[b.barrier];
    if (waiting.empty()) waiting.push_back({b.instr, b.warp});
    const auto& [first, first_warp] = waiting.front();
    if (b.aligned && first != b.instr && first_warp != b.warp)
      report("divergent-barrier", Severity::Error,
             fmt::format("warps {} and {} wait at barrier {} from different barrier instructions "
                         "(PTX lines {} and {})",
                         first_warp, b.warp, b.barrier, first->ptx_line, b.instr->ptx_line),
             b.instr, b.warp * 32, first, first_warp * 32, "barrier", "other barrier");
  }

  void on_barrier_release(const emu::BarrierRelease& r) override {
    flush_uninitialized();
    ++epoch_;
    waiting_[r.barrier].clear();
  }

  void on_warp_sync(const emu::WarpSync& w) override {
    ++event_;
    uint32_t missing = w.member_mask & ~w.mask;
    if (missing)
      report("divergent-barrier", Severity::Error,
             fmt::format("warp collective '{}' names lanes {} in its member mask, but only lanes "
                         "{} of warp {} execute it",
                         w.instr->text, bank::lane_list(w.member_mask), bank::lane_list(w.mask),
                         w.warp),
             w.instr, w.warp * 32 + static_cast<uint32_t>(__builtin_ctz(w.mask | 1u << 31)),
             nullptr, 0, "collective");
    // __syncwarp orders memory between its lanes; other collectives do not.
    if (w.instr->text.rfind("bar.warp.sync", 0) == 0 && w.warp < wepoch_.size()) ++wepoch_[w.warp];
  }

  void on_block_end(emu::Dim3) override { flush_uninitialized(); }

  void on_exit(const emu::Exit& e) override {
    exited_ += static_cast<uint32_t>(__builtin_popcount(e.mask));
  }

  // Global memory this block touched, per 4-byte word with byte masks (one
  // hash lookup per word, not per byte).
  struct GlobalTouch {
    uint8_t touched = 0, written = 0;       // bytes of the word
    bool after_atomic = false;              // the block had used a global atomic before
    const emu::InstrInfo* instr = nullptr;  // first write, else first access
    uint32_t thread = 0;
  };
  // In access order; finish_block sorts by word (stably) and merges.
  std::vector<std::pair<uint64_t, GlobalTouch>> global_touch;

 private:
  struct PendingRead {
    uint32_t thread;
    const emu::InstrInfo* instr;
    emu::MemOp op;
  };

  void flush_uninitialized() {
    for (const auto& [byte, r] : pending_uninit_)
      report("uninitialized", Severity::Error,
             fmt::format("shared read of byte {} that no thread of block {} has written", byte,
                         dim_text(block_)),
             r.instr, r.thread, nullptr, 0, role(r.op));
    pending_uninit_.clear();
  }

  static const char* role(emu::MemOp op) {
    switch (op) {
      case emu::MemOp::Load:
      case emu::MemOp::CpAsyncLoad:
        return "read";
      case emu::MemOp::Store:
      case emu::MemOp::CpAsyncStore:
        return "write";
      default:
        return "atomic";
    }
  }

  void report(const std::string& kind, Severity sev, const std::string& msg,
              const emu::InstrInfo* instr, uint32_t thread, const emu::InstrInfo* other = nullptr,
              uint32_t other_thread = 0, const char* role_a = "at",
              const char* role_b = "earlier") {
    Finding f;
    f.kind = kind;
    f.severity = sev;
    f.message = msg;
    if (other) f.involved.push_back(involved(role_b, owner_.kernel_, other, block_, other_thread));
    f.involved.push_back(involved(role_a, owner_.kernel_, instr, block_, thread));
    f.where = f.involved.back().where;
    findings.push_back(std::move(f));
  }

  void shared(const emu::MemAccess& a, uint32_t thread, uint64_t addr) {
    if (!in_shared_bounds(addr, a.width)) {
      report("out-of-bounds", Severity::Error,
             fmt::format("shared {} of {} bytes at offset {} is outside every shared variable{}",
                         role(a.op), a.width, addr, nearest(addr)),
             a.instr, thread, nullptr, 0, role(a.op));
      return;
    }
    // cp.async's shared half only writes (its global half only reads): it is
    // neither a read of the bytes it fills nor an atomic.
    bool reads = a.op != emu::MemOp::Store && a.op != emu::MemOp::CpAsyncStore;
    bool writes = a.op != emu::MemOp::Load && a.op != emu::MemOp::CpAsyncLoad;
    bool atomic = reads && writes;
    uint32_t warp = thread / 32;
    // At most one finding per lane access: the first hazard over its bytes.
    bool reported = false;
    auto conflict = [&](const char* what, const char* earlier, uint32_t other,
                        uint32_t other_wepoch, const emu::InstrInfo* other_instr, uint64_t byte) {
      if (reported) return;
      bool same_warp = other / 32 == warp;
      if (same_warp && other_wepoch != wepoch_[warp]) return;  // a __syncwarp() between
      reported = true;
      report(same_warp ? "warp-race" : "race", same_warp ? Severity::Warning : Severity::Error,
             fmt::format("{} hazard on shared byte {} between thread {} and thread {} of block {}: "
                         "no {} between the two accesses",
                         what, byte, other, thread, dim_text(block_),
                         same_warp ? "__syncwarp()" : "barrier"),
             a.instr, thread, other_instr, other, role(a.op), earlier);
    };
    auto visit = [&](uint64_t byte) {
      Shadow& s = shadow_[byte];
      // A lane that wrote the byte itself in the writing instruction (all
      // lanes storing one value) reads its own write, whichever lane won.
      bool self_wrote = s.w_thread / 32 == warp && (s.w_lanes >> (thread % 32) & 1u);
      bool other_wrote = s.written && s.w_epoch == epoch_ && s.w_thread != thread &&
                         s.w_event != event_ && !self_wrote && !(atomic && s.w_atomic);
      if (reads && !s.ever_written && !reported && !pending_uninit_.count(byte)) {
        // Held until the barrier epoch ends: if another thread writes the
        // byte in this epoch, the read merely ran ahead of it (a race,
        // reported as such) rather than reading memory nobody writes.
        pending_uninit_[byte] = {thread, a.instr, a.op};
        reported = true;
      }
      if (other_wrote)
        conflict(writes && !atomic ? "WAW" : "RAW", "write", s.w_thread, s.w_wepoch, s.w_instr,
                 byte);
      if (writes && s.read && s.r_epoch == epoch_ && !(atomic && s.r_atomic)) {
        if (s.r_thread != thread)
          conflict("WAR", "read", s.r_thread, s.r_wepoch, s.r_instr, byte);
        else if (s.r2)
          conflict("WAR", "read", s.r2_thread, s.r2_wepoch, s.r2_instr, byte);
      }
      if (writes) {
        if (auto p = pending_uninit_.find(byte);
            p != pending_uninit_.end() && p->second.thread != thread)
          pending_uninit_.erase(p);
        s.w_lanes = s.w_event == event_ && s.w_thread / 32 == warp ? s.w_lanes : 0;
        s.w_lanes |= 1u << (thread % 32);
        s.written = s.ever_written = true;
        s.w_atomic = atomic;
        s.w_thread = thread;
        s.w_epoch = epoch_;
        s.w_wepoch = wepoch_[warp];
        s.w_event = event_;
        s.w_instr = a.instr;
        s.read = s.r2 = false;
      }
      if (reads) {
        if (!s.read || s.r_epoch != epoch_) {
          s.read = true;
          s.r2 = false;
          s.r_atomic = atomic;
          s.r_thread = thread;
          s.r_epoch = epoch_;
          s.r_wepoch = wepoch_[warp];
          s.r_instr = a.instr;
        } else if (s.r_thread != thread && !s.r2) {
          s.r2 = true;
          s.r2_thread = thread;
          s.r2_wepoch = wepoch_[warp];
          s.r2_instr = a.instr;
        }
      }
    };
    // A word whose four bytes have always been accessed together keeps one
    // shadow record (its first byte's) for all four: one visit per word for
    // whole-word accesses. A sub-word access first gives each byte its copy.
    for (uint64_t byte = addr; byte < addr + a.width;) {
      uint64_t word = byte / 4;
      if (uniform_[word] && byte % 4 == 0 && byte + 4 <= addr + a.width) {
        visit(byte);
        byte += 4;
        continue;
      }
      if (uniform_[word]) {
        for (uint64_t k = 1; k < 4 && word * 4 + k < shadow_.size(); ++k)
          shadow_[word * 4 + k] = shadow_[word * 4];
        uniform_[word] = false;
      }
      visit(byte++);
    }
  }

  bool in_shared_bounds(uint64_t addr, unsigned width) const {
    const MemoryLayout& L = owner_.layout_;
    for (const SharedVar& v : L.shared)
      if (addr >= v.offset && addr + width <= uint64_t{v.offset} + v.size) return true;
    uint64_t dyn_end = uint64_t{L.dynamic_offset} + owner_.kernel_.dynamic_shared;
    return addr >= L.dynamic_offset && addr + width <= dyn_end && owner_.kernel_.dynamic_shared > 0;
  }

  std::string nearest(uint64_t addr) const {
    const MemoryLayout& L = owner_.layout_;
    for (const SharedVar& v : L.shared)
      if (addr >= v.offset && addr < uint64_t{v.offset} + v.size + 64)
        return fmt::format(" (byte {} past the start of '{}', which has {} bytes)", addr - v.offset,
                           v.name, v.size);
    if (addr >= L.dynamic_offset)
      return fmt::format(" (byte {} of the dynamic window, which has {} bytes at launch)",
                         addr - L.dynamic_offset, owner_.kernel_.dynamic_shared);
    return "";
  }

  void local(const emu::MemAccess& a, uint32_t thread, uint64_t addr) {
    if (addr + a.width > owner_.layout_.frame_bytes)
      report("out-of-bounds", Severity::Error,
             fmt::format("local {} of {} bytes at frame offset {} is outside the thread's {}-byte "
                         "frame",
                         role(a.op), a.width, addr, owner_.layout_.frame_bytes),
             a.instr, thread, nullptr, 0, role(a.op));
  }

  void global(const emu::MemAccess& a, uint32_t thread, uint64_t addr) {
    if (a.op != emu::MemOp::Load && a.op != emu::MemOp::Store &&
        a.op != emu::MemOp::CpAsyncLoad) {
      // Atomics don't race; once a block has used one, its later accesses
      // are taken to follow the kernel's own inter-block protocol
      // (last-block-done, tickets) and are not reported.
      atomic_seen_ = true;
      return;
    }
    bool write = a.op == emu::MemOp::Store;  // cp.async reads global, writes shared
    for (uint64_t word = addr / 4; word <= (addr + a.width - 1) / 4; ++word) {
      uint64_t lo = std::max(addr, word * 4), hi = std::min(addr + a.width, word * 4 + 4);
      uint8_t bytes = static_cast<uint8_t>(((1u << (hi - lo)) - 1u) << (lo - word * 4));
      GlobalTouch t;
      t.touched = bytes;
      t.written = write ? bytes : 0;
      t.after_atomic = atomic_seen_;
      t.instr = a.instr;
      t.thread = thread;
      global_touch.emplace_back(word, t);
    }
  }

 public:
  std::vector<Finding> findings;

 private:
  DefectCheck& owner_;
  emu::Dim3 block_;
  uint32_t threads_ = 0, exited_ = 0, epoch_ = 0;
  bool atomic_seen_ = false;
  uint64_t event_ = 0;
  std::vector<Shadow> shadow_;
  std::vector<bool> uniform_;  // per 4-byte word: shadow_[4w] stands for all its bytes
  std::vector<uint32_t> wepoch_;
  // Per barrier id: the first waiter of the current epoch (instruction, warp).
  std::map<uint32_t, std::vector<std::pair<const emu::InstrInfo*, uint32_t>>> waiting_;
  std::map<uint64_t, PendingRead> pending_uninit_;  // byte -> first read of it, unwritten
};

std::unique_ptr<emu::BlockObserver> DefectCheck::make_block_observer(emu::Dim3 block) {
  return std::make_unique<BlockDefects>(*this, block);
}

void DefectCheck::add(Finding f) {
  std::string key = f.kind;
  for (const Involved& v : f.involved) key += fmt::format("|{}:{}:{}", v.ptx_line, v.role, v.instr);
  if (f.involved.empty()) key += "|" + f.message;
  auto it = index_.find(key);
  if (it != index_.end()) {
    findings_[it->second].count += f.count;
    return;
  }
  index_[key] = findings_.size();
  findings_.push_back(std::move(f));
}

void DefectCheck::finish_block(emu::Dim3 block, std::unique_ptr<emu::BlockObserver> observer) {
  auto* b = static_cast<BlockDefects*>(observer.get());
  for (Finding& f : b->findings) add(std::move(f));
  uint64_t linear =
      block.x + uint64_t{kernel_.grid.x} * (block.y + uint64_t{kernel_.grid.y} * block.z);
  // Words in address order (deterministic findings); a word's accesses in
  // program order merge into one record: bytes touched and written, and the
  // first write (else the first access) as the instruction to show.
  auto& all = b->global_touch;
  std::stable_sort(all.begin(), all.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::pair<uint64_t, BlockDefects::GlobalTouch>> touches;
  for (const auto& [word, t] : all) {
    if (touches.empty() || touches.back().first != word) {
      touches.emplace_back(word, t);
      continue;
    }
    auto& m = touches.back().second;
    if (t.written && !m.written) {
      m.after_atomic = t.after_atomic;
      m.instr = t.instr;
      m.thread = t.thread;
    }
    m.touched |= t.touched;
    m.written |= t.written;
  }
  for (const auto& [word, t] : touches) {
    auto [it, fresh] = global_.try_emplace(
        word, GlobalOwner{linear, block, t.touched, t.written, t.after_atomic, t.instr, t.thread});
    GlobalOwner& o = it->second;
    if (fresh || o.block_linear == linear) continue;
    uint8_t racing = static_cast<uint8_t>((o.written & t.touched) | (o.touched & t.written));
    if (racing && !o.after_atomic && !t.after_atomic) {
      bool o_wrote = o.written & racing, t_wrote = t.written & racing;
      Finding f;
      f.kind = "global-race";
      f.severity = Severity::Warning;
      f.message = fmt::format(
          "global byte {:#x}: {} by block {} and {} by block {} with no ordering between blocks",
          word * 4 + static_cast<unsigned>(__builtin_ctz(racing)), o_wrote ? "written" : "read",
          dim_text(o.block), t_wrote ? "written" : "read", dim_text(block));
      f.involved.push_back(
          involved(o_wrote ? "write" : "read", kernel_, o.instr, o.block, o.thread));
      f.involved.push_back(involved(t_wrote ? "write" : "read", kernel_, t.instr, block, t.thread));
      f.where = f.involved.back().where;
      f.count = static_cast<uint64_t>(__builtin_popcount(racing));  // racing bytes
      add(std::move(f));
    }
    o.touched |= t.touched;
    if (t.written & ~o.written) {  // the later writer owns the word from now on
      o.block_linear = linear;
      o.block = block;
      o.after_atomic = t.after_atomic;
      o.instr = t.instr;
      o.thread = t.thread;
    }
    o.written |= t.written;
  }
}

void DefectCheck::on_kernel_end(bool) {}

}  // namespace smemlab::check
