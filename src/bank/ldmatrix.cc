#include "bank/ldmatrix.h"

#include <string>

#include "bank/models.h"

namespace smemlab::bank {

Request as_request(const MatrixRequest& m) {
  Request r;
  r.op = m.store ? Op::Store : Op::Load;
  r.width = 16;
  r.mask = m.mask & detail::lanes_in(0xffffffffu, 0, 8 * m.matrices);
  r.addr = m.addr;
  return r;
}

Result Model::evaluate_matrix(const MatrixRequest& m) const {
  throw Error(std::string(m.store ? "stmatrix" : "ldmatrix") + " is not modelled on " + name() +
              " (it has no such instruction)");
}

Result evaluate_matrix(const MatrixRequest& m) {
  if (m.matrices != 1 && m.matrices != 2 && m.matrices != 4)
    throw Error("ldmatrix/stmatrix moves 1, 2 or 4 matrices, not " + std::to_string(m.matrices));
  Request r = as_request(m);
  validate(r);  // 16-byte rows: addresses must be 16-byte aligned
  // A matrix is a group of 8 row lanes: exactly the 16-byte quarter-warp
  // grouping of ordinary accesses without the load merge (rule 3 never
  // applies across matrices).
  return detail::serve_in_groups(r, 8, 32, false);
}

}  // namespace smemlab::bank
