#include "runtime/integrity.h"

#include <cstring>

namespace smemlab::runtime {
namespace {

// RFC 1319's substitution table (a permutation of 0..255 from the digits of pi).
constexpr unsigned char kS[256] = {
    41,  46,  67,  201, 162, 216, 124, 1,   61,  54,  84,  161, 236, 240, 6,   19,  98,  167, 5,
    243, 192, 199, 115, 140, 152, 147, 43,  217, 188, 76,  130, 202, 30,  155, 87,  60,  253, 212,
    224, 22,  103, 66,  111, 24,  138, 23,  229, 18,  190, 78,  196, 214, 218, 158, 222, 73,  160,
    251, 245, 142, 187, 47,  238, 122, 169, 104, 121, 145, 21,  178, 7,   63,  148, 194, 16,  137,
    11,  34,  95,  33,  128, 127, 93,  154, 90,  144, 50,  39,  53,  62,  204, 231, 191, 247, 151,
    3,   255, 25,  48,  179, 72,  165, 181, 209, 215, 94,  146, 42,  172, 86,  170, 198, 79,  184,
    56,  210, 150, 164, 125, 182, 118, 252, 107, 226, 156, 116, 4,   241, 69,  157, 112, 89,  100,
    113, 135, 32,  134, 91,  207, 101, 230, 45,  168, 2,   27,  96,  37,  173, 174, 176, 185, 246,
    28,  70,  97,  105, 52,  64,  126, 15,  85,  71,  163, 35,  221, 81,  175, 58,  195, 92,  249,
    206, 186, 197, 234, 38,  44,  83,  13,  110, 133, 40,  132, 9,   211, 223, 205, 244, 65,  129,
    77,  82,  106, 220, 55,  200, 108, 193, 171, 250, 36,  225, 123, 8,   12,  189, 177, 74,  120,
    136, 149, 139, 227, 99,  232, 109, 233, 203, 213, 254, 59,  0,   29,  57,  242, 239, 183, 14,
    102, 88,  208, 228, 166, 119, 114, 248, 235, 117, 75,  10,  49,  68,  80,  180, 143, 237, 31,
    26,  219, 153, 141, 51,  159, 17,  131, 20};

class Md2 {
 public:
  void update(const void* data, size_t n, unsigned char mask = 0) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < n; ++i) add(p[i] ^ mask);
  }
  void finish(unsigned char out[16]) {
    unsigned char pad = static_cast<unsigned char>(16 - fill_);
    for (int i = 0; i < pad; ++i) add(pad);
    unsigned char sum[16];
    std::memcpy(sum, checksum_, 16);
    for (unsigned char b : sum) add(b);
    std::memcpy(out, state_, 16);
  }

 private:
  void add(unsigned char b) {
    state_[16 + fill_] = b;
    state_[32 + fill_] = state_[fill_] ^ b;
    last_ = checksum_[fill_] ^= kS[b ^ last_];
    if (++fill_ < 16) return;
    fill_ = 0;
    unsigned char t = 0;
    for (int round = 0; round < 18; ++round) {
      for (unsigned char& x : state_) t = x ^= kS[t];
      t = static_cast<unsigned char>(t + round);
    }
  }
  unsigned char state_[48] = {}, checksum_[16] = {}, last_ = 0;
  int fill_ = 0;
};

constexpr unsigned char kKey[16] = {0x14, 0x6a, 0xdd, 0xae, 0x53, 0xa9, 0xa7, 0x52,
                                    0xaa, 0x08, 0x41, 0x36, 0x0b, 0xf5, 0x5a, 0x9f};

}  // namespace

void integrity_hash(const IntegrityInput& input, const IntegrityDevice* devices, int n,
                    uint64_t result[2]) {
  unsigned char inner[16], outer[16];
  Md2 in;
  in.update(kKey, 16, 0x36);
  in.update(&input, sizeof input);
  for (int i = 0; i < n; ++i) in.update(&devices[i], sizeof devices[i]);
  in.finish(inner);
  Md2 out;
  out.update(kKey, 16, 0x5c);
  out.update(inner, 16);
  out.finish(outer);
  std::memcpy(result, outer, 16);
}

}  // namespace smemlab::runtime
