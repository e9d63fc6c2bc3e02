#include "runtime/fatbin.h"

#include <fmt/format.h>
#include <zstd.h>

#include <cstring>

namespace smemlab::runtime {
namespace {

constexpr uint32_t kWrapperMagic = 0x466243B1;
constexpr uint32_t kFatbinMagic = 0xBA55ED50;
constexpr uint64_t kFlagLz4 = 0x2000, kFlagZstd = 0x8000, kFlagArchSpecific = 0x100000;

template <class T>
T read(const uint8_t* p, size_t off) {
  T v;
  std::memcpy(&v, p + off, sizeof v);
  return v;
}

}  // namespace

std::vector<FatbinEntry> parse_fatbin(const void* data) {
  auto* p = static_cast<const uint8_t*>(data);
  if (!p) throw FatbinError("null fatbin");
  if (read<uint32_t>(p, 0) == kWrapperMagic) p = read<const uint8_t*>(p, 8);
  if (read<uint32_t>(p, 0) != kFatbinMagic)
    throw FatbinError(fmt::format("not a fatbin (magic 0x{:08x})", read<uint32_t>(p, 0)));
  uint16_t header = read<uint16_t>(p, 6);
  uint64_t total = read<uint64_t>(p, 8);
  std::vector<FatbinEntry> out;
  for (uint64_t at = header; at + 64 <= header + total;) {
    const uint8_t* e = p + at;
    FatbinEntry f;
    uint16_t kind = read<uint16_t>(e, 0);
    uint32_t eheader = read<uint32_t>(e, 4);
    uint64_t padded = read<uint64_t>(e, 8);
    if (eheader < 64 || padded > total) throw FatbinError("corrupt fatbin entry");
    f.kind = kind == 1 ? FatbinEntry::kPtx : FatbinEntry::kElf;
    f.payload_size = read<uint32_t>(e, 16);
    f.padded_size = padded;
    f.sm = read<uint32_t>(e, 28);
    uint64_t flags = read<uint64_t>(e, 40);
    f.zstd = flags & kFlagZstd;
    f.lz4 = flags & kFlagLz4;
    f.arch_specific = flags & kFlagArchSpecific;
    f.uncompressed_size = read<uint64_t>(e, 56);
    f.payload = e + eheader;
    if (kind == 1 || kind == 2) out.push_back(f);
    at += eheader + padded;
  }
  return out;
}

namespace {

std::string payload_of(const FatbinEntry& e) {
  const char* what = e.kind == FatbinEntry::kPtx ? "PTX" : "SASS";
  const char* prefix = e.kind == FatbinEntry::kPtx ? "compute_" : "sm_";
  std::string text;
  if (e.zstd) {
    text.resize(e.uncompressed_size);
    size_t n = ZSTD_decompress(text.data(), text.size(), e.payload, e.payload_size);
    if (ZSTD_isError(n))
      throw FatbinError(fmt::format("{}{} {}: zstd: {}", prefix, e.sm, what, ZSTD_getErrorName(n)));
    text.resize(n);
  } else if (e.lz4) {
    throw FatbinError(
        fmt::format("{}{} {} is LZ4-compressed, which is not supported "
                                  "(rebuild with nvcc 13 or -Xfatbin -compress-all=false)",
                    prefix, e.sm, what));
  } else {
    text.assign(reinterpret_cast<const char*>(e.payload),
                e.payload_size ? e.payload_size : e.padded_size);
  }
  return text;
}

}  // namespace

std::string best_ptx(const std::vector<FatbinEntry>& entries, uint32_t sm) {
  const FatbinEntry* best = nullptr;
  for (const auto& e : entries)
    if (e.kind == FatbinEntry::kPtx && e.sm <= sm && (!best || e.sm > best->sm)) best = &e;
  if (!best) return "";
  std::string text = payload_of(*best);
  // The payload is padded with NULs.
  text.resize(std::strlen(text.c_str()));
  return text;
}

std::string sass_for(const std::vector<FatbinEntry>& entries, uint32_t sm) {
  for (const auto& e : entries)
    if (e.kind == FatbinEntry::kElf && e.sm == sm) return payload_of(e);
  return "";
}

std::string describe(const std::vector<FatbinEntry>& entries) {
  std::string s;
  for (const auto& e : entries)
    s += fmt::format("{}{}{}{}", s.empty() ? "" : ", ",
                     e.kind == FatbinEntry::kPtx ? "compute_" : "sm_", e.sm,
                     e.arch_specific ? "a" : "") +
         (e.kind == FatbinEntry::kPtx ? " PTX" : " SASS");
  return s.empty() ? "no entries" : s;
}

std::string ptx_flag_for(const std::vector<FatbinEntry>& entries, uint32_t sm) {
  // The SASS the GPU would run (the highest at or below it), else any.
  const FatbinEntry* best = nullptr;
  for (const auto& e : entries) {
    if (e.kind != FatbinEntry::kElf) continue;
    bool fits = e.sm <= sm, best_fits = best && best->sm <= sm;
    if (!best || (fits && !best_fits) || (fits == best_fits && e.sm > best->sm)) best = &e;
  }
  std::string arch =
      fmt::format("{}{}", best ? best->sm : sm, best && best->arch_specific ? "a" : "");
  return fmt::format("-gencode arch=compute_{0},code=[sm_{0},compute_{0}]", arch);
}

}  // namespace smemlab::runtime
