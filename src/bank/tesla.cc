// Compute capability 1.x (sm_10 ... sm_13): 16 banks of 4 bytes; a warp's
// request is two half-warp requests; 64- and 128-bit accesses are split into
// two or four 32-bit requests. CUDA Programming Guide 2.x-4.x: each step
// picks one broadcast word and serves every lane on it, plus one lane
// ("one address") for each other bank with lanes left. Which word and which
// lanes are picked is unspecified, so the model reports both bounds, found
// by exhaustive search over those choices: wavefronts = the fewest steps
// (best choices), worst_wavefronts = the most (worst choices). The passes
// shown are one sequence of best choices.
#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>

#include "bank/models.h"

namespace smemlab::bank::detail {
namespace {

constexpr unsigned kBanks = 16;

struct Item {
  unsigned lane;
  uint64_t word;
  unsigned bank() const { return static_cast<unsigned>(word % kBanks); }
};

// What matters for the step count: per bank, how many lanes share each of
// its words. Canonical form: each bank's counts sorted, banks sorted.
// uint16_t, not uint8_t: GCC 12 warns (-Wstringop-overread) on the memcmp
// path std::sort takes for byte vectors.
using Shape = std::vector<std::vector<uint16_t>>;

Shape shape_of(const std::vector<Item>& items) {
  std::map<unsigned, std::map<uint64_t, uint8_t>> banks;
  for (const Item& it : items) ++banks[it.bank()][it.word];
  Shape s;
  for (const auto& [b, words] : banks) {
    std::vector<uint16_t> counts;
    for (const auto& [w, c] : words) counts.push_back(c);
    std::sort(counts.begin(), counts.end());
    s.push_back(std::move(counts));
  }
  std::sort(s.begin(), s.end());
  return s;
}

std::string key_of(const Shape& s) {
  std::string k;
  for (const auto& bank : s) {
    for (uint16_t c : bank) k.push_back(static_cast<char>(c));  // counts <= 16
    k.push_back('\xff');
  }
  return k;
}

struct Bounds {
  unsigned best, worst;
};

// Exhaustive search with memoization; shapes repeat across requests, so the
// table is kept per thread.
Bounds solve(const Shape& s) {
  if (s.empty()) return {0, 0};
  thread_local std::unordered_map<std::string, Bounds> memo;
  std::string key = key_of(s);
  if (auto it = memo.find(key); it != memo.end()) return it->second;

  Bounds out{~0u, 0};
  for (size_t b = 0; b < s.size(); ++b) {
    for (size_t ci = 0; ci < s[b].size(); ++ci) {
      if (ci > 0 && s[b][ci] == s[b][ci - 1]) continue;  // same count, same outcome
      // Options of every other bank: which distinct count loses one lane.
      std::vector<size_t> others;
      for (size_t j = 0; j < s.size(); ++j)
        if (j != b) others.push_back(j);
      std::vector<std::vector<size_t>> options(others.size());
      for (size_t o = 0; o < others.size(); ++o)
        for (size_t k = 0; k < s[others[o]].size(); ++k)
          if (k == 0 || s[others[o]][k] != s[others[o]][k - 1]) options[o].push_back(k);
      std::vector<size_t> pick(others.size(), 0);
      while (true) {
        Shape next;
        std::vector<uint16_t> mine = s[b];
        mine.erase(mine.begin() + static_cast<long>(ci));
        if (!mine.empty()) next.push_back(mine);
        for (size_t o = 0; o < others.size(); ++o) {
          std::vector<uint16_t> counts = s[others[o]];
          if (--counts[options[o][pick[o]]] == 0)
            counts.erase(counts.begin() + static_cast<long>(options[o][pick[o]]));
          std::sort(counts.begin(), counts.end());
          if (!counts.empty()) next.push_back(std::move(counts));
        }
        std::sort(next.begin(), next.end());
        Bounds child = solve(next);
        out.best = std::min(out.best, child.best + 1);
        out.worst = std::max(out.worst, child.worst + 1);
        size_t o = 0;
        while (o < pick.size() && ++pick[o] == options[o].size()) pick[o++] = 0;
        if (o == pick.size()) break;
      }
    }
  }
  memo.emplace(std::move(key), out);
  return out;
}

// One step of a best sequence: the concrete broadcast word and per-bank
// lanes whose remaining shape still finishes in `best - 1` steps.
std::vector<Item> best_step(const std::vector<Item>& left, unsigned best, Wavefront& wf) {
  std::map<unsigned, std::vector<uint64_t>> words;  // bank -> distinct words
  for (const Item& it : left) {
    auto& w = words[it.bank()];
    if (std::find(w.begin(), w.end(), it.word) == w.end()) w.push_back(it.word);
  }
  for (const auto& [bb, bwords] : words) {
    for (uint64_t bcast : bwords) {
      std::vector<std::pair<unsigned, const std::vector<uint64_t>*>> others;
      for (const auto& entry : words)
        if (entry.first != bb) others.push_back({entry.first, &entry.second});
      std::vector<size_t> pick(others.size(), 0);
      while (true) {
        std::vector<Item> rest;
        std::vector<bool> used(others.size(), false);
        std::vector<Item> served;
        for (const Item& it : left) {
          bool take = it.word == bcast;
          for (size_t o = 0; o < others.size() && !take; ++o)
            if (!used[o] && others[o].first == it.bank() && (*others[o].second)[pick[o]] == it.word)
              take = used[o] = true;
          (take ? served : rest).push_back(it);
        }
        if (solve(shape_of(rest)).best + 1 == best) {
          for (const Item& it : served) {
            auto s = std::find_if(wf.slots.begin(), wf.slots.end(),
                                  [&](const Slot& x) { return x.word == it.word; });
            if (s == wf.slots.end()) {
              wf.slots.push_back({it.bank(), it.word, 0});
              s = wf.slots.end() - 1;
            }
            s->lanes |= 1u << it.lane;
          }
          std::sort(wf.slots.begin(), wf.slots.end(),
                    [](const Slot& a, const Slot& c) { return a.bank < c.bank; });
          return rest;
        }
        size_t o = 0;
        while (o < pick.size() && ++pick[o] == others[o].second->size()) pick[o++] = 0;
        if (o == pick.size()) break;
      }
    }
  }
  throw Error("internal error: no step reaches the CC 1.x best case");
}

class TeslaModel final : public Model {
 public:
  explicit TeslaModel(unsigned sm) : sm_(sm) {}
  std::string name() const override { return "sm_" + std::to_string(sm_); }
  std::string description() const override {
    return name() +
           ": CC 1.x, 16 banks x 4 B, half-warps, one broadcast word per step "
           "(best/worst over the unspecified choices; CUDA guide 2.x rules; not "
           "measured here)";
  }
  unsigned banks() const override { return kBanks; }
  unsigned bank_bytes() const override { return 4; }
  // A shift by whole 4-byte words rotates the banks (same distinct words
  // per bank); a multiple of the width keeps the lanes aligned.
  uint64_t period(unsigned width) const override { return std::max(4u, width); }

  Result evaluate(const Request& r) const override {
    validate(r);
    if (r.op == Op::Atomic)
      throw Error(name() + ": shared-memory atomics are not modelled before sm_70");
    Result res;
    unsigned parts = r.width <= 4 ? 1 : r.width / 4;
    unsigned group = 0;
    for (unsigned half = 0; half < 2; ++half) {
      uint32_t lanes = lanes_in(r.mask, 16 * half, 16);
      if (!lanes) continue;
      for (unsigned part = 0; part < parts; ++part, ++group) {
        std::vector<Item> left;
        for (unsigned lane = 0; lane < 32; ++lane)
          if (lanes >> lane & 1u) left.push_back({lane, r.addr[lane] / 4 + part});
        Bounds b = solve(shape_of(left));
        res.wavefronts += b.best;
        res.worst_wavefronts += b.worst;
        res.ways = std::max(res.ways, b.best);
        for (unsigned steps = b.best; steps > 0; --steps) {
          Wavefront wf{group, {}};
          left = best_step(left, steps, wf);
          res.passes.push_back(std::move(wf));
        }
      }
    }
    res.ideal = group;
    res.bank_conflicts = res.wavefronts - res.ideal;
    return res;
  }

 private:
  unsigned sm_;
};

}  // namespace

std::unique_ptr<Model> make_tesla(unsigned sm) { return std::make_unique<TeslaModel>(sm); }

}  // namespace smemlab::bank::detail
