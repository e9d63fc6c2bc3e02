// The fat binaries nvcc embeds in a program: the entries (PTX text and SASS
// cubins per architecture) of one fatbin, and the PTX the emulator runs.
//
// Layout (what nvcc 13 writes; no public specification): a 16-byte header
// {u32 magic 0xBA55ED50, u16 version, u16 header size, u64 size of the
// entries}, then entries, each a header {u16 kind (1 PTX, 2 ELF), u16
// version, u32 header size, u64 padded payload size, u32 payload size, ...,
// u32 sm at 28, u64 flags at 40, u64 uncompressed size at 56} followed by
// its payload. Flag 0x8000 marks a zstd-compressed payload, 0x2000 LZ4,
// 0x100000 an arch-specific target (sm_90a, compute_90a).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace smemlab::runtime {

struct FatbinError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct FatbinEntry {
  enum Kind { kPtx = 1, kElf = 2 } kind;
  uint32_t sm = 0;  // 90 for sm_90 / compute_90
  bool zstd = false, lz4 = false;
  bool arch_specific = false;  // sm_90a / compute_90a (flag 0x100000)
  const uint8_t* payload = nullptr;
  // payload_size is the compressed size; 0 in an uncompressed entry, whose
  // size is then the padded size (an ELF does not mind the padding).
  uint64_t payload_size = 0, uncompressed_size = 0, padded_size = 0;
};

// `data` points at the fatbin header (or at the wrapper nvcc's host code
// registers: {u32 magic 0x466243B1, u32 version, const void* fatbin, ...}).
// Throws FatbinError for a header it does not recognize.
std::vector<FatbinEntry> parse_fatbin(const void* data);

// The PTX of the highest compute capability <= `sm`, decompressed; empty if
// the fatbin has none (a SASS-only build). Throws FatbinError on a payload
// that does not decompress.
std::string best_ptx(const std::vector<FatbinEntry>& entries, uint32_t sm);

// The SASS cubin (an ELF) for exactly `sm`, decompressed; empty if the
// fatbin has none. Throws FatbinError on a payload that does not decompress.
std::string sass_for(const std::vector<FatbinEntry>& entries, uint32_t sm);

// "sm_90 SASS, sm_80 SASS" for messages about a fatbin without usable PTX.
std::string describe(const std::vector<FatbinEntry>& entries);

// The nvcc flag that embeds PTX beside a SASS-only fatbin's code for the
// GPU `sm` (or its nearest SASS): "-gencode arch=compute_90a,code=[sm_90a,compute_90a]".
std::string ptx_flag_for(const std::vector<FatbinEntry>& entries, uint32_t sm);

}  // namespace smemlab::runtime
