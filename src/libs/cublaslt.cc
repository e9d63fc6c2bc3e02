// smemlab's libcublasLt.so.13: cublasLtMatmul on plain column-major layouts
// (with batches and strided batch offsets), D = alpha op(A) op(B) + beta C,
// through the mixed-type GEMM of cublas_ex.h; the handle, descriptors and
// preferences it needs, and a heuristic that offers one algorithm. Tiled
// orders (COL32 ...), row-major layouts and epilogues other than the default
// are refused with an error naming them (CUBLAS_STATUS_NOT_SUPPORTED).
#include <cublasLt.h>
#include <cublas_api.h>

#include <cstring>
#include <string>

#include "libs/bridge.h"
#include "libs/cublas_ex.h"

using namespace smemlab::libs;
using namespace smemlab::libs::blas;

namespace {

// What the semi-opaque descriptors hold here (inside their data[]).
struct Desc {
  cublasComputeType_t compute;
  cudaDataType scale;
  cublasOperation_t ta = CUBLAS_OP_N, tb = CUBLAS_OP_N;
  int32_t pointer_mode = CUBLASLT_POINTER_MODE_HOST;
  uint32_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
};
struct Layout {
  cudaDataType type;
  uint64_t rows, cols;
  int64_t ld;
  int32_t order = CUBLASLT_ORDER_COL;
  int32_t batch = 1;
  int64_t stride = 0;
};
static_assert(sizeof(Desc) <= sizeof(cublasLtMatmulDescOpaque_t));
static_assert(sizeof(Layout) <= sizeof(cublasLtMatrixLayoutOpaque_t));

Desc* desc(cublasLtMatmulDesc_t d) { return reinterpret_cast<Desc*>(d); }
Layout* layout(cublasLtMatrixLayout_t l) { return reinterpret_cast<Layout*>(l); }

// Copies an attribute value of exactly sizeof(T) bytes.
template <class T>
cublasStatus_t set(T* field, const void* buf, size_t size) {
  if (!buf || size != sizeof(T)) return CUBLAS_STATUS_INVALID_VALUE;
  std::memcpy(field, buf, sizeof(T));
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t refuse(const std::string& what) {
  report_missing("cuBLASLt", what.c_str(), "CUBLAS_STATUS_NOT_SUPPORTED");
  return CUBLAS_STATUS_NOT_SUPPORTED;
}

}  // namespace

extern "C" {

cublasStatus_t cublasLtCreate(cublasLtHandle_t* h) {
  if (!h) return CUBLAS_STATUS_INVALID_VALUE;
  ensure_driver();
  record_call("cublasLtCreate");
  *h = reinterpret_cast<cublasLtHandle_t>(new int(1));
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtDestroy(cublasLtHandle_t h) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  record_call("cublasLtDestroy");
  delete reinterpret_cast<int*>(h);
  return CUBLAS_STATUS_SUCCESS;
}
size_t cublasLtGetVersion(void) { return CUBLAS_VERSION; }

cublasStatus_t cublasLtMatmulDescInit_internal(cublasLtMatmulDesc_t d, size_t size,
                                               cublasComputeType_t compute, cudaDataType_t scale) {
  if (!d || size < sizeof(Desc)) return CUBLAS_STATUS_INVALID_VALUE;
  new (d) Desc{compute, scale};
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t* d, cublasComputeType_t compute,
                                        cudaDataType_t scale) {
  if (!d) return CUBLAS_STATUS_INVALID_VALUE;
  *d = new cublasLtMatmulDescOpaque_t{};
  return cublasLtMatmulDescInit_internal(*d, sizeof(**d), compute, scale);
}
cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t d) {
  delete d;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t d,
                                              cublasLtMatmulDescAttributes_t attr, const void* buf,
                                              size_t size) {
  if (!d) return CUBLAS_STATUS_NOT_INITIALIZED;
  Desc* p = desc(d);
  switch (attr) {
    case CUBLASLT_MATMUL_DESC_COMPUTE_TYPE:
      return set(&p->compute, buf, size);
    case CUBLASLT_MATMUL_DESC_SCALE_TYPE:
      return set(&p->scale, buf, size);
    case CUBLASLT_MATMUL_DESC_POINTER_MODE:
      return set(&p->pointer_mode, buf, size);
    case CUBLASLT_MATMUL_DESC_TRANSA:
      return set(&p->ta, buf, size);
    case CUBLASLT_MATMUL_DESC_TRANSB:
      return set(&p->tb, buf, size);
    case CUBLASLT_MATMUL_DESC_EPILOGUE:
      return set(&p->epilogue, buf, size);
    default:
      return refuse("cublasLtMatmulDescSetAttribute of cublasLtMatmulDescAttributes_t " +
                    std::to_string(int(attr)));
  }
}
cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t d,
                                              cublasLtMatmulDescAttributes_t attr, void* buf,
                                              size_t size, size_t* written) {
  if (!d) return CUBLAS_STATUS_NOT_INITIALIZED;
  Desc* p = desc(d);
  auto get = [&](const auto& field) {
    if (written) *written = sizeof(field);
    if (!buf && size == 0) return CUBLAS_STATUS_SUCCESS;  // a size query
    if (!buf || size < sizeof(field)) return CUBLAS_STATUS_INVALID_VALUE;
    std::memcpy(buf, &field, sizeof(field));
    return CUBLAS_STATUS_SUCCESS;
  };
  switch (attr) {
    case CUBLASLT_MATMUL_DESC_COMPUTE_TYPE:
      return get(p->compute);
    case CUBLASLT_MATMUL_DESC_SCALE_TYPE:
      return get(p->scale);
    case CUBLASLT_MATMUL_DESC_POINTER_MODE:
      return get(p->pointer_mode);
    case CUBLASLT_MATMUL_DESC_TRANSA:
      return get(p->ta);
    case CUBLASLT_MATMUL_DESC_TRANSB:
      return get(p->tb);
    case CUBLASLT_MATMUL_DESC_EPILOGUE:
      return get(p->epilogue);
    default:
      return refuse("cublasLtMatmulDescGetAttribute of cublasLtMatmulDescAttributes_t " +
                    std::to_string(int(attr)));
  }
}

cublasStatus_t cublasLtMatrixLayoutInit_internal(cublasLtMatrixLayout_t l, size_t size,
                                                 cudaDataType type, uint64_t rows, uint64_t cols,
                                                 int64_t ld) {
  if (!l || size < sizeof(Layout)) return CUBLAS_STATUS_INVALID_VALUE;
  new (l) Layout{type, rows, cols, ld};
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t* l, cudaDataType type,
                                          uint64_t rows, uint64_t cols, int64_t ld) {
  if (!l) return CUBLAS_STATUS_INVALID_VALUE;
  *l = new cublasLtMatrixLayoutOpaque_t{};
  return cublasLtMatrixLayoutInit_internal(*l, sizeof(**l), type, rows, cols, ld);
}
cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t l) {
  delete l;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t l,
                                                cublasLtMatrixLayoutAttribute_t attr,
                                                const void* buf, size_t size) {
  if (!l) return CUBLAS_STATUS_NOT_INITIALIZED;
  Layout* p = layout(l);
  switch (attr) {
    case CUBLASLT_MATRIX_LAYOUT_TYPE:
      return set(&p->type, buf, size);
    case CUBLASLT_MATRIX_LAYOUT_ORDER:
      return set(&p->order, buf, size);
    case CUBLASLT_MATRIX_LAYOUT_ROWS:
      return set(&p->rows, buf, size);
    case CUBLASLT_MATRIX_LAYOUT_COLS:
      return set(&p->cols, buf, size);
    case CUBLASLT_MATRIX_LAYOUT_LD:
      return set(&p->ld, buf, size);
    case CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT:
      return set(&p->batch, buf, size);
    case CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET:
      return set(&p->stride, buf, size);
    default:
      return refuse("cublasLtMatrixLayoutSetAttribute of cublasLtMatrixLayoutAttribute_t " +
                    std::to_string(int(attr)));
  }
}

// Preferences only steer the GPU's algorithm search: accepted and ignored.
cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t* p) {
  if (!p) return CUBLAS_STATUS_INVALID_VALUE;
  *p = new cublasLtMatmulPreferenceOpaque_t{};
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulPreferenceInit_internal(cublasLtMatmulPreference_t p, size_t) {
  return p ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
}
cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t p) {
  delete p;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t p,
                                                    cublasLtMatmulPreferenceAttributes_t,
                                                    const void* buf, size_t) {
  return p && buf ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
}

// One algorithm (the CPU's), needing no workspace.
cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t h, cublasLtMatmulDesc_t d,
                                              cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
                                              cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
                                              cublasLtMatmulPreference_t, int requested,
                                              cublasLtMatmulHeuristicResult_t results[],
                                              int* returned) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!d || requested < 1 || !results || !returned) return CUBLAS_STATUS_INVALID_VALUE;
  results[0] = cublasLtMatmulHeuristicResult_t{};
  results[0].state = CUBLAS_STATUS_SUCCESS;
  results[0].wavesCount = 1.0f;
  *returned = 1;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmul(cublasLtHandle_t h, cublasLtMatmulDesc_t d, const void* alpha,
                              const void* A, cublasLtMatrixLayout_t Ad, const void* B,
                              cublasLtMatrixLayout_t Bd, const void* beta, const void* C,
                              cublasLtMatrixLayout_t Cd, void* D, cublasLtMatrixLayout_t Dd,
                              const cublasLtMatmulAlgo_t*, void*, size_t, cudaStream_t stream) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!d || !Ad || !Bd || !Cd || !Dd || !alpha || !beta) return CUBLAS_STATUS_INVALID_VALUE;
  const Desc p = *desc(d);
  const Layout a = *layout(Ad), b = *layout(Bd), c = *layout(Cd), dd = *layout(Dd);
  record_call("cublasLtMatmul");
  for (const Layout* l : {&a, &b, &c, &dd})
    if (l->order != CUBLASLT_ORDER_COL)
      return refuse("cublasLtMatmul with cublasLtOrder_t " + std::to_string(l->order) +
                    " (only CUBLASLT_ORDER_COL)");
  if (p.epilogue != CUBLASLT_EPILOGUE_DEFAULT)
    return refuse("cublasLtMatmul with cublasLtEpilogue_t " + std::to_string(p.epilogue));
  if (c.type != dd.type) return refuse("cublasLtMatmul with C and D of different types");
  const int m = int(dd.rows), n = int(dd.cols);
  const int k = int(p.ta == CUBLAS_OP_N ? a.cols : a.rows);
  if (c.rows != dd.rows || c.cols != dd.cols ||
      (p.ta == CUBLAS_OP_N ? a.rows : a.cols) != dd.rows ||
      (p.tb == CUBLAS_OP_N ? b.cols : b.rows) != dd.cols ||
      (p.tb == CUBLAS_OP_N ? b.rows : b.cols) != uint64_t(k))
    return CUBLAS_STATUS_INVALID_VALUE;
  ExProblem pr{classify(a.type, b.type, dd.type, p.compute),
               p.ta,
               p.tb,
               m,
               n,
               k,
               a.type,
               b.type,
               dd.type,
               int(a.ld),
               int(b.ld),
               int(dd.ld)};
  if (pr.kind == Combination::Unsupported)
    return refuse(fmt_combination("cublasLtMatmul", a.type, b.type, dd.type, p.compute));
  const size_t ss = scalar_size(pr.kind), es = element_size(dd.type);
  unsigned char av[16] = {}, bv[16] = {};
  const bool device = p.pointer_mode == CUBLASLT_POINTER_MODE_DEVICE;
  if (!device) std::memcpy(av, alpha, ss), std::memcpy(bv, beta, ss);
  const int batch = dd.batch;
  // Every operand of every problem must be device memory (bridge.h).
  for (int i = 0; i < batch; ++i) {
    auto range = [&](const char* role, const void* base, const Layout& l) {
      const uint64_t e = element_size(l.type);
      return device_range("cublasLtMatmul", role, static_cast<const char*>(base) + i * l.stride * e,
                          matrix_bytes(int64_t(l.rows), int64_t(l.cols), l.ld, e));
    };
    bool ok = range("matrix A", A, a);
    ok = range("matrix B", B, b) && ok;
    ok = range("matrix C", C, c) && ok;
    if (!(range("matrix D", D, dd) && ok)) return CUBLAS_STATUS_EXECUTION_FAILED;
  }
  enqueue(reinterpret_cast<CUstream>(stream), [=] {
    unsigned char al[16], be[16];
    std::memcpy(al, device ? alpha : av, ss);
    std::memcpy(be, device ? beta : bv, ss);
    for (int i = 0; i < batch; ++i) {
      const char* ai = static_cast<const char*>(A) + i * a.stride * element_size(a.type);
      const char* bi = static_cast<const char*>(B) + i * b.stride * element_size(b.type);
      const char* ci = static_cast<const char*>(C) + i * c.stride * es;
      char* di = static_cast<char*>(D) + i * dd.stride * es;
      if (ci != di)  // D starts as C, then D = alpha op(A) op(B) + beta D
        for (int j = 0; j < n; ++j) std::memmove(di + j * dd.ld * es, ci + j * c.ld * es, m * es);
      gemm_ex_one(pr, al, be, ai, bi, di);
    }
  });
  return CUBLAS_STATUS_SUCCESS;
}

}  // extern "C"
