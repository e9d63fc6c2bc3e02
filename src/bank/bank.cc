#include "bank/bank.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <map>
#include <string>
#include <utility>

#include "bank/models.h"

namespace smemlab::bank {

std::string_view op_name(Op op) {
  switch (op) {
    case Op::Load:
      return "load";
    case Op::Store:
      return "store";
    case Op::Atomic:
      return "atomic";
  }
  return "?";
}

Op parse_op(std::string_view text) {
  if (text == "load" || text == "ld") return Op::Load;
  if (text == "store" || text == "st") return Op::Store;
  if (text == "atomic" || text == "atom") return Op::Atomic;
  throw Error("unknown operation '" + std::string(text) + "' (expected load, store or atomic)");
}

void validate(const Request& r) {
  if (r.width != 1 && r.width != 2 && r.width != 4 && r.width != 8 && r.width != 16)
    throw Error("unsupported access width " + std::to_string(r.width) +
                " bytes (expected 1, 2, 4, 8 or 16)");
  if (r.op == Op::Atomic && r.width != 4 && r.width != 8)
    throw Error("unsupported atomic width " + std::to_string(r.width) +
                " bytes (shared-memory atomics are 4 or 8 bytes)");
  for (unsigned lane = 0; lane < 32; ++lane) {
    if (!(r.mask >> lane & 1u)) continue;
    if (r.addr[lane] % r.width != 0)
      throw Error("lane " + std::to_string(lane) + ": address " + std::to_string(r.addr[lane]) +
                  " is not aligned to the access width of " + std::to_string(r.width) + " bytes");
  }
}

Cost cost_of(const Result& r) {
  return {r.wavefronts, r.ideal, r.bank_conflicts, r.ways, r.worst_wavefronts};
}

Cost Model::cost(const Request& request) const { return cost_of(evaluate(request)); }

namespace detail {

size_t add_touches(const Request& r, uint32_t lanes, unsigned word_bytes, unsigned banks,
                   Touch* out) {
  if (r.width > 16) throw Error("internal error: width " + std::to_string(r.width));
  Touch* at = out;
  // Every model has power-of-two banks and words: shifts and masks, not a
  // 64-bit division per word.
  if (std::has_single_bit(word_bytes) && std::has_single_bit(banks)) {
    const int shift = std::countr_zero(word_bytes);
    const uint64_t bank_mask = banks - 1;
    for (uint32_t left = lanes; left; left &= left - 1) {
      const unsigned lane = static_cast<unsigned>(std::countr_zero(left));
      const uint64_t first = r.addr[lane] >> shift, last = (r.addr[lane] + r.width - 1) >> shift;
      for (uint64_t w = first; w <= last; ++w)
        *at++ = {lane, static_cast<unsigned>(w & bank_mask), w, w};
    }
    return static_cast<size_t>(at - out);
  }
  for (unsigned lane = 0; lane < 32; ++lane) {
    if (!(lanes >> lane & 1u)) continue;
    uint64_t first = r.addr[lane] / word_bytes;
    uint64_t last = (r.addr[lane] + r.width - 1) / word_bytes;
    for (uint64_t w = first; w <= last; ++w) *at++ = {lane, static_cast<unsigned>(w % banks), w, w};
  }
  return static_cast<size_t>(at - out);
}

namespace {

// serve_group where every bank touched holds one key in one word (no
// conflict; lanes on the same word share it): one pass, a slot per bank, in
// bank order, with no chains or sorting. False, with nothing appended, for
// any other group.
bool serve_conflict_free(std::span<const Touch> touches, unsigned group,
                         std::vector<Wavefront>& passes) {
  constexpr unsigned kMaxBanks = 64;
  uint64_t used = 0;  // bit b: bank b is touched
  uint64_t word[kMaxBanks], key[kMaxBanks];
  uint32_t lanes[kMaxBanks];
  for (const Touch& t : touches) {
    if (t.bank >= kMaxBanks) return false;  // serve_group reports it
    const uint64_t bit = uint64_t{1} << t.bank;
    if (!(used & bit)) {
      used |= bit;
      word[t.bank] = t.word;
      key[t.bank] = t.key;
      lanes[t.bank] = 1u << t.lane;
    } else if (word[t.bank] == t.word && key[t.bank] == t.key) {
      lanes[t.bank] |= 1u << t.lane;
    } else {
      return false;
    }
  }
  if (!used) return false;
  Wavefront& pass = passes.emplace_back();
  pass.group = group;
  pass.slots.reserve(static_cast<size_t>(std::popcount(used)));
  for (uint64_t left = used; left; left &= left - 1) {
    const unsigned b = static_cast<unsigned>(std::countr_zero(left));
    pass.slots.push_back({b, word[b], lanes[b]});
  }
  return true;
}

}  // namespace

unsigned serve_group(std::span<const Touch> touches, unsigned group,
                     std::vector<Wavefront>& passes) {
  // The k-th distinct key of a bank (in lane order) is served by pass k.
  // This runs for every request whose passes are wanted (a bank map, the
  // costliest request of an instruction), so it allocates once per pass:
  // a chain of the distinct keys per bank finds a touch's pass, then each
  // pass gets its slots in bank order.
  // Most requests are served in one pass, with no conflict to sort out.
  if (serve_conflict_free(touches, group, passes)) return 1;
  constexpr unsigned kMaxBanks = 64, kNone = ~0u, kSmall = 128;
  const size_t n = touches.size();
  unsigned head[kMaxBanks];  // a bank's chain of first touches of its keys
  std::fill(std::begin(head), std::end(head), kNone);
  unsigned distinct[kMaxBanks] = {};
  unsigned small[5 * kSmall];
  std::vector<unsigned> large;
  unsigned* pass = small;  // by touch
  if (n > kSmall) {
    large.resize(5 * n);
    pass = large.data();
  }
  unsigned* next = pass + n;
  unsigned* order = pass + 2 * n;
  unsigned* rank = pass + 3 * n;   // (pass, bank) as one number, for the sort
  unsigned* lanes = pass + 4 * n;  // by a key's first touch: the lanes of the key
  unsigned* start = rank;          // by pass: its slots (distinct keys) when one_word
  uint64_t banks = 0;              // bit b: bank b is touched
  bool one_word = true;            // each key of a bank is a single word
  unsigned cost = 0;
  for (size_t i = 0; i < n; ++i) {
    const Touch& t = touches[i];
    if (t.bank >= kMaxBanks) throw Error("internal error: bank " + std::to_string(t.bank));
    unsigned j = head[t.bank];
    while (j != kNone && touches[j].key != t.key) j = next[j];
    if (j != kNone) {
      pass[i] = pass[j];
      lanes[j] |= 1u << t.lane;
      one_word = one_word && touches[j].word == t.word;
    } else {
      pass[i] = distinct[t.bank]++;
      if (pass[i] == cost) start[cost] = 0;  // a pass no bank reached before
      ++start[pass[i]];
      next[i] = head[t.bank];
      head[t.bank] = static_cast<unsigned>(i);
      lanes[i] = 1u << t.lane;
      banks |= uint64_t{1} << t.bank;
    }
    cost = std::max(cost, pass[i] + 1);
  }

  const size_t base = passes.size();
  passes.resize(base + cost);
  for (unsigned p = 0; p < cost; ++p) passes[base + p].group = group;
  if (one_word) {
    // The common case (only a key that is Kepler's 256-byte row can span
    // two words of a bank): a pass holds one slot per bank, the key's first
    // touch with all its lanes. Walking the banks in ascending order (each
    // chain holds one key per pass) puts every pass's slots in bank order
    // without a sort.
    for (unsigned p = 0, at = 0; p < cost; ++p) {  // counts -> where each pass begins
      passes[base + p].slots.reserve(start[p]);
      at += std::exchange(start[p], at);
    }
    for (uint64_t left = banks; left; left &= left - 1)
      for (unsigned j = head[std::countr_zero(left)]; j != kNone; j = next[j])
        order[start[pass[j]]++] = j;
    for (unsigned p = 0, k = 0; p < cost; ++p)
      for (auto& out = passes[base + p].slots; k < start[p]; ++k) {
        const Touch& t = touches[order[k]];
        out.push_back({t.bank, t.word, lanes[order[k]]});
      }
    return cost;
  }

  unsigned descents = 0;  // 0: lane order is (pass, bank) order
  for (size_t i = 0; i < n; ++i) {
    order[i] = static_cast<unsigned>(i);
    rank[i] = pass[i] * kMaxBanks + touches[i].bank;
    descents += i > 0 && rank[i] < rank[i - 1];
  }
  auto before = [&](unsigned a, unsigned b) {
    return rank[a] != rank[b] ? rank[a] < rank[b] : touches[a].word < touches[b].word;
  };
  // A key spans several words of a bank (Kepler's 4-byte mode: a 256-byte
  // row): the touches are sorted by (pass, bank, word). Lane order is
  // mostly this order already (ascending banks, or one bank's passes in
  // turn): insertion sort does it in about n compares. Other orders
  // (descending banks: a reversed array; a permutation) would cost it up to
  // n^2/2 moves, so they are first put in (pass, bank) order by two stable
  // counting sorts, which leave only words within one bank and pass for the
  // insertion sort.
  if (descents && n <= kSmall) {
    unsigned count[kSmall + 1];     // by bank, then by pass (cost <= n passes)
    unsigned* sorted_order = next;  // free until the slots are marked below
    auto counting_sort = [&](auto key_of, unsigned keys) {
      std::fill(count, count + keys + 1, 0u);
      for (size_t i = 0; i < n; ++i) ++count[key_of(order[i]) + 1];
      for (unsigned k = 1; k <= keys; ++k) count[k] += count[k - 1];
      for (size_t i = 0; i < n; ++i) sorted_order[count[key_of(order[i])]++] = order[i];
      std::copy(sorted_order, sorted_order + n, order);
    };
    counting_sort([&](unsigned i) { return touches[i].bank; }, kMaxBanks);
    counting_sort([&](unsigned i) { return pass[i]; }, cost);
  }
  if (n <= kSmall) {
    for (size_t i = 1; i < n; ++i) {
      const unsigned v = order[i];
      size_t k = i;
      for (; k > 0 && before(v, order[k - 1]); --k) order[k] = order[k - 1];
      order[k] = v;
    }
  } else {
    std::sort(order, order + n, before);
  }

  for (size_t i = 0; i < n;) {
    // One pass: its distinct (bank, word) slots, counted, then filled.
    const unsigned p = pass[order[i]];
    size_t end = i + 1, slots = 1;
    for (; end < n && pass[order[end]] == p; ++end) {
      const unsigned a = order[end - 1], b = order[end];
      // Sorted: a slot starts where (bank, word) changes; mark it in `next`.
      next[b] = rank[a] != rank[b] || touches[a].word != touches[b].word;
      slots += next[b];
    }
    next[order[i]] = 1;
    auto& out = passes[base + p].slots;
    out.reserve(slots);
    for (size_t k = i; k < end; ++k) {
      const Touch& t = touches[order[k]];
      if (next[order[k]]) out.push_back({t.bank, t.word, 0});
      out.back().lanes |= 1u << t.lane;
    }
    i = end;
  }
  return cost;
}

Result serve_in_groups(const Request& r, unsigned group_size, unsigned banks, bool lane_keys,
                       unsigned extra_pass) {
  Result res;
  unsigned groups = 0;
  Touch touches[32 * kMaxWordsPerLane];
  for (unsigned first = 0; first < 32; first += group_size) {
    uint32_t lanes = lanes_in(r.mask, first, group_size);
    if (!lanes) continue;
    const size_t n = add_touches(r, lanes, 4, banks, touches);
    if (lane_keys)
      for (size_t i = 0; i < n; ++i) touches[i].key = touches[i].lane;
    unsigned cost = serve_group({touches, n}, groups, res.passes);
    for (unsigned e = 0; e < extra_pass; ++e, ++cost) res.passes.push_back({groups, {}});
    res.wavefronts += cost;
    res.ways = std::max(res.ways, cost);
    ++groups;
  }
  res.ideal = groups;
  res.bank_conflicts = res.wavefronts - res.ideal;
  res.worst_wavefronts = res.wavefronts;
  return res;
}

namespace {

// serve_group's cost alone: the most distinct keys any bank holds. Each
// bank keeps a chain of the keys met so far (the touches are at most 32
// lanes x 4 words).
unsigned count_group(const Request& r, uint32_t lanes, unsigned banks, bool lane_keys) {
  constexpr unsigned kMaxBanks = 64, kMaxTouches = 32 * 4;
  if (banks > kMaxBanks) throw Error("internal error: " + std::to_string(banks) + " banks");
  const bool pow2 = std::has_single_bit(banks);  // a mask, not a division, per word
  // Most groups have one key per bank (no conflict: one pass). Checking
  // that takes a key per bank and no chains; the first bank met again with
  // another key sends the group to the chains below.
  uint64_t used = 0, only[kMaxBanks];
  bool one_key = true;
  auto see = [&](unsigned lane, uint64_t w) {
    const unsigned bank = static_cast<unsigned>(pow2 ? w & (banks - 1) : w % banks);
    const uint64_t k = lane_keys ? lane : w, bit = uint64_t{1} << bank;
    if (!(used & bit)) {
      used |= bit;
      only[bank] = k;
    } else {
      one_key = one_key && only[bank] == k;
    }
  };
  if (r.width <= 4) {  // valid, so aligned: one word a lane
    for (uint32_t left = lanes; left && one_key; left &= left - 1) {
      const unsigned lane = static_cast<unsigned>(__builtin_ctz(left));
      see(lane, r.addr[lane] / 4);
    }
  } else {
    for (uint32_t left = lanes; left && one_key; left &= left - 1) {
      const unsigned lane = static_cast<unsigned>(__builtin_ctz(left));
      const uint64_t first = r.addr[lane] / 4, last = (r.addr[lane] + r.width - 1) / 4;
      for (uint64_t w = first; w <= last; ++w) see(lane, w);
    }
  }
  if (one_key) return used ? 1 : 0;

  int8_t head[kMaxBanks];
  std::fill(head, head + banks, int8_t{-1});
  unsigned distinct[kMaxBanks] = {};
  uint64_t key[kMaxTouches];
  int8_t next[kMaxTouches];
  unsigned n = 0, cost = 0;
  for (uint32_t left = lanes; left; left &= left - 1) {
    const unsigned lane = static_cast<unsigned>(__builtin_ctz(left));
    const uint64_t first = r.addr[lane] / 4, last = (r.addr[lane] + r.width - 1) / 4;
    for (uint64_t w = first; w <= last; ++w) {
      const unsigned bank = static_cast<unsigned>(pow2 ? w & (banks - 1) : w % banks);
      const uint64_t k = lane_keys ? lane : w;
      int i = head[bank];
      while (i >= 0 && key[i] != k) i = next[i];
      if (i >= 0) continue;
      if (n == kMaxTouches) throw Error("internal error: more than 128 bank words in a group");
      key[n] = k;
      next[n] = head[bank];
      head[bank] = static_cast<int8_t>(n);
      ++n;
      cost = std::max(cost, ++distinct[bank]);
    }
  }
  return cost;
}

}  // namespace

Cost count_in_groups(const Request& r, unsigned group_size, unsigned banks, bool lane_keys,
                     unsigned extra_pass) {
  Cost c;
  for (unsigned first = 0; first < 32; first += group_size) {
    const uint32_t lanes = lanes_in(r.mask, first, group_size);
    if (!lanes) continue;
    const unsigned cost = count_group(r, lanes, banks, lane_keys) + extra_pass;
    c.wavefronts += cost;
    c.ways = std::max(c.ways, cost);
    ++c.ideal;
  }
  c.bank_conflicts = c.wavefronts - c.ideal;
  c.worst_wavefronts = c.wavefronts;
  return c;
}

}  // namespace detail

namespace {

// "sm_90" -> 90; "sm_35:8" -> 35 and mode 8. Throws on anything else.
unsigned parse_sm(std::string_view arch, unsigned& bank_mode) {
  std::string_view s = arch;
  if (auto colon = s.find(':'); colon != std::string_view::npos) {
    std::string_view mode = s.substr(colon + 1);
    if (mode == "4")
      bank_mode = 4;
    else if (mode == "8")
      bank_mode = 8;
    else
      throw Error("bad bank mode '" + std::string(mode) + "' in '" + std::string(arch) +
                  "' (expected 4 or 8)");
    s = s.substr(0, colon);
  }
  if (s.starts_with("sm_"))
    s.remove_prefix(3);
  else
    throw Error("unknown architecture '" + std::string(arch) + "' (expected sm_NN, e.g. sm_90)");
  if (s.ends_with("a")) s.remove_suffix(1);  // sm_90a: same memory system as sm_90
  unsigned sm = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), sm);
  if (ec != std::errc() || ptr != s.data() + s.size() || s.empty())
    throw Error("unknown architecture '" + std::string(arch) + "' (expected sm_NN, e.g. sm_90)");
  return sm;
}

}  // namespace

std::unique_ptr<Model> make_model(std::string_view arch, unsigned bank_mode) {
  unsigned sm = parse_sm(arch, bank_mode);
  if (bank_mode != 4 && bank_mode != 8)
    throw Error("bad bank mode " + std::to_string(bank_mode) + " (expected 4 or 8)");
  bool kepler = sm == 30 || sm == 32 || sm == 35 || sm == 37;
  if (bank_mode == 8 && !kepler)
    throw Error("bank mode 8 exists only on Kepler (sm_30 ... sm_37), not on '" +
                std::string(arch) + "'");
  switch (sm) {
    case 10:
    case 11:
    case 12:
    case 13:
      return detail::make_tesla(sm);
    case 20:
    case 21:
      return detail::make_fermi(sm);
    case 30:
    case 32:
    case 35:
    case 37:
      return detail::make_kepler(sm, bank_mode);
    case 70:
    case 72:
    case 75:
    case 80:
    case 86:
    case 87:
    case 89:
    case 90:
    case 100:
    case 101:
    case 103:
    case 110:
    case 120:
    case 121:
      return detail::make_volta(sm);
    default:
      break;
  }
  if (sm >= 50 && sm <= 62)
    throw Error("'" + std::string(arch) +
                "' (Maxwell/Pascal) is not modelled: its rules were never measured here");
  throw Error("unknown architecture '" + std::string(arch) +
              "' (known: sm_10..sm_13, sm_20, sm_21, sm_30..sm_37, sm_70..sm_90, sm_100, sm_120)");
}

std::vector<std::unique_ptr<Model>> all_generations() {
  std::vector<std::unique_ptr<Model>> v;
  v.push_back(make_model("sm_13"));
  v.push_back(make_model("sm_20"));
  v.push_back(make_model("sm_35", 4));
  v.push_back(make_model("sm_35", 8));
  v.push_back(make_model("sm_90"));
  return v;
}

}  // namespace smemlab::bank
