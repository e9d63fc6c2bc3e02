// A program that links cuBLAS, cuFFT or cuRAND statically (-lcublas_static,
// -lcufft_static, -lcurand_static) carries their SASS-only kernels inside
// itself, where smemlab's own libraries (src/libs/) cannot stand in: found
// at cuInit in the executable's symbol table, and said once with the link
// flag to use instead.
#pragma once

namespace smemlab::runtime {

class Driver;
void check_static_libraries(Driver& d);

}  // namespace smemlab::runtime
