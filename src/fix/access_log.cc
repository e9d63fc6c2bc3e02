#include "fix/access_log.h"

#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <iterator>

namespace smemlab::fix {
namespace {

constexpr char kLaunchMagic[8] = {'S', 'M', 'F', 'X', 'L', 'O', 'G', '1'};
constexpr char kSnapMagic[8] = {'S', 'M', 'F', 'X', 'S', 'N', 'P', '1'};

class Writer {
 public:
  template <class T>
  void put(const T& v) {
    const auto* p = reinterpret_cast<const char*>(&v);
    buf_.append(p, sizeof v);
  }
  void str(const std::string& s) {
    put(static_cast<uint32_t>(s.size()));
    buf_ += s;
  }
  // One write per record: a program that dies mid-launch leaves whole records.
  void flush_to(const std::string& path) {
    std::ofstream out(path, std::ios::binary | std::ios::app);
    out.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    if (!out) throw LogError(fmt::format("{}: cannot write", path));
  }

 private:
  std::string buf_;
};

class Reader {
 public:
  Reader(const std::string& path) : path_(path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw LogError(fmt::format("{}: cannot read", path));
    data_.assign(std::istreambuf_iterator<char>(in), {});
  }
  bool done() const { return pos_ == data_.size(); }
  template <class T>
  T get() {
    T v;
    need(sizeof v);
    std::memcpy(&v, data_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }
  std::string str() {
    uint32_t n = get<uint32_t>();
    need(n);
    std::string s = data_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  void magic(const char (&m)[8]) {
    need(8);
    if (std::memcmp(data_.data() + pos_, m, 8) != 0)
      throw LogError(fmt::format("{}: not a record of this smemlab build", path_));
    pos_ += 8;
  }

 private:
  void need(size_t n) const {
    if (data_.size() - pos_ < n) throw LogError(fmt::format("{}: cut short", path_));
  }
  std::string path_, data_;
  size_t pos_ = 0;
};

void put_dim(Writer& w, emu::Dim3 d) {
  w.put(d.x);
  w.put(d.y);
  w.put(d.z);
}

emu::Dim3 get_dim(Reader& r) {
  emu::Dim3 d;
  d.x = r.get<uint32_t>();
  d.y = r.get<uint32_t>();
  d.z = r.get<uint32_t>();
  return d;
}

}  // namespace

void append_launch(const std::string& path, const LoggedLaunch& l) {
  Writer w;
  for (char c : kLaunchMagic) w.put(c);
  w.put(l.index);
  w.str(l.kernel);
  w.str(l.module);
  w.put(l.module_serial);
  w.put(l.ptx_sm);
  put_dim(w, l.grid);
  put_dim(w, l.block);
  w.put(l.dynamic_shared);
  w.put(static_cast<uint64_t>(l.accesses.size()));
  for (const SharedAccess& a : l.accesses) {
    w.put(a.pc);
    w.put(static_cast<uint8_t>(a.request.op));
    w.put(a.request.width);
    w.put(a.request.mask);
    for (unsigned i = 0; i < 32; ++i) w.put(a.request.addr[i]);
    w.put(a.count);
  }
  w.flush_to(path);
}

std::vector<LoggedLaunch> read_launches(const std::string& path) {
  Reader r(path);
  std::vector<LoggedLaunch> out;
  while (!r.done()) {
    r.magic(kLaunchMagic);
    LoggedLaunch l;
    l.index = r.get<uint64_t>();
    l.kernel = r.str();
    l.module = r.str();
    l.module_serial = r.get<uint32_t>();
    l.ptx_sm = r.get<uint32_t>();
    l.grid = get_dim(r);
    l.block = get_dim(r);
    l.dynamic_shared = r.get<uint32_t>();
    uint64_t n = r.get<uint64_t>();
    for (uint64_t i = 0; i < n; ++i) {
      SharedAccess a;
      a.pc = r.get<uint32_t>();
      uint8_t op = r.get<uint8_t>();
      if (op > static_cast<uint8_t>(bank::Op::Atomic))
        throw LogError(fmt::format("{}: bad access record", path));
      a.request.op = static_cast<bank::Op>(op);
      a.request.width = r.get<uint32_t>();
      a.request.mask = r.get<uint32_t>();
      for (unsigned k = 0; k < 32; ++k) a.request.addr[k] = r.get<uint64_t>();
      a.count = r.get<uint64_t>();
      l.accesses.push_back(a);
    }
    out.push_back(std::move(l));
  }
  return out;
}

RegionHash hash_region(const std::string& name, const uint8_t* data, uint64_t size) {
  RegionHash h;
  h.name = name;
  h.size = size;
  for (uint64_t at = 0; at < size; at += kSnapshotChunk) {
    uint64_t x = 0xcbf29ce484222325ull;  // FNV-1a, 64-bit
    for (uint64_t i = at, end = std::min(size, at + kSnapshotChunk); i < end; ++i)
      x = (x ^ data[i]) * 0x100000001b3ull;
    h.chunks.push_back(x);
  }
  return h;
}

void append_snapshot(const std::string& path, const Snapshot& s) {
  Writer w;
  for (char c : kSnapMagic) w.put(c);
  w.put(s.launch);
  w.put(static_cast<uint64_t>(s.regions.size()));
  for (const RegionHash& h : s.regions) {
    w.str(h.name);
    w.put(h.size);
    w.put(static_cast<uint64_t>(h.chunks.size()));
    for (uint64_t c : h.chunks) w.put(c);
  }
  w.flush_to(path);
}

std::vector<Snapshot> read_snapshots(const std::string& path) {
  Reader r(path);
  std::vector<Snapshot> out;
  while (!r.done()) {
    r.magic(kSnapMagic);
    Snapshot s;
    s.launch = r.get<uint64_t>();
    uint64_t n = r.get<uint64_t>();
    for (uint64_t i = 0; i < n; ++i) {
      RegionHash h;
      h.name = r.str();
      h.size = r.get<uint64_t>();
      uint64_t c = r.get<uint64_t>();
      if (c != (h.size + kSnapshotChunk - 1) / kSnapshotChunk)
        throw LogError(fmt::format("{}: bad snapshot record", path));
      for (uint64_t k = 0; k < c; ++k) h.chunks.push_back(r.get<uint64_t>());
      s.regions.push_back(std::move(h));
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::string compare_snapshots(const std::vector<Snapshot>& want, const std::vector<Snapshot>& got) {
  if (want.size() != got.size())
    return fmt::format("the kernel was launched {} times, the original {} times", got.size(),
                       want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const Snapshot& w = want[i];
    const Snapshot& g = got[i];
    if (w.regions.size() != g.regions.size())
      return fmt::format("after launch {}, {} device allocations are live, the original had {}",
                         g.launch, g.regions.size(), w.regions.size());
    for (size_t r = 0; r < w.regions.size(); ++r) {
      const RegionHash& a = w.regions[r];
      const RegionHash& b = g.regions[r];
      if (a.name != b.name || a.size != b.size)
        return fmt::format(
            "after launch {}, {} ({} bytes) stands where the original had {} ({} "
            "bytes)",
            g.launch, b.name, b.size, a.name, a.size);
      for (size_t c = 0; c < a.chunks.size(); ++c)
        if (a.chunks[c] != b.chunks[c])
          return fmt::format(
              "after launch {}, {} ({} bytes) differs from the original's, first within bytes "
              "[{}, {})",
              g.launch, a.name, a.size, c * kSnapshotChunk,
              std::min<uint64_t>(a.size, (c + 1) * kSnapshotChunk));
    }
  }
  return "";
}

}  // namespace smemlab::fix
