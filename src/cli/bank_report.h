// Results of `smemlab bank` for people and for machines: per-warp tables,
// the generation comparison of --arch all, and the JSON document. Input
// handling is in bank_input.h, the grid drawing in bank/bank_map.h.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bank/bank.h"
#include "expr/expr.h"

namespace smemlab::cli {

// One warp's request and where it came from.
struct Warp {
  unsigned index = 0;
  uint64_t first_tid = 0;
  unsigned threads = 0;  // 0 for --addresses (no block)
  bank::Request request;
};

// What the user asked about, for headers and JSON.
struct Source {
  std::string mode;  // "expression" or "addresses"
  std::string expression;
  std::optional<expr::Decl> decl;
  unsigned block[3] = {1, 1, 1};
  expr::Vars vars;
};

// One model's answer for every warp.
struct ArchResult {
  const bank::Model* model = nullptr;
  std::vector<bank::Result> results;  // one per warp
  std::string error;                  // set when the model refuses the request
  size_t worst = 0;                   // index of the most expensive warp
  bank::Result total;
};

// Evaluates every warp; a request the model refuses (e.g. atomics before
// sm_70) is recorded in `error` instead of thrown.
ArchResult evaluate(const bank::Model& model, const std::vector<Warp>& warps);

// Text for one architecture (table and bank map) or several (one row per
// generation), or the JSON document for either, on stdout.
void print_report(const Source& src, const std::vector<Warp>& warps,
                  const std::vector<ArchResult>& results, bool json);

}  // namespace smemlab::cli
