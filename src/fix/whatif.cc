#include "fix/whatif.h"

#include <algorithm>
#include <cstring>

namespace smemlab::fix {
namespace {

bool touches(const bank::Request& r, const Span& s) {
  for (unsigned l = 0; l < 32; ++l)
    if ((r.mask >> l & 1) && s.contains(r.addr[l])) return true;
  return false;
}

std::string key_of(const bank::Request& r, uint32_t pc) {
  std::string k(sizeof pc + sizeof r.op + sizeof r.width + sizeof r.mask + sizeof r.addr, '\0');
  char* p = k.data();
  for (auto [src, n] : {std::pair<const void*, size_t>{&pc, sizeof pc},
                        {&r.op, sizeof r.op},
                        {&r.width, sizeof r.width},
                        {&r.mask, sizeof r.mask},
                        {r.addr.data(), sizeof r.addr}}) {
    std::memcpy(p, src, n);
    p += n;
  }
  return k;
}

class BlockRecorder final : public emu::BlockObserver {
 public:
  void on_memory(const emu::MemAccess& a) override {
    if (a.space != emu::Space::Shared || a.mask == 0) return;
    // mbarrier operations are SYNCS instructions, not ld/st/atom requests
    // (as in check::BankAnalysis): no layout of theirs to search.
    if (a.mbarrier) return;
    if (a.op != emu::MemOp::Load && a.op != emu::MemOp::Store && a.op != emu::MemOp::Atomic &&
        a.op != emu::MemOp::Reduction)
      return;  // (cp.async, the async proxy: other rules)
    SharedAccess s;
    s.request.op = a.op == emu::MemOp::Load    ? bank::Op::Load
                   : a.op == emu::MemOp::Store ? bank::Op::Store
                                               : bank::Op::Atomic;
    s.request.width = a.width;
    s.request.mask = a.mask;
    for (unsigned l = 0; l < 32; ++l) s.request.addr[l] = (a.mask >> l & 1) ? a.addr[l] : 0;
    s.pc = a.instr->pc;
    s.instr = a.instr;
    s.count = 1;
    auto [it, fresh] = index.try_emplace(key_of(s.request, s.pc), accesses.size());
    if (fresh)
      accesses.push_back(s);
    else
      ++accesses[it->second].count;
  }
  std::map<std::string, size_t> index;
  std::vector<SharedAccess> accesses;
};

}  // namespace

std::unique_ptr<emu::BlockObserver> AccessRecorder::make_block_observer(emu::Dim3) {
  return std::make_unique<BlockRecorder>();
}

void AccessRecorder::finish_block(emu::Dim3, std::unique_ptr<emu::BlockObserver> observer) {
  auto* b = static_cast<BlockRecorder*>(observer.get());
  for (const auto& [key, i] : b->index) {
    auto [it, fresh] = index_.try_emplace(key, accesses_.size());
    if (fresh)
      accesses_.push_back(b->accesses[i]);
    else
      accesses_[it->second].count += b->accesses[i].count;
  }
}

Cost cost_of(const std::vector<SharedAccess>& accesses, const Span& span, const Layout* layout,
             const bank::Model& model) {
  Cost c;
  for (const SharedAccess& a : accesses) {
    if (!touches(a.request, span)) continue;
    bank::Request r = a.request;
    if (layout)
      for (unsigned l = 0; l < 32; ++l)
        if ((r.mask >> l & 1) && span.contains(r.addr[l]))
          r.addr[l] = span.base + layout->remap(r.addr[l] - span.base);
    c.requests += a.count;
    try {
      bank::Result res = model.evaluate(r);
      c.wavefronts += res.wavefronts * a.count;
      c.ideal += res.ideal * a.count;
    } catch (const bank::Error& e) {
      // Atomics before sm_70 are not modelled; a misaligned remapped access
      // makes the layout impossible for this kernel as written.
      if (r.op == bank::Op::Atomic) {
        c.requests -= a.count;
        continue;
      }
      c.valid = false;
      c.error = e.what();
      return c;
    }
  }
  return c;
}

unsigned widest_access(const std::vector<SharedAccess>& accesses, const Span& span) {
  unsigned w = 0;
  for (const auto& a : accesses)
    if (touches(a.request, span)) w = std::max(w, a.request.width);
  return w;
}

unsigned narrowest_access(const std::vector<SharedAccess>& accesses, const Span& span) {
  unsigned w = 0;
  for (const auto& a : accesses)
    if (touches(a.request, span)) w = w ? std::min(w, a.request.width) : a.request.width;
  return w;
}

}  // namespace smemlab::fix
