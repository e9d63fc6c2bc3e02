#include "check/global_owners.h"

#include <algorithm>

namespace smemlab::check::detail {

void GlobalOwners::merge(GlobalOwner& o, const GlobalTouch& t, uint64_t word, emu::Dim3 block,
                         uint64_t linear, const emu::KernelInfo& kernel,
                         std::vector<Finding>* found) const {
  bool fresh = o.touched == 0;
  if (fresh) o = GlobalOwner{linear, t.touched, t.written, t.after_atomic, t.instr, t.thread};
  if (fresh || o.block_linear == linear) return;
  uint8_t racing = static_cast<uint8_t>((o.written & t.touched) | (o.touched & t.written));
  if (racing && !o.after_atomic && !t.after_atomic) {
    emu::Dim3 o_block = block_of(kernel, o.block_linear);
    bool o_wrote = o.written & racing, t_wrote = t.written & racing;
    Finding f;
    f.kind = FindingKind::GlobalRace;
    f.severity = Severity::Warning;
    f.message = fmt::format(
        "global byte {:#x}: {} by block {} and {} by block {} with no ordering between blocks",
        word * 4 + static_cast<unsigned>(__builtin_ctz(racing)), o_wrote ? "written" : "read",
        dim_text(o_block), t_wrote ? "written" : "read", dim_text(block));
    f.involved.push_back(involved(o_wrote ? "write" : "read", kernel, o.instr, o_block, o.thread));
    f.involved.push_back(involved(t_wrote ? "write" : "read", kernel, t.instr, block, t.thread));
    f.where = f.involved.back().where;
    f.count = static_cast<uint64_t>(__builtin_popcount(racing));  // racing bytes
    found->push_back(std::move(f));
  }
  o.touched |= t.touched;
  if (t.written & ~o.written) {  // the later writer owns the word from now on
    o.block_linear = linear;
    o.after_atomic = t.after_atomic;
    o.instr = t.instr;
    o.thread = t.thread;
  }
  o.written |= t.written;
}

void GlobalOwners::merge_block(const GlobalRecords& r, emu::Dim3 block, uint64_t linear,
                               const emu::KernelInfo& kernel, std::vector<Finding>* found) {
  // Lines in address order (deterministic findings).
  r.global_lines.for_each_in_order([&](uint32_t slot, uint64_t line) {
    const GlobalLine& g = r.global_line[slot];
    if (!g.compact) {  // lines accessed by atomics only have no owners
      bool touched = false;
      for (unsigned w = 0; !touched && w < kLineWords; ++w)
        touched = r.global_touch[g.words + w].touched;
      if (!touched) return;
    }
    uint32_t l = owner_lines_.slot(line);
    if (l == owner_line_.size()) {
      OwnerLine& fresh = owner_line_.emplace_back();
      // (made once, not default-made and then overwritten)
      if (g.compact && g.instrs == kNoSecond && g.in_place == kNoSecond) {
        fresh = {linear, g.instr, kNoOwners, true, g.write, g.after_atomic, 0, g.thread};
        return;
      }
    }
    OwnerLine& ol = owner_line_[l];
    // A stream of reads of words that some block read whole and none wrote
    // changes nothing (see OwnerLine::read_only): the common case of input
    // data that several blocks read (a matmul's A and B tiles).
    const bool reads = g.compact && !g.write;
    const uint32_t words = reads ? present(g.thread) : 0;
    if (reads && (words & ~read_only(ol)) == 0) return;
    if (g.compact && g.instrs == kNoSecond && g.in_place == kNoSecond && ol.words == kNoOwners &&
        !ol.compact) {
      // A compact line of this block (one stream's reads or writes) on a
      // fresh line becomes the line's owner as is. Else the words are
      // merged one by one.
      ol = {linear, g.instr, kNoOwners, true, g.write, g.after_atomic, 0, g.thread};
      return;
    }
    uint32_t base = owner_words(ol);
    // The words the block touched (a compact line's present words; a
    // line of atomics only has none), in word order; a compact line's read
    // of a read-only word changes nothing. (Bit w of read_only changes
    // only at word w, so the mask taken before the loop stays exact.)
    uint32_t visit = g.words != kNoWords ? ~0u : g.compact ? present(g.thread) : 0;
    if (reads) visit &= words & ~ol.read_only;
    for (uint32_t m = visit; m; m &= m - 1) {
      const auto w = static_cast<unsigned>(__builtin_ctz(m));
      const GlobalTouch t = r.touch(g, w);
      if (!t.touched) continue;
      GlobalOwner& o = owners_[base + w];
      merge(o, t, line * kLineWords + w, block, linear, kernel, found);
      // Only merged words change, so read_only stays exact bit by bit.
      ol.read_only = (ol.read_only & ~(1u << w)) | uint32_t{o.touched == 0xf && o.written == 0}
                                                       << w;
    }
  });
}

uint32_t GlobalOwners::read_only(const OwnerLine& ol) {
  if (!ol.compact) return ol.read_only;
  return ol.write ? 0 : present(ol.thread);
}

uint32_t GlobalOwners::owner_words(OwnerLine& ol) {
  if (ol.words == kNoOwners) {
    ol.read_only = read_only(ol);
    ol.words = static_cast<uint32_t>(owners_.size());
    owners_.grow(kLineWords);
    for (unsigned w = 0; ol.compact && w < kLineWords; ++w)
      if (ol.thread[w] != kNoThread)
        owners_[ol.words + w] = {
            ol.block_linear, 0xf,      static_cast<uint8_t>(ol.write ? 0xf : 0),
            ol.after_atomic, ol.instr, ol.thread[w]};
    ol.compact = false;
  }
  return ol.words;
}

emu::Dim3 GlobalOwners::block_of(const emu::KernelInfo& kernel, uint64_t linear) {
  uint64_t x = std::max(kernel.grid.x, 1u), y = std::max(kernel.grid.y, 1u);
  return {static_cast<uint32_t>(linear % x), static_cast<uint32_t>(linear / x % y),
          static_cast<uint32_t>(linear / x / y)};
}

}  // namespace smemlab::check::detail
