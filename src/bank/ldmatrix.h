// Bank cost of ldmatrix / stmatrix (m8n8 .x1/.x2/.x4, with or without
// .trans): one warp request moves 1, 2 or 4 8x8 matrices of 16-bit elements;
// matrix m takes its 8 row addresses (16 contiguous bytes each) from lanes
// 8m .. 8m+7. Rule measured on an H100 (docs/bank-model.md): each matrix is
// one group costing the maximum over banks of distinct 4-byte words its 8
// rows touch; wavefronts = sum over matrices; no merging across matrices;
// .trans and loads vs stores cost the same.
#pragma once

#include "bank/bank.h"

namespace smemlab::bank {

struct MatrixRequest {
  bool store = false;               // stmatrix (sm_90+) rather than ldmatrix (sm_75+)
  unsigned matrices = 1;            // .x1, .x2 or .x4
  bool trans = false;               // .trans: same cost, kept for display
  uint32_t mask = 0xffffffffu;      // lanes taking part (the instruction is .sync.aligned)
  std::array<uint64_t, 32> addr{};  // lane i: row address (bytes); lanes >= 8*matrices unused
};

// The H100 rule. Throws Error for a count other than 1, 2 or 4 or a row
// address that is not 16-byte aligned. ideal = matrices with an active row
// lane; bank_conflicts = wavefronts - ideal; passes are tagged with the matrix.
Result evaluate_matrix(const MatrixRequest& request);

// The same request as a plain Request (width 16, the row lanes active), for
// display and for callers that only carry Requests.
Request as_request(const MatrixRequest& request);

}  // namespace smemlab::bank
