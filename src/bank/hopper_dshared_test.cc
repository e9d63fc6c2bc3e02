// bank::dshared_cost (DSMEM sectors of one instruction across the blocks it
// reaches) against Nsight Compute on an H100: runs 10, 11 and 13 of
// scripts/hopper-rules (probe family dsm_cl: a target rank and a byte
// offset per lane, clusters of 2 … 16, any issuing rank; the cases are
// scripts/hopper-rules/cases{10,...,15}.txt, the counters
// tests/validation/hopper/h100-run{10,11,13,13b}-dsm.tsv). The rule
// computes from the cases; the counters are only compared with.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bank/hopper.h"

namespace smemlab::bank {
namespace {

std::vector<std::string> fields(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  return out;
}

struct Case {
  std::string op;
  uint32_t from = 0;
  std::vector<uint32_t> t;
  std::vector<uint64_t> o;
  uint32_t mask = 0;
};

std::map<std::string, Case> read_cases() {
  std::map<std::string, Case> out;
  for (int n : {10, 11, 12, 13, 14, 15}) {
    std::ifstream in(std::string(SMEMLAB_SOURCE_DIR) + "/scripts/hopper-rules/cases" +
                     std::to_string(n) + ".txt");
    EXPECT_TRUE(in) << n;
    std::string line;
    while (std::getline(in, line)) {
      const auto f = fields(line, ' ');
      if (f.size() < 3 || f[0].starts_with('#') || f[1] != "dsm_cl") continue;
      Case c;
      for (size_t i = 2; i < f.size(); ++i) {
        const auto eq = f[i].find('=');
        const std::string k = f[i].substr(0, eq), v = f[i].substr(eq + 1);
        if (k == "op") c.op = v;
        if (k == "from") c.from = static_cast<uint32_t>(std::stoul(v));
        if (k == "mask") c.mask = static_cast<uint32_t>(std::stoul(v, nullptr, 16));
        if (k == "t")
          for (const auto& x : fields(v, ',')) c.t.push_back(static_cast<uint32_t>(std::stoul(x)));
        if (k == "o")
          for (const auto& x : fields(v, ',')) c.o.push_back(std::stoull(x));
      }
      out[f[0]] = c;
    }
  }
  return out;
}

// The instruction as the probe issues it: lanes on the issuer itself are
// ordinary shared accesses (not DSMEM); 8-byte atomics round the offset
// down (probe.cu); the buffer starts at kReservedSharedBytes.
DsharedRequest request_of(const Case& c) {
  DsharedRequest q;
  const bool wide = c.op == "atom64" || c.op == "red64";
  q.op = c.op == "ld" ? Op::Load : c.op == "st" ? Op::Store : Op::Atomic;
  q.width = wide ? 8 : 4;
  for (unsigned l = 0; l < 32; ++l) {
    if (!(c.mask >> l & 1) || c.t.at(l) == c.from) continue;
    q.mask |= 1u << l;
    q.rank[l] = c.t.at(l);
    q.addr[l] = kReservedSharedBytes + (c.o.at(l) % 16384 & (wide ? ~uint64_t{7} : ~uint64_t{0}));
  }
  return q;
}

TEST(HopperDshared, EveryClusterProbeMatchesTheH100) {
  const auto cases = read_cases();
  std::map<std::string, int> checked;
  int atomics_per_peer_differs = 0;
  for (const char* name :
       {"h100-run10-dsm.tsv", "h100-run11-dsm.tsv", "h100-run13-dsm.tsv", "h100-run13b-dsm.tsv"}) {
    std::ifstream in(std::string(SMEMLAB_SOURCE_DIR) + "/tests/validation/hopper/" + name);
    ASSERT_TRUE(in) << name;
    std::string line;
    std::vector<std::string> header;
    while (std::getline(in, line)) {
      if (line.starts_with('#')) continue;
      const auto f = fields(line, '\t');
      if (header.empty()) {
        header = f;
        continue;
      }
      std::map<std::string, std::string> row;
      for (size_t i = 0; i < f.size() && i < header.size(); ++i) row[header[i]] = f[i];
      const auto it = cases.find(row["case"]);
      ASSERT_TRUE(it != cases.end()) << row["case"];
      const Case& c = it->second;
      const std::string kind = c.op == "ld" ? "ld" : "atom";  // red is filed under op_atom
      const std::string& measured =
          row["l1tex__t_sectors_pipe_lsu_mem_dshared_op_" + kind + ".sum"];
      if (measured.empty() || measured == "n/a") continue;
      const DsharedRequest q = request_of(c);
      const DsharedCost cost = dshared_cost(q);
      EXPECT_EQ(std::stod(measured), cost.sectors) << name << " " << row["case"];
      ++checked[kind];
      if (q.op == Op::Atomic) {
        unsigned per_peer = 0;  // the earlier rule: each block's sectors apart
        for (uint32_t peer = 0; peer < 16; ++peer) {
          Request one;
          one.op = Op::Atomic;
          one.width = q.width;
          one.mask = 0;
          for (unsigned l = 0; l < 32; ++l)
            if (q.mask >> l & 1 && q.rank[l] == peer) one.mask |= 1u << l, one.addr[l] = q.addr[l];
          per_peer += dshared_cost(one).sectors;
        }
        atomics_per_peer_differs += std::stod(measured) != per_peer;
      }
    }
  }
  EXPECT_EQ(checked["atom"], 406 + 180 + 171 + 176);
  EXPECT_EQ(checked["ld"], 21 + 8);
  EXPECT_EQ(atomics_per_peer_differs, 180 + 35 + 12 + 9);
}

// Run 13's two-lane probes, as a table: A@0 on rank 2 and B@X on rank 3 of
// a cluster of 4 share one wavefront unless their slices match; the
// three-lane A@0, B@X, A@4 sends A's sector twice exactly when B's line
// shares A's slice and B sits on A@4's bank.
TEST(HopperDshared, SlicesAndBlockedBanks) {
  auto three = [](uint64_t x) {
    DsharedRequest q;
    q.op = Op::Atomic;
    q.mask = 0b111;
    q.rank = {2, 3, 2};
    q.addr = {kReservedSharedBytes, kReservedSharedBytes + x, kReservedSharedBytes + 4};
    return dshared_cost(q).sectors;
  };
  // B on a line of A's slice (128, 512, 1024, 4096 bytes on) and A@4's bank: 3
  for (uint64_t x : {132u, 516u, 1028u, 4100u}) EXPECT_EQ(three(x), 3u) << x;
  // another bank, or a line of another slice (256, 1152, 2048 on), or the same line: 2
  for (uint64_t x : {4u, 128u, 1024u, 1032u, 1060u, 260u, 1156u, 2052u})
    EXPECT_EQ(three(x), 2u) << x;
  // the same lanes to one block only (ranks 2 and 2): never split
  DsharedRequest one;
  one.op = Op::Atomic;
  one.mask = 0b111;
  one.rank = {2, 2, 2};
  one.addr = {kReservedSharedBytes, kReservedSharedBytes + 1028, kReservedSharedBytes + 4};
  EXPECT_EQ(dshared_cost(one).sectors, 2u);
  // loads: the distinct sectors, whatever the slices
  DsharedRequest ld;
  ld.op = Op::Load;
  ld.mask = 0b111;
  ld.rank = {2, 3, 2};
  ld.addr = {kReservedSharedBytes, kReservedSharedBytes + 1028, kReservedSharedBytes + 4};
  EXPECT_EQ(dshared_cost(ld).sectors, 2u);
}

}  // namespace
}  // namespace smemlab::bank
