#include "fix/fix.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>

#include "check/source_lines.h"
#include "ptx/demangle.h"

namespace smemlab::fix {
namespace {

// "void row_read_col<int, 0>(int*)::tile" -> {"row_read_col", "tile"};
// "tile" -> {"", "tile"}.
std::pair<std::string, std::string> split_local(const std::string& ptx_name) {
  std::string d = ptx::demangle(ptx_name);
  auto sep = d.rfind("::");
  if (sep == std::string::npos) return {"", d};
  std::string var = d.substr(sep + 2), fn = d.substr(0, sep);
  int depth = 0;
  std::string bare;  // fn without (...) and <...>
  for (char c : fn) {
    if (c == '(' || c == '<') ++depth;
    if (depth == 0) bare += c;
    if (c == ')' || c == '>') --depth;
  }
  auto space = bare.rfind(' ');
  if (space != std::string::npos) bare = bare.substr(space + 1);
  auto colon = bare.rfind("::");
  if (colon != std::string::npos) bare = bare.substr(colon + 2);
  return {bare, var};
}

std::string basename(const std::string& p) {
  auto s = p.rfind('/');
  return s == std::string::npos ? p : p.substr(s + 1);
}

bool is_pow2(uint64_t x) { return x && !(x & (x - 1)); }

uint64_t excess(const Cost& c) { return c.wavefronts - std::min(c.wavefronts, c.ideal); }

// The extern array whose subscripts sit on the source lines of the accesses
// into the dynamic window.
int dynamic_source(const SourceModel& src, const std::vector<SharedAccess>& accesses,
                   const Span& span, const ptx::LineTable* lines) {
  std::set<int> access_lines;
  for (const auto& a : accesses) {
    bool in = false;
    for (unsigned l = 0; l < 32; ++l)
      in |= (a.request.mask >> l & 1) && span.contains(a.request.addr[l]);
    if (!in || !a.instr) continue;
    for (const auto& sl : check::lines_of(lines, a.instr->loc))
      if (basename(sl.file) == basename(src.path)) access_lines.insert(sl.line);
  }
  int best = -1;
  size_t best_hits = 0;
  for (size_t i = 0; i < src.arrays.size(); ++i) {
    if (!src.arrays[i].is_extern) continue;
    size_t hits = 0;
    for (const auto& s : src.arrays[i].subscripts) hits += access_lines.count(s.line);
    if (hits > best_hits) best = static_cast<int>(i), best_hits = hits;
  }
  return best;
}

std::vector<Layout> layouts_for(const ArrayInfo& a, const Options& o) {
  std::vector<Layout> out;
  const uint32_t g = std::max<uint32_t>(1, a.widest / a.elem);
  auto pads = [&](uint32_t width, std::vector<Layout>& into) {
    for (uint32_t p = g; p <= std::max(o.max_pad, g); p += g) {
      Layout l;
      l.change = Change::Pad;
      l.elem = a.elem;
      l.width = width;
      l.pad = p;
      into.push_back(l);
    }
  };
  auto swizzle = [&](uint32_t width, uint32_t rows) {
    if (!is_pow2(width) || !is_pow2(g) || width / g < 2) return;
    Layout l;
    l.change = Change::Swizzle;
    l.elem = a.elem;
    l.width = width;
    l.unit = g;
    l.rows = rows;
    out.push_back(l);
  };
  if (a.extents.size() >= 2) {
    const uint32_t w = static_cast<uint32_t>(a.extents.back());
    pads(w, out);
    swizzle(w, static_cast<uint32_t>(a.extents[a.extents.size() - 2]));
  } else if (!a.extents.empty()) {
    // A 1-D array: rows of every power-of-two width the subscripts can be
    // rewritten to (the shape the accesses imply is one of them).
    for (uint64_t w = std::max<uint64_t>(4, 2 * g); w < a.extents[0] && w <= 1024; w *= 2) {
      pads(static_cast<uint32_t>(w), out);
      swizzle(static_cast<uint32_t>(w), 0);
    }
  }
  return out;
}

}  // namespace

std::string proof_difference(const RunResult& want, const RunResult& got) {
  if (!got.error.empty()) return got.error;
  if (want.buffers.size() != got.buffers.size()) return "a different number of output buffers";
  for (size_t b = 0; b < want.buffers.size(); ++b) {
    const auto& x = want.buffers[b];
    const auto& y = got.buffers[b];
    if (x.size() != y.size()) return fmt::format("buffer argument {} changed size", b);
    auto m = std::mismatch(x.begin(), x.end(), y.begin());
    if (m.first != x.end())
      return fmt::format("buffer argument {} differs from the original's at byte {} of {}", b,
                         m.first - x.begin(), x.size());
  }
  std::map<check::FindingKind, int> before;
  for (const auto& f : want.findings) ++before[f.kind];
  for (const auto& f : got.findings)
    if (--before[f.kind] < 0)
      return fmt::format("check finds a new {}: {}", check::name(f.kind), f.message);
  return "";
}

RunResult run_rewritten(const SourceModel& src, const Edits& edits, uint32_t dynamic_shared,
                        const Runner& run) {
  // Beside the original, so that its #include "..." lines still resolve.
  std::string dir =
      src.path.find('/') == std::string::npos ? "." : src.path.substr(0, src.path.rfind('/'));
  std::string tmpl = dir + "/.smemlab-fix-XXXXXX.cu";
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  int fd = mkstemps(name.data(), 3);
  if (fd < 0) {
    RunResult r;
    r.error = fmt::format("cannot write a rewritten copy in {}: {}", dir, std::strerror(errno));
    return r;
  }
  close(fd);
  std::string path(name.data());
  {
    std::ofstream out(path, std::ios::binary);
    out << fix::apply(src.text, edits);
  }
  RunResult r;
  try {
    r = run(path, dynamic_shared);
  } catch (...) {
    std::remove(path.c_str());
    throw;
  }
  std::remove(path.c_str());
  return r;
}

bool Result::anything_to_fix() const {
  return std::any_of(arrays.begin(), arrays.end(),
                     [](const ArrayInfo& a) { return a.skipped.empty(); });
}

const Candidate* Result::best_verified(size_t array) const {
  for (const Candidate& c : candidates)
    if (c.array == array && c.verdict == Candidate::Verdict::Verified) return &c;
  return nullptr;
}

unsigned blocks_per_sm(uint64_t shared_bytes, unsigned threads) {
  constexpr uint64_t kPerSm = 228 * 1024, kReserved = 1024, kPerBlock = 227 * 1024;
  if (shared_bytes > kPerBlock) return 0;
  uint64_t by_smem = kPerSm / (shared_bytes + kReserved);
  uint64_t by_threads = threads ? 2048 / threads : 32;
  return static_cast<unsigned>(std::min<uint64_t>({by_smem, by_threads, 32}));
}

Result find_fixes(const SourceModel& source, const emu::Program& program, uint32_t dynamic_shared,
                  const std::vector<SharedAccess>& accesses, const RunResult& original,
                  const std::vector<std::unique_ptr<bank::Model>>& models, const Runner& run,
                  const Options& options, const ptx::LineTable* lines) {
  Result res;
  for (const auto& m : models) res.models.push_back(m->name());
  res.dynamic_shared = dynamic_shared;
  res.shared_bytes = program.static_shared + dynamic_shared;
  res.blocks_per_sm = blocks_per_sm(res.shared_bytes, options.threads_per_block);

  // The arrays the kernel touches, joined with the source.
  std::vector<ArrayInfo> arrays;
  for (const auto& v : program.shared_vars) {
    ArrayInfo a;
    a.ptx_name = v.name;
    a.span = {v.offset, v.size};
    auto [fn, var] = split_local(v.name);
    a.name = var;
    for (size_t i = 0; i < source.arrays.size(); ++i) {
      const SourceArray& s = source.arrays[i];
      if (!s.is_extern && s.name == var && (fn.empty() || s.function == fn)) {
        a.source_index = static_cast<int>(i);
        break;
      }
    }
    arrays.push_back(a);
  }
  if (dynamic_shared > 0) {
    ArrayInfo a;
    a.dynamic = true;
    a.name = "extern shared";
    a.span = {program.static_shared, dynamic_shared};
    a.source_index = dynamic_source(source, accesses, a.span, lines);
    if (a.source_index >= 0) a.name = source.arrays[a.source_index].name;
    arrays.push_back(a);
  }

  for (ArrayInfo& a : arrays) {
    a.widest = widest_access(accesses, a.span);
    if (a.widest == 0) continue;  // declared but not used by this launch
    for (const auto& m : models) a.before.push_back(cost_of(accesses, a.span, nullptr, *m));
    const SourceArray* s = a.source_index >= 0 ? &source.arrays[a.source_index] : nullptr;
    // Elements as the subscripts count them: through an alias, its pointee
    // (the narrowest access when that type is a template parameter).
    bool aliased = s && std::any_of(s->subscripts.begin(), s->subscripts.end(),
                                    [](const Subscript& x) { return x.via_alias; });
    std::optional<unsigned> declared =
        s ? (aliased ? s->alias_elem_bytes : s->elem_bytes) : std::nullopt;
    a.elem = declared ? *declared : narrowest_access(accesses, a.span);
    // Shape: the declared extents, the one unknown (template-dependent)
    // extent solved from the PTX size.
    uint64_t elems = a.span.bytes / std::max<uint32_t>(1, a.elem);
    if (s && !s->is_extern) {
      uint64_t known = 1;
      int unknown = -1, n_unknown = 0;
      for (size_t d = 0; d < s->extent_values.size(); ++d) {
        if (s->extent_values[d] && *s->extent_values[d] > 0)
          known *= static_cast<uint64_t>(*s->extent_values[d]);
        else
          unknown = static_cast<int>(d), ++n_unknown;
      }
      for (size_t d = 0; d < s->extent_values.size(); ++d)
        a.extents.push_back(s->extent_values[d] ? static_cast<uint64_t>(*s->extent_values[d]) : 0);
      if (n_unknown == 1 && known && elems % known == 0) a.extents[unknown] = elems / known;
      if (n_unknown > 1 || (n_unknown == 1 && a.extents[unknown] == 0)) a.extents.clear();
    } else {
      a.extents = {elems};
    }
    bool any_excess = false;
    for (const Cost& c : a.before) any_excess |= excess(c) > 0;
    if (!any_excess)
      a.skipped = "no excess wavefronts";
    else if (!s)
      a.skipped = "its declaration was not found in the source";
    else if (a.extents.empty())
      a.skipped = "its shape could not be worked out from the source and the PTX";
  }
  // Arrays not accessed by this launch are left out of the report.
  for (auto& a : arrays)
    if (a.widest) res.arrays.push_back(std::move(a));

  const unsigned threads = options.threads_per_block;
  for (size_t ai = 0; ai < res.arrays.size(); ++ai) {
    const ArrayInfo& a = res.arrays[ai];
    if (!a.skipped.empty()) continue;
    std::vector<Candidate> found;
    for (const Layout& l : layouts_for(a, options)) {
      Candidate c;
      c.array = ai;
      c.layout = l;
      bool valid = true, better = false, worse = false;
      for (size_t m = 0; m < models.size() && valid; ++m) {
        Cost after = cost_of(accesses, a.span, &l, *models[m]);
        valid = after.valid;
        if (!valid) break;
        if (excess(after) < excess(a.before[m])) better = true;
        if (m == 0 && after.wavefronts > a.before[m].wavefronts) worse = true;
        c.after.push_back(after);
      }
      if (!valid || !better || worse) continue;
      uint64_t grown = l.bytes(a.span.bytes);
      c.dynamic_shared = a.dynamic ? static_cast<uint32_t>(grown) : dynamic_shared;
      c.shared_bytes = res.shared_bytes - a.span.bytes + grown;
      c.blocks_per_sm = blocks_per_sm(c.shared_bytes, threads);
      std::string why;
      c.edits = edits_for(source, source.arrays[a.source_index], l, &why);
      c.why_not = why;
      found.push_back(std::move(c));
    }
    std::stable_sort(found.begin(), found.end(), [](const Candidate& x, const Candidate& y) {
      uint64_t xs = 0, ys = 0;
      for (size_t m = 1; m < x.after.size(); ++m)
        xs += x.after[m].wavefronts, ys += y.after[m].wavefronts;
      auto key = [](const Candidate& c, uint64_t others) {
        return std::tuple(c.after[0].wavefronts, others, !c.edits.has_value(), c.shared_bytes,
                          c.layout.change == Change::Swizzle, c.layout.pad);
      };
      return key(x, xs) < key(y, ys);
    });
    for (auto& c : found) res.candidates.push_back(std::move(c));
  }

  // The proof: the original's outputs are the reference.
  res.original = original;
  if (!res.anything_to_fix() || res.candidates.empty()) return res;
  std::map<size_t, unsigned> tried;
  std::set<size_t> verified;
  for (Candidate& c : res.candidates) {
    if (!c.edits || tried[c.array] >= options.prove || verified.count(c.array)) continue;
    ++tried[c.array];
    if (!res.original.error.empty()) {
      c.why_not = "the original kernel did not run: " + res.original.error;
      continue;
    }
    RunResult got = run_rewritten(source, *c.edits, c.dynamic_shared, run);
    std::string diff = proof_difference(res.original, got);
    c.measured = got.measured;
    c.predicted_ns = got.predicted_ns;
    c.verdict = diff.empty() ? Candidate::Verdict::Verified : Candidate::Verdict::Rejected;
    c.why_not = diff;
    if (diff.empty()) verified.insert(c.array);
  }

  // The patch: every array's best verified change; a combination is proven too.
  std::vector<const Edits*> parts;
  for (size_t a = 0; a < res.arrays.size(); ++a)
    if (const Candidate* c = res.best_verified(a)) {
      bool overlaps = false;
      for (const Edits* p : parts)
        for (const Edit& e : *c->edits)
          for (const Edit& f : *p)
            overlaps |= e.range.begin < f.range.end && f.range.begin < e.range.end;
      if (!overlaps) parts.push_back(&*c->edits);
    }
  for (const Edits* p : parts) res.patch.insert(res.patch.end(), p->begin(), p->end());
  std::sort(res.patch.begin(), res.patch.end(),
            [](const Edit& x, const Edit& y) { return x.range.begin < y.range.begin; });
  if (parts.size() > 1) {
    uint32_t dyn = dynamic_shared;
    for (size_t a = 0; a < res.arrays.size(); ++a)
      if (const Candidate* c = res.best_verified(a); c && res.arrays[a].dynamic)
        dyn = c->dynamic_shared;
    std::string diff = proof_difference(res.original, run_rewritten(source, res.patch, dyn, run));
    if (!diff.empty()) {
      res.patch = *parts.front();
      res.patch_note = "the verified changes of several arrays together fail the proof (" + diff +
                       "); the patch holds the first array's only";
    }
  }
  return res;
}

}  // namespace smemlab::fix
