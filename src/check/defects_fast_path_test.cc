// DefectCheck's fast paths (compact global records, quiet-word notes for
// shared loads, one test per broadcast) must give exactly the findings of
// the general per-lane path: random event streams over a few words, so that
// lanes collide, run through both, and the findings are compared field by
// field. Hand-written cases pin the patterns the fast paths are built for.
#include <gtest/gtest.h>

#include <random>

#include "check/defects.h"
#include "check/event_builder.h"

namespace smemlab::check {
namespace {

using testing::access;
using testing::instr;
constexpr uint32_t kAll = 0xffffffffu;
constexpr uint64_t kGlobal = 0x1000;

std::string describe(const std::vector<Finding>& fs) {
  std::string out;
  for (const Finding& f : fs) {
    out += std::string(name(f.kind)) + " x" + std::to_string(f.count) + ": " + f.message;
    for (const Involved& v : f.involved)
      out += " [" + v.role + " line " + std::to_string(v.ptx_line) + " block " +
             std::to_string(v.block.x) + " thread " + std::to_string(v.thread) + "]";
    out += "\n";
  }
  return out;
}

// One event of a block: a memory access, a barrier of both warps, or a
// __syncwarp() of one warp.
struct Event {
  enum Kind { kMemory, kBarrier, kSyncwarp } kind = kMemory;
  emu::MemAccess access{};
  uint32_t warp = 0;
};

// The instructions the streams use; atomics include a CAS (the CAS-loop rule).
struct Instrs {
  emu::InstrInfo ld_s = instr(1, 10, "ld.shared.u32"), ld_s2 = instr(2, 11, "ld.shared.v4.f32"),
                 st_s = instr(3, 12, "st.shared.u32"), at_s = instr(4, 13, "atom.shared.add.u32"),
                 cas_s = instr(5, 14, "atom.shared.cas.b32", -1, emu::InstrTrait::CompareAndSwap),
                 cp = instr(6, 15, "cp.async.ca.shared.global"),
                 ld_g = instr(7, 16, "ld.global.u32"), ld_g2 = instr(8, 17, "ld.global.v4.f32"),
                 st_g = instr(9, 18, "st.global.u32"), at_g = instr(10, 19, "atom.global.add.u32"),
                 cas_g = instr(11, 20, "atom.global.cas.b32", -1, emu::InstrTrait::CompareAndSwap),
                 bar = instr(12, 21, "bar.sync 0"),
                 sw = instr(13, 22, "bar.warp.sync -1", -1, emu::InstrTrait::WarpMemoryOrder);
};

// Lane addresses of the patterns warps use: broadcast, unit stride, a
// half-warp repeat, a broadcast with one lane elsewhere, random words.
// `wrap`: unit strides wrap around within `span` (shared); else they run
// past it (global: coalesced streams over several lines).
std::function<uint64_t(unsigned)> pattern(std::mt19937& rng, uint64_t base, unsigned width,
                                          uint64_t span, bool wrap = true) {
  uint64_t slots = span / width;
  uint64_t b = base + width * (rng() % slots);
  switch (rng() % 6) {
    case 0:
      return [=](unsigned) { return b; };
    case 1:
      if (!wrap) return [=](unsigned l) { return b + uint64_t{width} * l; };
      return [=](unsigned l) { return base + (b - base + uint64_t{width} * l) % span; };
    case 2:
      if (!wrap) {  // two rows of 16 lanes (a 16x16 tile's warp)
        uint64_t row = uint64_t{width} * (16 + rng() % 3);
        return [=](unsigned l) { return b + uint64_t{width} * (l % 16) + row * (l / 16); };
      }
      return [=](unsigned l) { return base + (b - base + uint64_t{width} * (l % 16)) % span; };
    case 3: {
      unsigned odd = rng() % 32;
      uint64_t other = base + width * (rng() % slots);
      return [=](unsigned l) { return l == odd ? other : b; };
    }
    case 4: {  // sub-word: lanes straddle words, or several lanes per word
      unsigned shift = rng() % 4;
      return [=](unsigned l) { return base + (b - base + shift + l) % span; };
    }
    default: {
      std::array<uint64_t, 32> a;
      for (auto& x : a) x = base + width * (rng() % slots);
      return [=](unsigned l) { return a[l]; };
    }
  }
}

std::vector<Event> random_block(std::mt19937& rng, const Instrs& I) {
  std::vector<Event> events;
  static constexpr unsigned kWidths[] = {1, 2, 4, 4, 4, 8, 16};
  int n = 20 + static_cast<int>(rng() % 60);
  for (int i = 0; i < n; ++i) {
    Event e;
    unsigned r = rng() % 20;
    if (r >= 16 && !events.empty() && events.back().kind == Event::kMemory) {
      // The last access again: as it was (a re-read), by the other warp,
      // with other lanes, or moved by a few words (a stream's next part).
      e = events.back();
      unsigned v = rng() % 4;
      if (v == 1) e.access.warp ^= 1;
      if (v == 2) e.access.mask = static_cast<uint32_t>(rng()) | 1u;
      if (v == 3) {
        int64_t shift = static_cast<int64_t>(e.access.width) * (static_cast<int>(rng() % 9) - 4);
        for (uint64_t& x : e.access.addr) x += static_cast<uint64_t>(shift);
      }
    } else if (r == 0) {
      e.kind = Event::kBarrier;
    } else if (r == 1) {
      e.kind = Event::kSyncwarp;
      e.warp = rng() % 2;
    } else {
      bool shared = rng() % 2;
      unsigned width = kWidths[rng() % 7];
      emu::MemOp op;
      const emu::InstrInfo* in;
      unsigned o = rng() % 10;
      if (o < 5) {
        op = emu::MemOp::Load;
        in = shared ? (o % 2 ? &I.ld_s : &I.ld_s2) : (o % 2 ? &I.ld_g : &I.ld_g2);
      } else if (o < 8) {
        op = emu::MemOp::Store;
        in = shared ? &I.st_s : &I.st_g;
      } else if (o == 8) {
        op = emu::MemOp::Atomic;
        width = 4;
        bool cas = rng() % 2;
        in = shared ? (cas ? &I.cas_s : &I.at_s) : (cas ? &I.cas_g : &I.at_g);
      } else {
        op = shared ? emu::MemOp::CpAsyncStore : emu::MemOp::CpAsyncLoad;
        in = &I.cp;
      }
      uint32_t mask = rng() % 3 == 0 ? static_cast<uint32_t>(rng()) | 1u : kAll;
      // 64 bytes of each space, so that lanes and warps collide; a shared
      // access now and then runs past the 256-byte array.
      uint64_t base = shared ? (rng() % 50 == 0 ? 240 : 0) : kGlobal;
      uint32_t warp = rng() % 2;
      e.access = access(shared ? emu::Space::Shared : emu::Space::Global, op, width, in, warp,
                        pattern(rng, base, width, 64, shared), mask);
    }
    events.push_back(e);
  }
  return events;
}

// The blocks' shared memory: its variables and size, warps per block.
struct Shape {
  MemoryLayout layout{{{"s", 0, 256}}, 256, 64};
  uint32_t shared_bytes = 256, dynamic_shared = 0, warps = 2;
};

std::vector<Finding> run(const std::vector<std::vector<Event>>& blocks, const Instrs& I, bool fast,
                         const Shape& shape = {}) {
  DefectCheck check(shape.layout, fast);
  emu::KernelInfo k;
  k.block = {32 * shape.warps, 1, 1};
  k.grid = {static_cast<uint32_t>(blocks.size()), 1, 1};
  k.dynamic_shared = shape.dynamic_shared;
  check.on_kernel_begin(k);
  for (uint32_t b = 0; b < blocks.size(); ++b) {
    auto o = check.make_block_observer({b, 0, 0});
    o->on_block_begin({b, 0, 0}, k.block, shape.shared_bytes);
    uint64_t epoch = 0;
    for (Event e : blocks[b]) {
      switch (e.kind) {
        case Event::kMemory:
          e.access.block = {b, 0, 0};
          o->on_memory(e.access);
          break;
        case Event::kBarrier:
          for (uint32_t w = 0; w < shape.warps; ++w)
            o->on_barrier(
                {emu::BarrierKind::Sync, true, 0, k.block.x, kAll, kAll, &I.bar, {b, 0, 0}, w});
          o->on_barrier_release({0, ++epoch});
          break;
        case Event::kSyncwarp:
          o->on_warp_sync({kAll, kAll, &I.sw, {b, 0, 0}, e.warp});
          break;
      }
    }
    o->on_block_end({b, 0, 0});
    check.finish_block({b, 0, 0}, std::move(o));
  }
  check.on_kernel_end(true);
  return check.findings();
}

// Streams made by `make(rng)` for seeds 0..seeds-1, each run through the
// fast and the general path: the findings must be the same, field by field
// (a failure names the seed). Returns how many streams had findings.
template <class Make>
size_t same_findings_on(uint32_t seeds, const Instrs& I, const Shape& shape, Make make) {
  size_t with_findings = 0;
  for (uint32_t seed = 0; seed < seeds; ++seed) {
    std::mt19937 rng(seed);
    std::vector<std::vector<Event>> blocks = make(rng);
    std::string fast = describe(run(blocks, I, true, shape)),
                general = describe(run(blocks, I, false, shape));
    EXPECT_EQ(fast, general) << "seed " << seed;
    if (fast != general) break;
    with_findings += !general.empty();
  }
  return with_findings;
}

TEST(DefectsFastPath, SameFindingsAsTheGeneralPathOnRandomStreams) {
  Instrs I;
  size_t with_findings = same_findings_on(400, I, Shape{}, [&](std::mt19937& rng) {
    std::vector<std::vector<Event>> blocks(1 + rng() % 3);
    for (auto& b : blocks) b = random_block(rng, I);
    return blocks;
  });
  // The streams must exercise the reporting paths, not only clean ones.
  EXPECT_GT(with_findings, 100u);
}

// Also with long read-mostly streams: words read by one thread many times,
// broadcasts repeated across epochs, then one racing lane.
TEST(DefectsFastPath, SameFindingsOnReadMostlyStreams) {
  Instrs I;
  same_findings_on(100, I, Shape{}, [&](std::mt19937& rng) {
    std::vector<Event> block;
    // Initialize the shared words, then mostly loads with a rare store.
    Event init;
    init.access = access(emu::Space::Shared, emu::MemOp::Store, 4, &I.st_s, 0,
                         [](unsigned l) { return 4 * l; });
    block.push_back(init);
    Event bar;
    bar.kind = Event::kBarrier;
    block.push_back(bar);
    for (int i = 0; i < 200; ++i) {
      Event e;
      unsigned r = rng() % 40;
      if (r == 0) {
        e.kind = Event::kBarrier;
      } else {
        bool shared = rng() % 2;
        bool store = r == 1;
        unsigned width = store ? 4 : (rng() % 2 ? 4 : 16);
        const emu::InstrInfo* in = shared ? (store ? &I.st_s : (width == 4 ? &I.ld_s : &I.ld_s2))
                                          : (store ? &I.st_g : (width == 4 ? &I.ld_g : &I.ld_g2));
        e.access = access(shared ? emu::Space::Shared : emu::Space::Global,
                          store ? emu::MemOp::Store : emu::MemOp::Load, width, in, rng() % 2,
                          pattern(rng, shared ? 0 : kGlobal, width, 128, shared),
                          rng() % 4 ? kAll : static_cast<uint32_t>(rng()) | 1u);
      }
      block.push_back(e);
    }
    return std::vector<std::vector<Event>>{block, block};
  });
}

// A broadcast load that every lane of two warps reads (quiet for every
// thread), then a warp whose lanes all read the word but one, which reads a
// word the other warp wrote in this epoch: one race, naming that lane.
TEST(DefectsFastPath, AlmostBroadcastWithOneRacingLane) {
  Instrs I;
  for (bool fast : {true, false}) {
    std::vector<Event> block(5);
    block[0].access = access(emu::Space::Shared, emu::MemOp::Store, 4, &I.st_s, 0,
                             [](unsigned l) { return 4 * l; });
    block[1].kind = Event::kBarrier;
    for (uint32_t w = 0; w < 2; ++w)
      block[2 + w].access =
          access(emu::Space::Shared, emu::MemOp::Load, 4, &I.ld_s, w, [](unsigned) { return 8; });
    block[4].access = access(
        emu::Space::Shared, emu::MemOp::Store, 4, &I.st_s, 1, [](unsigned) { return 200; },
        1u << 3);  // thread 35 writes word 50
    block.push_back(block[2]);
    block.back().access.addr[7] = 200;  // thread 7 reads it: RAW with thread 35
    auto f = run({block}, I, fast);
    ASSERT_EQ(f.size(), 1u) << describe(f);
    EXPECT_EQ(f[0].kind, FindingKind::Race);
    EXPECT_NE(f[0].message.find("between thread 35 and thread 7"), std::string::npos)
        << f[0].message;
    EXPECT_EQ(f[0].count, 1u);
  }
}

// Global words streamed in once per thread (float4 loads, unit stride):
// no finding; another thread's store to one of them afterwards is a WAR
// naming the first reader, and a second block's store a global-race.
TEST(DefectsFastPath, StreamedGlobalWordsKeepTheirReader) {
  Instrs I;
  for (bool fast : {true, false}) {
    std::vector<Event> block(3);
    for (uint32_t w = 0; w < 2; ++w)
      block[w].access = access(emu::Space::Global, emu::MemOp::Load, 16, &I.ld_g2, w,
                               [=](unsigned l) { return kGlobal + 16 * (32 * w + l); });
    // Thread 40 stores into the third word of thread 5's float4.
    block[2].access = access(
        emu::Space::Global, emu::MemOp::Store, 4, &I.st_g, 1,
        [](unsigned) { return kGlobal + 16 * 5 + 8; }, 1u << 8);
    auto f = run({block, {block[0]}}, I, fast);
    ASSERT_EQ(f.size(), 2u) << describe(f);
    EXPECT_EQ(f[0].kind, FindingKind::Race);
    EXPECT_NE(f[0].message.find("WAR hazard on global byte 0x1058 between thread 5 and thread 40"),
              std::string::npos)
        << f[0].message;
    EXPECT_EQ(f[1].kind, FindingKind::GlobalRace);
    EXPECT_EQ(f[1].involved[0].thread, 40u);
  }
}

// Sub-word global reads (bytes of one word by four lanes), then a whole
// word store by another warp: the race names the byte's own reader.
TEST(DefectsFastPath, SubWordGlobalReadersStayPerByte) {
  Instrs I;
  for (bool fast : {true, false}) {
    std::vector<Event> block(2);
    block[0].access = access(
        emu::Space::Global, emu::MemOp::Load, 1, &I.ld_g, 0,
        [](unsigned l) { return kGlobal + 2 + l; }, 0xfu);
    block[1].access = access(
        emu::Space::Global, emu::MemOp::Store, 4, &I.st_g, 1, [](unsigned) { return kGlobal + 4; },
        1u);
    auto f = run({block}, I, fast);
    ASSERT_EQ(f.size(), 1u) << describe(f);
    // Lanes 2 and 3 read bytes 0x1004 and 0x1005; the store's first byte is 0x1004.
    EXPECT_NE(f[0].message.find("global byte 0x1004 between thread 2 and thread 32"),
              std::string::npos)
        << f[0].message;
  }
}

// A thread reading its own global word again in a later epoch, from
// another instruction, then another warp writing it: the WAR names the
// later read's instruction.
TEST(DefectsFastPath, RereadFromAnotherInstructionIsTheReaderOfRecord) {
  Instrs I;
  for (bool fast : {true, false}) {
    std::vector<Event> block(4);
    block[0].access = access(emu::Space::Global, emu::MemOp::Load, 4, &I.ld_g, 0,
                             [](unsigned l) { return kGlobal + 4 * l; });
    block[1].kind = Event::kBarrier;
    block[2].access = access(
        emu::Space::Global, emu::MemOp::Load, 16, &I.ld_g2, 0,
        [](unsigned l) { return kGlobal + 16 * l; }, 1u);
    block[3].access = access(
        emu::Space::Global, emu::MemOp::Store, 4, &I.st_g, 1, [](unsigned) { return kGlobal + 8; },
        1u);
    auto f = run({block}, I, fast);
    ASSERT_EQ(f.size(), 1u) << describe(f);
    EXPECT_EQ(f[0].involved[0].ptx_line, I.ld_g2.ptx_line);
    EXPECT_EQ(f[0].involved[0].thread, 0u);
  }
}

// A coalesced stream continued in a later barrier epoch (or after a
// __syncwarp()) by the same instruction and warp: the words read then are
// read in the new epoch, so another thread's store to one of them in that
// epoch is a WAR (warp-race for the same warp), and one to a word read
// before the barrier is not.
TEST(DefectsFastPath, StreamContinuedInALaterEpoch) {
  Instrs I;
  for (bool syncwarp : {false, true})
    for (bool fast : {true, false}) {
      std::vector<Event> block(5);
      block[0].access = access(
          emu::Space::Global, emu::MemOp::Load, 4, &I.ld_g, 0,
          [](unsigned l) { return kGlobal + 4 * l; }, 0xffu);
      block[1].kind = syncwarp ? Event::kSyncwarp : Event::kBarrier;
      block[2].access = access(
          emu::Space::Global, emu::MemOp::Load, 4, &I.ld_g, 0,
          [](unsigned l) { return kGlobal + 4 * l; }, 0xff00u);
      // Thread 9 read word 9 after the barrier; thread 3 read word 3 before.
      uint32_t writer_warp = syncwarp ? 0 : 1;
      block[3].access = access(
          emu::Space::Global, emu::MemOp::Store, 4, &I.st_g, writer_warp,
          [](unsigned) { return kGlobal + 4 * 9; }, 1u << 20);
      block[4].access = access(
          emu::Space::Global, emu::MemOp::Store, 4, &I.st_g, writer_warp,
          [](unsigned) { return kGlobal + 4 * 3; }, 1u << 21);
      auto f = run({block}, I, fast);
      ASSERT_EQ(f.size(), 1u) << describe(f);
      EXPECT_EQ(f[0].kind, syncwarp ? FindingKind::WarpRace : FindingKind::Race);
      EXPECT_EQ(f[0].involved[0].thread, 9u) << describe(f);
    }
}

// Launch-wide owners of streamed lines: block 0 reads words 0-7 of a line,
// block 1 words 0-15, block 2 writes words 3 and 12. Word 3's owner is
// still block 0 (the first reader), word 12's is block 1.
TEST(DefectsFastPath, StreamedLinesKeepTheirFirstReaderAcrossBlocks) {
  Instrs I;
  for (bool fast : {true, false}) {
    std::vector<std::vector<Event>> blocks(3, std::vector<Event>(1));
    for (uint32_t b = 0; b < 2; ++b)
      blocks[b][0].access = access(
          emu::Space::Global, emu::MemOp::Load, 4, &I.ld_g, 0,
          [](unsigned l) { return kGlobal + 4 * l; }, b ? 0xffffu : 0xffu);
    blocks[2][0].access = access(
        emu::Space::Global, emu::MemOp::Store, 4, &I.st_g, 0,
        [](unsigned l) { return kGlobal + 4 * (l == 1 ? 12 : 3); }, 3u);
    auto f = run(blocks, I, fast);
    ASSERT_EQ(f.size(), 1u) << describe(f);  // merged: one finding, two words
    EXPECT_EQ(f[0].kind, FindingKind::GlobalRace);
    EXPECT_EQ(f[0].count, 8u) << describe(f);
    EXPECT_EQ(f[0].involved[0].block.x, 0u) << describe(f);  // word 3, reported first
    EXPECT_NE(f[0].message.find("global byte 0x100c: read by block (0,0,0)"), std::string::npos)
        << f[0].message;
  }
}

// Lanes reading a word another lane of the warp read first, by broadcast or
// by a half-warp repeat, are its second reader: when the first reader then
// writes the word, that is a warp-race with the second.
TEST(DefectsFastPath, RepeatedLanesAreSecondReaders) {
  Instrs I;
  for (bool half : {false, true})
    for (bool fast : {true, false}) {
      std::vector<Event> block(4);
      block[0].access = access(emu::Space::Shared, emu::MemOp::Store, 4, &I.st_s, 1,
                               [](unsigned l) { return 4 * l; });
      block[1].kind = Event::kBarrier;
      block[2].access = access(emu::Space::Shared, emu::MemOp::Load, 4, &I.ld_s, 0,
                               [=](unsigned l) { return half ? 4 * (l % 16) : 20; });
      block[3].access = access(
          emu::Space::Shared, emu::MemOp::Store, 4, &I.st_s, 0,
          [=](unsigned) { return half ? 0 : 20; }, 1u);
      auto f = run({block}, I, fast);
      ASSERT_EQ(f.size(), 1u) << describe(f);
      EXPECT_EQ(f[0].kind, FindingKind::WarpRace);
      EXPECT_EQ(f[0].involved[0].thread, half ? 16u : 1u) << describe(f);
    }
}

// Tile kernels' shared traffic: whole warps storing and loading rows,
// columns and broadcasts (each half-warp evenly spaced, as the emulator's
// affine path moves them) in two static variables and the dynamic window,
// some words left unwritten, with barriers, __syncwarp(), atomics, partial
// masks, sub-word and single-lane accesses among them: the held-back loads
// (replayed before any other shared access, dropped at a barrier) and the
// whole-warp stores must leave the findings of the general path.
TEST(DefectsFastPath, SameFindingsOnTileStreams) {
  Instrs I;
  Shape shape;
  shape.layout = MemoryLayout{{{"a", 0, 512}, {"b", 512, 510}}, 1024, 0};
  shape.shared_bytes = 1024 + 256;
  shape.dynamic_shared = 256;
  shape.warps = 4;
  size_t with_findings = same_findings_on(300, I, shape, [&](std::mt19937& rng) {
    std::vector<std::vector<Event>> blocks(1 + rng() % 2);
    for (auto& block : blocks) {
      // Most words written first, so that later loads read initialized words.
      for (uint32_t w = 0; w < 4; ++w)
        for (uint64_t row = 0; row < 1280; row += 128 * 4) {
          if (rng() % 8 == 0) continue;
          Event e;
          e.access = access(emu::Space::Shared, emu::MemOp::Store, 4, &I.st_s, w,
                            [=](unsigned l) { return row + 128 * w + 4 * l; });
          block.push_back(e);
        }
      Event bar;
      bar.kind = Event::kBarrier;
      block.push_back(bar);
      int n = 30 + static_cast<int>(rng() % 80);
      for (int i = 0; i < n; ++i) {
        Event e;
        unsigned r = rng() % 100;
        if (r < 8) {
          e.kind = Event::kBarrier;
        } else if (r < 12) {
          e.kind = Event::kSyncwarp;
          e.warp = rng() % 4;
        } else {
          static constexpr unsigned kWidths[] = {4, 4, 4, 8, 16, 1, 2};
          static constexpr uint64_t kStrides[] = {0, 4, 8, 16, 32, 64, 128, 132};
          static constexpr uint64_t kRows[] = {0, 64, 128, 256, 520};
          unsigned width = kWidths[rng() % (r < 90 ? 5 : 7)];
          uint64_t stride = std::max<uint64_t>(kStrides[rng() % 8], r % 3 ? width : 0);
          uint64_t a0 = width * (rng() % (1280 / width)), a1 = a0 + kRows[rng() % 5];
          if (rng() % 4 == 0) std::swap(a0, a1);
          emu::MemOp op = r < 70   ? emu::MemOp::Load
                          : r < 95 ? emu::MemOp::Store
                                   : emu::MemOp::Atomic;
          if (op == emu::MemOp::Atomic) width = 4;
          const emu::InstrInfo* in = op == emu::MemOp::Load    ? (width == 16 ? &I.ld_s2 : &I.ld_s)
                                     : op == emu::MemOp::Store ? &I.st_s
                                                               : &I.at_s;
          uint32_t mask = rng() % 8 ? kAll : (rng() % 2 ? 1u << rng() % 32 : uint32_t(rng()) | 1u);
          e.access = access(
              emu::Space::Shared, op, width, in, rng() % 4,
              [=](unsigned l) { return (l < 16 ? a0 : a1) + stride * (l % 16); }, mask);
          if (rng() % 10 == 0) e.access.addr[rng() % 32] += width;  // one lane off the pattern
        }
        block.push_back(e);
      }
    }
    return blocks;
  });
  EXPECT_GT(with_findings, 60u);
}

// Warp-synchronous code (the last warp of a tree reduction, a warp's
// scan): one warp stores and loads shared words at shifting offsets with
// __syncwarp() between most steps, its lanes reading what other lanes
// wrote; now and then a step without the __syncwarp(), another warp's
// access, an atomic, a barrier. Stores and loads ordered by a __syncwarp()
// take the plain paths; their findings must be the general path's.
TEST(DefectsFastPath, SameFindingsOnWarpSynchronousStreams) {
  Instrs I;
  Shape shape;
  shape.warps = 4;
  size_t with_findings = same_findings_on(400, I, shape, [&](std::mt19937& rng) {
    std::vector<std::vector<Event>> blocks(1 + rng() % 2);
    for (auto& block : blocks) {
      for (uint32_t w = 0; w < 2; ++w) {
        Event e;
        e.access = access(emu::Space::Shared, emu::MemOp::Store, 4, &I.st_s, w,
                          [=](unsigned l) { return 128 * w + 4 * l; });
        block.push_back(e);
      }
      Event bar;
      bar.kind = Event::kBarrier;
      if (rng() % 4) block.push_back(bar);
      int n = 20 + static_cast<int>(rng() % 60);
      for (int i = 0; i < n; ++i) {
        unsigned r = rng() % 100;
        Event e;
        if (r < 30) {
          e.kind = Event::kSyncwarp;
          e.warp = rng() % 8 ? 0 : 1 + rng() % 3;
        } else if (r < 33) {
          e.kind = Event::kBarrier;
        } else {
          uint32_t warp = rng() % 8 ? 0 : 1 + rng() % 3;
          uint64_t off = rng() % 40, span = 64;
          emu::MemOp op = r < 65   ? emu::MemOp::Load
                          : r < 90 ? emu::MemOp::Store
                                   : emu::MemOp::Atomic;
          const emu::InstrInfo* in = op == emu::MemOp::Load    ? &I.ld_s
                                     : op == emu::MemOp::Store ? &I.st_s
                                     : rng() % 2               ? &I.cas_s
                                                               : &I.at_s;
          uint32_t mask = rng() % 2   ? kAll
                          : rng() % 2 ? 0xffffu >> (rng() % 16)
                                      : uint32_t(rng()) | 1u;
          e.access = access(
              emu::Space::Shared, op, 4, in, warp,
              [=](unsigned l) { return 4 * ((l + off) % span); }, mask);
        }
        block.push_back(e);
      }
    }
    return blocks;
  });
  EXPECT_GT(with_findings, 100u);
}

// A broadcast global load takes its first two lanes one by one; when the
// second lane cannot continue the line (here: the line's second readers
// are of warp 1's later warp-sync epoch), it and the lanes after it take
// the per-word path, and lane 1 stays a reader of record: lane 0's write
// of the word, without a __syncwarp(), is a warp-race with lane 1's read.
TEST(DefectsFastPath, BroadcastWhoseSecondLaneLeavesTheLine) {
  Instrs I;
  std::vector<Event> block;
  auto mem = [&](emu::MemOp op, const emu::InstrInfo* in, uint32_t warp,
                 std::function<uint64_t(unsigned)> f, uint32_t mask) {
    Event e;
    e.access = access(emu::Space::Global, op, 4, in, warp, f, mask);
    block.push_back(e);
  };
  mem(
      emu::MemOp::Load, &I.ld_g, 0, [](unsigned l) { return kGlobal + 4 * l; }, 0xffffu);
  Event sync;
  sync.kind = Event::kSyncwarp;
  sync.warp = 1;
  block.push_back(sync);
  mem(
      emu::MemOp::Load, &I.ld_g, 1, [](unsigned l) { return kGlobal + 4 * l; }, 0xffffu);
  mem(
      emu::MemOp::Load, &I.ld_g, 0, [](unsigned) { return kGlobal + 80; }, kAll);
  mem(
      emu::MemOp::Store, &I.st_g, 0, [](unsigned) { return kGlobal + 80; }, 1u);
  auto fast = run({block}, I, true), general = run({block}, I, false);
  EXPECT_EQ(describe(fast), describe(general));
  ASSERT_EQ(fast.size(), 1u) << describe(fast);
  EXPECT_EQ(fast[0].kind, FindingKind::WarpRace);
  EXPECT_NE(fast[0].message.find("thread 1 and thread 0"), std::string::npos) << fast[0].message;
}

// Loads held back in an epoch without shared writes are replayed, in order,
// before a later store of the epoch: the store's WAR names the first two
// readers of the word as the general path records them; after a barrier
// they are gone (the store is clean).
TEST(DefectsFastPath, HeldBackLoadsAreTheReadersOfRecord) {
  Instrs I;
  for (bool barrier : {false, true})
    for (bool fast : {true, false}) {
      std::vector<Event> block(6);
      block[0].access = access(emu::Space::Shared, emu::MemOp::Store, 4, &I.st_s, 0,
                               [](unsigned l) { return 4 * l; });
      block[1].kind = Event::kBarrier;
      // Warp 1 reads word 5 by broadcast; then warp 0 reads words 0-15 twice.
      block[2].access =
          access(emu::Space::Shared, emu::MemOp::Load, 4, &I.ld_s, 1, [](unsigned) { return 20; });
      block[3].access = access(emu::Space::Shared, emu::MemOp::Load, 4, &I.ld_s2, 0,
                               [](unsigned l) { return 4 * (l % 16); });
      block[4].kind = barrier ? Event::kBarrier : Event::kSyncwarp;
      // Thread 5 writes word 5: readers of record are threads 32 and 33.
      block[5].access = access(
          emu::Space::Shared, emu::MemOp::Store, 4, &I.st_s, 0, [](unsigned) { return 20; },
          1u << 5);
      auto f = run({block}, I, fast);
      if (barrier) {
        EXPECT_TRUE(f.empty()) << describe(f);
        continue;
      }
      ASSERT_EQ(f.size(), 1u) << describe(f);
      EXPECT_EQ(f[0].kind, FindingKind::Race);
      EXPECT_NE(f[0].message.find("WAR hazard on shared byte 20 between thread 32 and thread 5"),
                std::string::npos)
          << f[0].message;
    }
}

// A load held back, then a __syncwarp() of its warp, then a lane of that
// warp writing a word another lane read: the __syncwarp() orders the two
// (no finding), as it would have had the load been recorded at once; with
// the other warp's __syncwarp() instead, a warp-race.
TEST(DefectsFastPath, HeldBackLoadsKeepTheirWarpSyncEpoch) {
  Instrs I;
  for (uint32_t synced_warp : {0u, 1u})
    for (bool fast : {true, false}) {
      std::vector<Event> block(5);
      block[0].access = access(emu::Space::Shared, emu::MemOp::Store, 4, &I.st_s, 1,
                               [](unsigned l) { return 4 * l; });
      block[1].kind = Event::kBarrier;
      // Word 5 read by threads 5 and 21 (a half-warp repeat).
      block[2].access = access(emu::Space::Shared, emu::MemOp::Load, 4, &I.ld_s, 0,
                               [](unsigned l) { return 4 * (l % 16); });
      block[3].kind = Event::kSyncwarp;
      block[3].warp = synced_warp;
      block[4].access = access(
          emu::Space::Shared, emu::MemOp::Store, 4, &I.st_s, 0, [](unsigned) { return 20; },
          1u << 5);
      auto f = run({block}, I, fast);
      if (synced_warp == 0) {
        EXPECT_TRUE(f.empty()) << describe(f);
        continue;
      }
      ASSERT_EQ(f.size(), 1u) << describe(f);
      EXPECT_EQ(f[0].kind, FindingKind::WarpRace);
      EXPECT_EQ(f[0].involved[0].thread, 21u) << describe(f);
    }
}

// Streams over many lines and pages, by several blocks: coalesced loads
// and stores (unit stride, rows of a tile, a warp continuing where another
// stopped, misaligned so that warps share lines), re-reads, reads of
// words written before, atomics after streams, partial masks, barriers:
// the compact read and write lines and the page-wise line tables must give
// the general path's findings, in its order.
TEST(DefectsFastPath, SameFindingsOnStreamsOverManyLines) {
  Instrs I;
  emu::InstrInfo st_g4 = instr(14, 23, "st.global.v4.f32"), ld_g3 = instr(15, 24, "ld.global.f32");
  // Bases on a few pages, far apart and near each other (pages are 4 KB).
  const uint64_t bases[] = {kGlobal, kGlobal + 4096 * 3 - 64, kGlobal + 4096 * 7,
                            (uint64_t{1} << 40) + 128, kGlobal + 4096 * 3 + 4096 * 64};
  size_t with_findings = 0, global_races = 0;
  for (uint32_t seed = 0; seed < 300; ++seed) {
    std::mt19937 rng(seed);
    std::vector<std::vector<Event>> blocks(1 + rng() % 5);
    for (auto& block : blocks) {
      int n = 10 + static_cast<int>(rng() % 40);
      int last = -1;  // the block's last memory access
      for (int i = 0; i < n; ++i) {
        Event e;
        unsigned r = rng() % 24;
        if (r >= 18 && last >= 0) {
          // The last access continued (after a barrier or __syncwarp()
          // perhaps, as a tiled loop's next tile): by the other warp where
          // it stopped or half-way (or overlapping it), re-read or
          // re-written, or one row down.
          e = block[static_cast<size_t>(last)];
          unsigned v = rng() % 4;
          int64_t shift = 0;
          if (v == 0) shift = (rng() % 2 ? 32 : 16) * int64_t{e.access.width};
          if (v == 1) shift = 128 * (1 + static_cast<int64_t>(rng() % 4));
          if (v == 2) shift = int64_t{e.access.width} * (static_cast<int>(rng() % 9) - 4);
          for (uint64_t& x : e.access.addr) x += static_cast<uint64_t>(shift);
          if (rng() % 2) e.access.warp ^= 1;
        } else if (r == 0) {
          e.kind = Event::kBarrier;
        } else if (r == 1) {
          e.kind = Event::kSyncwarp;
          e.warp = rng() % 2;
        } else {
          unsigned o = rng() % 12;
          emu::MemOp op = o < 6    ? emu::MemOp::Load
                          : o < 11 ? emu::MemOp::Store
                                   : emu::MemOp::Atomic;
          unsigned width = op == emu::MemOp::Atomic ? 4 : rng() % 3 ? 4 : 16;
          const emu::InstrInfo* in = op == emu::MemOp::Atomic  ? (rng() % 2 ? &I.at_g : &I.cas_g)
                                     : op == emu::MemOp::Store ? (width == 4 ? &I.st_g : &st_g4)
                                     : width == 16             ? &I.ld_g2
                                     : rng() % 2               ? &I.ld_g
                                                               : &ld_g3;
          uint64_t base = bases[rng() % 5] + 128 * (rng() % 3);
          uint32_t mask = rng() % 4 == 0 ? static_cast<uint32_t>(rng()) | 1u : kAll;
          e.access = access(emu::Space::Global, op, width, in, rng() % 2,
                            pattern(rng, base, width, 256, false), mask);
        }
        if (e.kind == Event::kMemory) last = static_cast<int>(block.size());
        block.push_back(e);
      }
    }
    auto fast_f = run(blocks, I, true), general_f = run(blocks, I, false);
    std::string fast = describe(fast_f), general = describe(general_f);
    ASSERT_EQ(fast, general) << "seed " << seed;
    with_findings += !general.empty();
    for (const Finding& f : general_f) global_races += f.kind == FindingKind::GlobalRace;
  }
  EXPECT_GT(with_findings, 100u);
  EXPECT_GT(global_races, 100u);
}

// A tile written once per word by two warps of one instruction (a
// transpose's output rows, misaligned so that the warps share a line):
// clean alone; a later read by another thread of the block is a RAW naming
// the word's writer; another block reading a word is a global-race naming
// it, and the writer re-reading its own word is nothing.
TEST(DefectsFastPath, WordsWrittenOnceKeepTheirWriter) {
  Instrs I;
  for (bool fast : {true, false}) {
    std::vector<Event> block(2);
    for (uint32_t w = 0; w < 2; ++w)
      block[w].access = access(emu::Space::Global, emu::MemOp::Store, 4, &I.st_g, w,
                               [=](unsigned l) { return kGlobal + 64 + 4 * (32 * w + l); });
    // Thread 40 (warp 1, lane 8) wrote word 16 + 40 = 56; word 20 is thread 4's.
    std::vector<Event> own = block, other = block;
    own.push_back(block[1]);
    own.back().access.op = emu::MemOp::Load;
    own.back().access.instr = &I.ld_g;
    other.push_back(block[0]);
    other.back().access = access(
        emu::Space::Global, emu::MemOp::Load, 4, &I.ld_g, 0,
        [](unsigned) { return kGlobal + 4 * 56; }, 1u << 3);
    EXPECT_EQ(describe(run({own}, I, fast)), "");
    auto f = run({other}, I, fast);
    ASSERT_EQ(f.size(), 1u) << describe(f);
    EXPECT_EQ(f[0].kind, FindingKind::Race);
    EXPECT_NE(f[0].message.find("RAW hazard on global byte 0x10e0 between thread 40 and thread 3"),
              std::string::npos)
        << f[0].message;
    std::vector<Event> reader(1);
    reader[0].access = access(
        emu::Space::Global, emu::MemOp::Load, 4, &I.ld_g, 1,
        [](unsigned) { return kGlobal + 4 * 20; }, 1u);
    f = run({block, reader}, I, fast);
    ASSERT_EQ(f.size(), 1u) << describe(f);
    EXPECT_EQ(f[0].kind, FindingKind::GlobalRace);
    EXPECT_NE(f[0].message.find("global byte 0x1050: written by block (0,0,0) and read by block "
                                "(1,0,0)"),
              std::string::npos)
        << f[0].message;
    EXPECT_EQ(f[0].involved[0].thread, 4u);
    EXPECT_EQ(f[0].involved[1].thread, 32u);
  }
}

// A stream continued after the block's first global atomic: the words read
// after it follow the kernel's own protocol (no global-race), those read
// before do not. Block 1 writes word 3 (read before) and word 10 (after).
TEST(DefectsFastPath, StreamContinuedAfterAnAtomic) {
  Instrs I;
  for (bool fast : {true, false}) {
    std::vector<std::vector<Event>> blocks(2, std::vector<Event>(1));
    blocks[0].resize(3);
    for (uint32_t part = 0; part < 2; ++part)
      blocks[0][2 * part].access = access(
          emu::Space::Global, emu::MemOp::Load, 4, &I.ld_g, 0,
          [](unsigned l) { return kGlobal + 4 * l; }, part ? 0xff00u : 0xffu);
    blocks[0][1].access = access(
        emu::Space::Global, emu::MemOp::Atomic, 4, &I.at_g, 1,
        [](unsigned) { return kGlobal + 4096; }, 1u);
    blocks[1][0].access = access(
        emu::Space::Global, emu::MemOp::Store, 4, &I.st_g, 0,
        [](unsigned l) { return kGlobal + 4 * (l ? 10 : 3); }, 3u);
    auto f = run(blocks, I, fast);
    ASSERT_EQ(f.size(), 1u) << describe(f);
    EXPECT_EQ(f[0].count, 4u) << describe(f);  // word 3's bytes only
    EXPECT_NE(f[0].message.find("global byte 0x100c: read by block (0,0,0)"), std::string::npos)
        << f[0].message;
  }
}

// A stream read again by other threads of the same epoch (the line's
// second readers): a later store by a word's first reader is a WAR with
// the second reader, a warp-race only when no __syncwarp() came between
// them. Lanes 0-15 of warp 0 read words 0-15; (after a __syncwarp() or
// not) lanes 16-23 read words 0-7, then (after one or not) lanes 24-31
// words 8-15; then (after one or not) thread 8 stores word 8: its second
// reader is thread 24, in the warp-sync epoch of its own read.
TEST(DefectsFastPath, SecondReadersKeepTheirWarpSyncEpoch) {
  Instrs I;
  emu::InstrInfo ld_g3 = instr(15, 24, "ld.global.f32");
  for (unsigned sync = 0; sync < 8; ++sync) {
    std::vector<Event> block;
    auto read = [&](uint32_t lanes, unsigned first_lane, unsigned first_word,
                    const emu::InstrInfo* in) {
      Event e;
      e.access = access(
          emu::Space::Global, emu::MemOp::Load, 4, in, 0,
          [=](unsigned l) { return kGlobal + 4 * (first_word + l - first_lane); }, lanes);
      block.push_back(e);
    };
    auto syncwarp = [&] {
      Event e;
      e.kind = Event::kSyncwarp;
      e.warp = 0;
      block.push_back(e);
    };
    read(0xffffu, 0, 0, &I.ld_g);
    if (sync & 4) syncwarp();
    read(0xff0000u, 16, 0, &ld_g3);
    if (sync & 1) syncwarp();
    read(0xff000000u, 24, 8, &ld_g3);
    if (sync & 2) syncwarp();
    Event st;
    st.access = access(
        emu::Space::Global, emu::MemOp::Store, 4, &I.st_g, 0,
        [](unsigned) { return kGlobal + 4 * 8; }, 1u << 8);
    block.push_back(st);
    auto fast = run({block}, I, true), general = run({block}, I, false);
    ASSERT_EQ(describe(fast), describe(general)) << "sync " << sync;
    // A warp-race unless a __syncwarp() came after thread 24's read.
    ASSERT_EQ(fast.size(), sync & 2 ? 0u : 1u) << describe(fast);
    if (!fast.empty()) {
      EXPECT_NE(fast[0].message.find("between thread 24 and thread 8"), std::string::npos)
          << fast[0].message;
    }
  }
}

// A line first read by several instructions (an unrolled loop's loads):
// a thread re-reading its word of an earlier epoch from another
// instruction becomes the word's reader of record with that instruction,
// so a later store by another lane is a warp-race naming it (PTX line 24).
TEST(DefectsFastPath, RereadInALineOfSeveralInstructions) {
  Instrs I;
  emu::InstrInfo ld_g3 = instr(15, 24, "ld.global.f32");
  auto read = [&](uint32_t lanes, const emu::InstrInfo* in) {
    Event e;
    e.access = access(
        emu::Space::Global, emu::MemOp::Load, 4, in, 0, [](unsigned l) { return kGlobal + 4 * l; },
        lanes);
    return e;
  };
  std::vector<Event> block;
  block.push_back(read(0xffu, &I.ld_g));
  block.emplace_back().kind = Event::kBarrier;
  block.push_back(read(0xff00u, &I.ld_g));
  block.push_back(read(0xff0000u, &ld_g3));
  block.push_back(read(1u << 3, &ld_g3));
  Event st;
  st.access = access(
      emu::Space::Global, emu::MemOp::Store, 4, &I.st_g, 0,
      [](unsigned) { return kGlobal + 4 * 3; }, 1u << 5);
  block.push_back(st);
  auto fast = run({block}, I, true), general = run({block}, I, false);
  ASSERT_EQ(describe(fast), describe(general));
  ASSERT_EQ(general.size(), 1u) << describe(general);
  EXPECT_EQ(general[0].involved[0].ptx_line, 24) << describe(general);
}

// Threads are kept in 16 bits on the stream path: a block whose last warp
// would need thread 65535 takes the general path there (the emulator's
// blocks are smaller; the checker must not depend on it).
// Global words read and then written back in place by their readers
// (`d[t] = f(d[t])`, BlockDefects::stream_in_place): whole lines or parts
// of them, one warp's store or several, in the read's epoch or a later one,
// with the things that must leave the compact form: a store by another
// lane or warp (a race), by another instruction, after a __syncwarp() or
// an atomic, re-reads after the write, and other blocks over the same
// words (global-race). Findings as the general path's, field by field.
TEST(DefectsFastPath, SameFindingsOnInPlaceUpdates) {
  Instrs I;
  emu::InstrInfo st_g2 = instr(14, 23, "st.global.v2.u32");
  size_t with_findings = same_findings_on(400, I, Shape{}, [&](std::mt19937& rng) {
    std::vector<std::vector<Event>> blocks(1 + rng() % 3);
    for (auto& block : blocks) {
      // Each warp reads its part of 64 words (whole or partial masks, 4 or
      // 8 bytes a lane), then the parts are written back.
      uint64_t base = kGlobal + 128 * (rng() % 2) + 4 * (rng() % 4 == 0 ? rng() % 8 : 0);
      unsigned width = rng() % 4 == 0 ? 8 : 4;
      std::array<uint32_t, 2> masks{};
      for (uint32_t w = 0; w < 2; ++w) {
        masks[w] = rng() % 3 == 0 ? static_cast<uint32_t>(rng()) | 1u : kAll;
        Event e;
        e.access = access(
            emu::Space::Global, emu::MemOp::Load, width, width == 4 ? &I.ld_g : &I.ld_g2, w,
            [=](unsigned l) { return base + uint64_t{width} * (32 * w + l); }, masks[w]);
        block.push_back(e);
      }
      if (rng() % 2) block.push_back(Event{Event::kBarrier});
      unsigned stores = 1 + rng() % 3;
      for (unsigned k = 0; k < stores; ++k) {
        for (uint32_t w = 0; w < 2; ++w) {
          Event e;
          unsigned r = rng() % 12;
          uint32_t warp = r == 0 ? w ^ 1 : w;  // another warp's words
          uint32_t mask = r == 1 ? static_cast<uint32_t>(rng()) | 1u : masks[w];
          int64_t shift = r == 2 ? static_cast<int64_t>(width) * (static_cast<int>(rng() % 5) - 2)
                                 : 0;  // other lanes' words
          const emu::InstrInfo* in = r == 3 ? &st_g2 : &I.st_g;
          e.access = access(
              emu::Space::Global, emu::MemOp::Store, width, in, warp,
              [=](unsigned l) {
                return static_cast<uint64_t>(
                    static_cast<int64_t>(base + uint64_t{width} * (32 * w + l)) + shift);
              },
              mask);
          block.push_back(e);
          if (r == 4) block.push_back(Event{Event::kSyncwarp, {}, w});
          if (r == 5) block.push_back(Event{Event::kBarrier});
          if (r == 6) {  // a re-read after the write
            Event re = block[w];
            re.access.warp = rng() % 2;
            block.push_back(re);
          }
          if (r == 7) {
            Event at;
            at.access = access(
                emu::Space::Global, emu::MemOp::Atomic, 4, &I.at_g, w,
                [=](unsigned) { return kGlobal + 4096; }, 1u);
            block.push_back(at);
          }
        }
      }
    }
    return blocks;
  });
  EXPECT_GT(with_findings, 100u);
}

// Strided accesses, one lane per 128-byte line (a column of a row-major
// array, BlockDefects::stream_word): reads and writes by both warps at
// neighbouring columns, again in later epochs or after a __syncwarp(), from
// a second instruction now and then, over one to three blocks.
TEST(DefectsFastPath, SameFindingsOnStridedStreams) {
  Instrs I;
  size_t with_findings = same_findings_on(400, I, Shape{}, [&](std::mt19937& rng) {
    std::vector<std::vector<Event>> blocks(1 + rng() % 3);
    for (auto& block : blocks) {
      int n = 10 + static_cast<int>(rng() % 30);
      for (int i = 0; i < n; ++i) {
        Event e;
        unsigned r = rng() % 16;
        if (r == 0) {
          e.kind = Event::kBarrier;
        } else if (r == 1) {
          e.kind = Event::kSyncwarp;
          e.warp = rng() % 2;
        } else {
          bool store = rng() % 3 == 0;
          const emu::InstrInfo* in =
              store ? &I.st_g : (rng() % 8 == 0 ? &I.ld_g2 : &I.ld_g);  // ld_g2: 16 bytes
          unsigned width = in == &I.ld_g2 ? 16 : 4;
          uint64_t column = kGlobal + 4 * (rng() % 3), stride = 128 * (1 + rng() % 2);
          uint32_t mask = rng() % 3 == 0 ? static_cast<uint32_t>(rng()) | 1u : kAll;
          e.access = access(
              emu::Space::Global, store ? emu::MemOp::Store : emu::MemOp::Load, width, in,
              rng() % 2, [=](unsigned l) { return column + stride * l; }, mask);
        }
        block.push_back(e);
      }
    }
    return blocks;
  });
  EXPECT_GT(with_findings, 100u);
}

// dynamicReverse's global side: each thread reads d[t], then after a
// barrier writes d[t]. No finding; a second block doing the same to the
// same words races with the first (written by both), naming the stores.
TEST(DefectsFastPath, InPlaceUpdateIsAWriteOfRecord) {
  Instrs I;
  for (bool fast : {true, false}) {
    std::vector<Event> block(5);
    for (uint32_t w = 0; w < 2; ++w) {
      block[w].access = access(emu::Space::Global, emu::MemOp::Load, 4, &I.ld_g, w,
                               [=](unsigned l) { return kGlobal + 4 * (32 * w + l); });
      block[3 + w].access = block[w].access;
      block[3 + w].access.op = emu::MemOp::Store;
      block[3 + w].access.instr = &I.st_g;
    }
    block[2].kind = Event::kBarrier;
    EXPECT_EQ(describe(run({block}, I, fast)), "");
    auto f = run({block, block}, I, fast);
    ASSERT_EQ(f.size(), 1u) << describe(f);
    EXPECT_EQ(f[0].kind, FindingKind::GlobalRace);
    EXPECT_NE(f[0].message.find("global byte 0x1000: written by block (0,0,0) and written by "
                                "block (1,0,0)"),
              std::string::npos)
        << f[0].message;
    EXPECT_EQ(f[0].involved[0].ptx_line, 18);  // the store, not the load
    EXPECT_EQ(f[0].count, 256u);
  }
}

// Each thread's own words updated in place again and again with no
// barrier (a grid-stride `y[i] = a * x[i] + y[i]`: Hazards::own_global_word
// takes them), now and then by a shifted warp, the other warp, a partial
// mask, a second reader or after a barrier or __syncwarp(): a race that
// only the general path sees must still be reported, the same.
TEST(DefectsFastPath, SameFindingsOnOwnWordUpdates) {
  Instrs I;
  size_t with_findings = same_findings_on(400, I, Shape{}, [&](std::mt19937& rng) {
    std::vector<std::vector<Event>> blocks(1 + rng() % 2);
    for (auto& block : blocks) {
      unsigned rounds = 2 + rng() % 6;
      for (unsigned k = 0; k < rounds; ++k) {
        for (uint32_t w = 0; w < 2; ++w) {
          unsigned r = rng() % 16;
          uint32_t warp = r == 0 ? w ^ 1 : w;
          uint32_t mask = r == 1 ? static_cast<uint32_t>(rng()) | 1u : kAll;
          int64_t shift = r == 2 ? 4 * (static_cast<int>(rng() % 5) - 2) : 0;
          auto own = [=](uint64_t base) {
            return [=](unsigned l) {
              return static_cast<uint64_t>(static_cast<int64_t>(base + 4 * (32 * w + l)) + shift);
            };
          };
          Event x, y, st;
          x.access = access(emu::Space::Global, emu::MemOp::Load, 4, &I.ld_g, warp,
                            own(kGlobal + 512), mask);
          y.access =
              access(emu::Space::Global, emu::MemOp::Load, 4, &I.ld_g, warp, own(kGlobal), mask);
          st.access = y.access;
          st.access.op = emu::MemOp::Store;
          st.access.instr = &I.st_g;
          if (r == 3) st.access.warp ^= 1;  // the other warp writes this warp's words
          block.push_back(x);
          block.push_back(y);
          if (r == 4) {  // a second reader before the write
            Event y2 = y;
            y2.access.warp ^= 1;
            block.push_back(y2);
          }
          block.push_back(st);
          if (r == 5) block.push_back(Event{Event::kBarrier});
          if (r == 6) block.push_back(Event{Event::kSyncwarp, {}, w});
        }
      }
    }
    return blocks;
  });
  EXPECT_GT(with_findings, 100u);
}

// Three rounds of each thread updating its own word (nothing to report),
// then warp 0 stores to its neighbours' words: one WAW race per lane but
// the last, each naming both threads, on both paths.
TEST(DefectsFastPath, OwnWordsThenANeighboursStore) {
  Instrs I;
  for (bool fast : {true, false}) {
    std::vector<Event> block;
    for (int k = 0; k < 3; ++k) {
      Event ld, st;
      ld.access = access(emu::Space::Global, emu::MemOp::Load, 4, &I.ld_g, 0,
                         [](unsigned l) { return kGlobal + 4 * l; });
      st.access = ld.access;
      st.access.op = emu::MemOp::Store;
      st.access.instr = &I.st_g;
      block.push_back(ld);
      block.push_back(st);
    }
    EXPECT_EQ(describe(run({block}, I, fast)), "");
    Event odd;
    odd.access = access(
        emu::Space::Global, emu::MemOp::Store, 4, &I.st_g, 0,
        [](unsigned l) { return kGlobal + 4 * (l + 1); }, 0x7fffffffu);
    block.push_back(odd);
    auto f = run({block}, I, fast);
    ASSERT_EQ(f.size(), 1u) << describe(f);
    EXPECT_EQ(f[0].kind, FindingKind::WarpRace);
    EXPECT_NE(f[0].message.find("WAW hazard on global byte 0x1004 between thread 1 and thread 0"),
              std::string::npos)
        << f[0].message;
    EXPECT_EQ(f[0].count, 31u);
  }
}

TEST(DefectsFastPath, ThreadsBeyondSixteenBitsTakeTheGeneralPath) {
  Instrs I;
  for (bool fast : {true, false}) {
    DefectCheck check(MemoryLayout{{{"s", 0, 256}}, 256, 64}, fast);
    emu::KernelInfo k;
    k.block = {65536, 1, 1};
    k.grid = {1, 1, 1};
    check.on_kernel_begin(k);
    auto o = check.make_block_observer({0, 0, 0});
    o->on_block_begin({0, 0, 0}, k.block, 256);
    o->on_memory(access(emu::Space::Global, emu::MemOp::Load, 4, &I.ld_g, 2047,
                        [](unsigned l) { return kGlobal + 4 * l; }));
    o->on_memory(access(
        emu::Space::Global, emu::MemOp::Store, 4, &I.st_g, 0,
        [](unsigned) { return kGlobal + 4 * 31; }, 1u));
    o->on_block_end({0, 0, 0});
    check.finish_block({0, 0, 0}, std::move(o));
    check.on_kernel_end(true);
    ASSERT_EQ(check.findings().size(), 1u) << describe(check.findings());
    EXPECT_NE(check.findings()[0].message.find("between thread 65535 and thread 0"),
              std::string::npos)
        << check.findings()[0].message;
  }
}

}  // namespace
}  // namespace smemlab::check
