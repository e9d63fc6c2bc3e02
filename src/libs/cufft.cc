// smemlab's libcufft.so.12: plans (1-D/2-D/3-D, cufftPlanMany's advanced
// layouts with strides and distances, the cufftMake*/GetSize*/Estimate*
// forms), C2C/R2C/C2R and Z2Z/D2Z/Z2D, forward and inverse (unnormalized, as
// cuFFT), streams and work areas. Each batch is gathered from its layout into
// a contiguous double-precision array, transformed by fft.h, and scattered to
// the output layout, in stream order.
#include <cufft.h>
#include <cufftXt.h>

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "libs/bridge.h"
#include "libs/fft.h"

using namespace smemlab::libs;
using fft::cd;

namespace {

struct Plan {
  bool made = false;
  cufftType type = CUFFT_C2C;
  std::vector<int> n;  // dims, slowest first
  std::vector<long long> inembed, onembed;
  long long istride = 1, idist = 0, ostride = 1, odist = 0;
  int batch = 1;
  CUstream stream = nullptr;
  void* work = nullptr;
  bool auto_alloc = true;
};

std::mutex g_mu;
std::map<int, Plan>& plans() {
  static auto* p = new std::map<int, Plan>();
  return *p;
}
int g_next = 1;

Plan* find(cufftHandle h) {
  auto it = plans().find(h);
  return it == plans().end() ? nullptr : &it->second;
}

bool real_input(cufftType t) { return t == CUFFT_R2C || t == CUFFT_D2Z; }
bool real_output(cufftType t) { return t == CUFFT_C2R || t == CUFFT_Z2D; }
bool is_double(cufftType t) { return t == CUFFT_Z2Z || t == CUFFT_D2Z || t == CUFFT_Z2D; }
bool valid_type(cufftType t) {
  return t == CUFFT_C2C || t == CUFFT_R2C || t == CUFFT_C2R || t == CUFFT_Z2Z || t == CUFFT_D2Z ||
         t == CUFFT_Z2D;
}

// The logical dims of the complex side of a real transform: the last one
// halved (n/2 + 1).
std::vector<long long> complex_dims(const Plan& p) {
  std::vector<long long> d(p.n.begin(), p.n.end());
  if (real_input(p.type) || real_output(p.type)) d.back() = d.back() / 2 + 1;
  return d;
}

// Fills a plan; the layout defaults are cuFFT's (null embeds: contiguous).
cufftResult make(Plan& p, int rank, const long long* n, const long long* inembed, long long istride,
                 long long idist, const long long* onembed, long long ostride, long long odist,
                 cufftType type, long long batch, size_t* work) {
  if (rank < 1 || rank > 3 || !n) return CUFFT_INVALID_VALUE;
  if (!valid_type(type)) return CUFFT_INVALID_TYPE;
  if (batch < 1) return CUFFT_INVALID_SIZE;
  p.n.clear();
  for (int i = 0; i < rank; ++i) {
    if (n[i] < 1 || n[i] > (1LL << 30)) return CUFFT_INVALID_SIZE;
    p.n.push_back(int(n[i]));
  }
  p.type = type;
  p.batch = int(batch);
  std::vector<long long> real(n, n + rank), cplx = complex_dims(p);
  const auto& in_logical = real_input(type) ? real : cplx;
  const auto& out_logical = real_output(type) ? real : cplx;
  auto volume = [](const std::vector<long long>& d) {
    long long v = 1;
    for (long long x : d) v *= x;
    return v;
  };
  // cuFFT: either embed null means the basic layout for both.
  if (!inembed || !onembed) {
    p.inembed = in_logical, p.onembed = out_logical;
    p.istride = p.ostride = 1;
    p.idist = volume(in_logical), p.odist = volume(out_logical);
  } else {
    p.inembed.assign(inembed, inembed + rank), p.onembed.assign(onembed, onembed + rank);
    p.istride = istride, p.ostride = ostride, p.idist = idist, p.odist = odist;
  }
  p.made = true;
  if (work) *work = 0;  // the CPU needs no device workspace
  return CUFFT_SUCCESS;
}

// Offset of logical index `idx` (row-major over dims) in an embedded layout.
long long offset(const std::vector<long long>& dims, const std::vector<long long>& embed,
                 long long stride, long long idx) {
  const int r = int(dims.size());
  long long pos[3] = {0, 0, 0};
  for (int a = r - 1; a >= 0; --a) pos[a] = idx % dims[a], idx /= dims[a];
  long long off = 0;
  for (int a = 0; a < r; ++a) off = off * (a ? embed[a] : 1) + pos[a];
  return off * stride;
}

template <class R>
void execute(const Plan& p, const void* in, void* out, int sign) {
  using C = std::complex<R>;
  const std::vector<long long> real(p.n.begin(), p.n.end()), cplx = complex_dims(p);
  long long total = 1, half = 1;
  for (long long x : real) total *= x;
  for (long long x : cplx) half *= x;
  std::vector<cd> buf(total);
  for (int b = 0; b < p.batch; ++b) {
    const long long ib = b * p.idist, ob = b * p.odist;
    if (real_input(p.type)) {
      for (long long i = 0; i < total; ++i)
        buf[i] = static_cast<const R*>(in)[ib + offset(real, p.inembed, p.istride, i)];
      fft::transform(buf.data(), p.n, -1);
      // The first n/2+1 of the last axis.
      const long long last = real.back(), hl = cplx.back();
      for (long long i = 0; i < half; ++i)
        static_cast<C*>(out)[ob + offset(cplx, p.onembed, p.ostride, i)] =
            C(buf[(i / hl) * last + i % hl]);
    } else if (real_output(p.type)) {
      const long long last = real.back(), hl = cplx.back();
      for (long long i = 0; i < half; ++i) {
        C v = static_cast<const C*>(in)[ib + offset(cplx, p.inembed, p.istride, i)];
        buf[(i / hl) * last + i % hl] = cd(v.real(), v.imag());
      }
      // Inverse along the other axes on the half spectrum, then each row's
      // Hermitian completion along the last.
      const long long rows = total / last;
      std::vector<int> outer(p.n.begin(), p.n.end() - 1);
      if (!outer.empty()) {
        // Columns k < hl of each row-major block: transform them one k at a time.
        std::vector<cd> col(rows);
        for (long long k = 0; k < hl; ++k) {
          for (long long r = 0; r < rows; ++r) col[r] = buf[r * last + k];
          fft::transform(col.data(), outer, sign);
          for (long long r = 0; r < rows; ++r) buf[r * last + k] = col[r];
        }
      }
      fft::Plan1d row{int(last)};
      for (long long r = 0; r < rows; ++r) {
        cd* x = buf.data() + r * last;
        for (long long k = hl; k < last; ++k) x[k] = std::conj(x[last - k]);
        row.run(x, 1, sign);
        for (long long i = 0; i < last; ++i)
          static_cast<R*>(out)[ob + offset(real, p.onembed, p.ostride, r * last + i)] =
              R(x[i].real());
      }
    } else {
      for (long long i = 0; i < total; ++i) {
        C v = static_cast<const C*>(in)[ib + offset(real, p.inembed, p.istride, i)];
        buf[i] = cd(v.real(), v.imag());
      }
      fft::transform(buf.data(), p.n, sign);
      for (long long i = 0; i < total; ++i)
        static_cast<C*>(out)[ob + offset(real, p.onembed, p.ostride, i)] = C(buf[i]);
    }
  }
}

// The bytes a transform reads at `in` and writes at `out`: its last batch's
// last element in the plan's layout; each range must be device memory
// (bridge.h's device_range reports the one that is not).
bool ranges_in_memory(const Plan& p, const char* entry, const void* in, const void* out) {
  const std::vector<long long> real(p.n.begin(), p.n.end()), cplx = complex_dims(p);
  const uint64_t r = is_double(p.type) ? 8 : 4;
  auto bytes = [&](const std::vector<long long>& dims, const std::vector<long long>& embed,
                   long long stride, long long dist, uint64_t elem) {
    long long volume = 1;
    for (long long x : dims) volume *= x;
    return uint64_t((p.batch - 1) * dist + offset(dims, embed, stride, volume - 1) + 1) * elem;
  };
  bool ok = device_range(entry, "input", in,
                         real_input(p.type) ? bytes(real, p.inembed, p.istride, p.idist, r)
                                            : bytes(cplx, p.inembed, p.istride, p.idist, 2 * r));
  return device_range(entry, "output", out,
                      real_output(p.type) ? bytes(real, p.onembed, p.ostride, p.odist, r)
                                          : bytes(cplx, p.onembed, p.ostride, p.odist, 2 * r)) &&
         ok;
}

cufftResult exec(cufftHandle h, const char* entry, cufftType want, const void* in, void* out,
                 int direction) {
  Plan copy;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    Plan* p = find(h);
    if (!p || !p->made) return CUFFT_INVALID_PLAN;
    if (p->type != want) return CUFFT_INVALID_TYPE;
    copy = *p;
  }
  if (!in || !out) return CUFFT_INVALID_VALUE;
  if (want == CUFFT_C2C || want == CUFFT_Z2Z) {
    if (direction != CUFFT_FORWARD && direction != CUFFT_INVERSE) return CUFFT_INVALID_VALUE;
  } else {
    direction = real_input(want) ? CUFFT_FORWARD : CUFFT_INVERSE;
  }
  if (!ranges_in_memory(copy, entry, in, out)) return CUFFT_EXEC_FAILED;
  record_call(entry);
  enqueue(copy.stream, [copy, in, out, direction] {
    if (is_double(copy.type))
      execute<double>(copy, in, out, direction);
    else
      execute<float>(copy, in, out, direction);
  });
  return CUFFT_SUCCESS;
}

cufftResult create(cufftHandle* h) {
  if (!h) return CUFFT_INVALID_VALUE;
  ensure_driver();
  std::lock_guard<std::mutex> lock(g_mu);
  *h = g_next++;
  plans()[*h] = Plan{};
  return CUFFT_SUCCESS;
}

cufftResult make_plan(cufftHandle h, int rank, const long long* n, const long long* inembed,
                      long long istride, long long idist, const long long* onembed,
                      long long ostride, long long odist, cufftType type, long long batch,
                      size_t* work) {
  std::lock_guard<std::mutex> lock(g_mu);
  Plan* p = find(h);
  if (!p) return CUFFT_INVALID_PLAN;
  return make(*p, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, work);
}

std::vector<long long> widen(int rank, const int* v) {
  return v && rank > 0 ? std::vector<long long>(v, v + rank) : std::vector<long long>{};
}
const long long* ptr(const std::vector<long long>& v) { return v.empty() ? nullptr : v.data(); }

cufftResult new_plan(cufftHandle* plan, int rank, const long long* n, cufftType type,
                     long long batch) {
  if (cufftResult r = create(plan)) return r;
  cufftResult r = make_plan(*plan, rank, n, nullptr, 1, 0, nullptr, 1, 0, type, batch, nullptr);
  if (r != CUFFT_SUCCESS) {
    std::lock_guard<std::mutex> lock(g_mu);
    plans().erase(*plan);
  }
  return r;
}

// cufftXt's types: the cufftType of an (input, output, execution) triple;
// false for half precision and other combinations (not implemented).
bool xt_type(cudaDataType in, cudaDataType out, cudaDataType exec, cufftType* t) {
  if (in == CUDA_C_32F && out == CUDA_C_32F && exec == CUDA_C_32F) return *t = CUFFT_C2C, true;
  if (in == CUDA_R_32F && out == CUDA_C_32F && exec == CUDA_C_32F) return *t = CUFFT_R2C, true;
  if (in == CUDA_C_32F && out == CUDA_R_32F && exec == CUDA_C_32F) return *t = CUFFT_C2R, true;
  if (in == CUDA_C_64F && out == CUDA_C_64F && exec == CUDA_C_64F) return *t = CUFFT_Z2Z, true;
  if (in == CUDA_R_64F && out == CUDA_C_64F && exec == CUDA_C_64F) return *t = CUFFT_D2Z, true;
  if (in == CUDA_C_64F && out == CUDA_R_64F && exec == CUDA_C_64F) return *t = CUFFT_Z2D, true;
  return false;
}

}  // namespace

extern "C" {

cufftResult cufftXtMakePlanMany(cufftHandle plan, int rank, long long* n, long long* inembed,
                                long long istride, long long idist, cudaDataType itype,
                                long long* onembed, long long ostride, long long odist,
                                cudaDataType otype, long long batch, size_t* work,
                                cudaDataType etype) {
  record_call("cufftXtMakePlanMany");
  cufftType t;
  if (!xt_type(itype, otype, etype, &t)) {
    report_missing("cuFFT",
                   ("cufftXtMakePlanMany with cudaDataType " + std::to_string(int(itype)) + " -> " +
                    std::to_string(int(otype)) + " (half precision)")
                       .c_str(),
                   "CUFFT_NOT_SUPPORTED");
    return CUFFT_NOT_SUPPORTED;
  }
  return make_plan(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, t, batch, work);
}

cufftResult cufftXtGetSizeMany(cufftHandle plan, int, long long*, long long*, long long, long long,
                               cudaDataType, long long*, long long, long long, cudaDataType,
                               long long, size_t* work, cudaDataType) {
  return cufftGetSize(plan, work);
}

// Runs the plan's own type (cufftXtExec takes any).
cufftResult cufftXtExec(cufftHandle h, void* in, void* out, int direction) {
  cufftType t;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    Plan* p = find(h);
    if (!p || !p->made) return CUFFT_INVALID_PLAN;
    t = p->type;
  }
  return exec(h, "cufftXtExec", t, in, out, direction);
}

cufftResult cufftCreate(cufftHandle* h) {
  record_call("cufftCreate");
  return create(h);
}

cufftResult cufftDestroy(cufftHandle h) {
  CUstream s;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    Plan* p = find(h);
    if (!p) return CUFFT_INVALID_PLAN;
    s = p->stream;
    plans().erase(h);
  }
  record_call("cufftDestroy");
  (void)s;  // the queued work holds its own copy of the plan
  return CUFFT_SUCCESS;
}

cufftResult cufftPlan1d(cufftHandle* plan, int nx, cufftType type, int batch) {
  record_call("cufftPlan1d");
  long long n[] = {nx};
  return new_plan(plan, 1, n, type, batch);
}
cufftResult cufftPlan2d(cufftHandle* plan, int nx, int ny, cufftType type) {
  record_call("cufftPlan2d");
  long long n[] = {nx, ny};
  return new_plan(plan, 2, n, type, 1);
}
cufftResult cufftPlan3d(cufftHandle* plan, int nx, int ny, int nz, cufftType type) {
  record_call("cufftPlan3d");
  long long n[] = {nx, ny, nz};
  return new_plan(plan, 3, n, type, 1);
}
cufftResult cufftPlanMany(cufftHandle* plan, int rank, int* n, int* inembed, int istride, int idist,
                          int* onembed, int ostride, int odist, cufftType type, int batch) {
  record_call("cufftPlanMany");
  if (cufftResult r = create(plan)) return r;
  auto nn = widen(rank, n), ie = widen(rank, inembed), oe = widen(rank, onembed);
  cufftResult r = make_plan(*plan, rank, ptr(nn), ptr(ie), istride, idist, ptr(oe), ostride, odist,
                            type, batch, nullptr);
  if (r != CUFFT_SUCCESS) {
    std::lock_guard<std::mutex> lock(g_mu);
    plans().erase(*plan);
  }
  return r;
}

cufftResult cufftMakePlan1d(cufftHandle plan, int nx, cufftType type, int batch, size_t* work) {
  record_call("cufftMakePlan1d");
  long long n[] = {nx};
  return make_plan(plan, 1, n, nullptr, 1, 0, nullptr, 1, 0, type, batch, work);
}
cufftResult cufftMakePlan2d(cufftHandle plan, int nx, int ny, cufftType type, size_t* work) {
  record_call("cufftMakePlan2d");
  long long n[] = {nx, ny};
  return make_plan(plan, 2, n, nullptr, 1, 0, nullptr, 1, 0, type, 1, work);
}
cufftResult cufftMakePlan3d(cufftHandle plan, int nx, int ny, int nz, cufftType type,
                            size_t* work) {
  record_call("cufftMakePlan3d");
  long long n[] = {nx, ny, nz};
  return make_plan(plan, 3, n, nullptr, 1, 0, nullptr, 1, 0, type, 1, work);
}
cufftResult cufftMakePlanMany(cufftHandle plan, int rank, int* n, int* inembed, int istride,
                              int idist, int* onembed, int ostride, int odist, cufftType type,
                              int batch, size_t* work) {
  record_call("cufftMakePlanMany");
  auto nn = widen(rank, n), ie = widen(rank, inembed), oe = widen(rank, onembed);
  return make_plan(plan, rank, ptr(nn), ptr(ie), istride, idist, ptr(oe), ostride, odist, type,
                   batch, work);
}
cufftResult cufftMakePlanMany64(cufftHandle plan, int rank, long long* n, long long* inembed,
                                long long istride, long long idist, long long* onembed,
                                long long ostride, long long odist, cufftType type, long long batch,
                                size_t* work) {
  record_call("cufftMakePlanMany64");
  return make_plan(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch,
                   work);
}

// Work-area sizes: the CPU needs none (0 bytes), for every form.
cufftResult cufftEstimate1d(int, cufftType, int, size_t* w) {
  return w ? (*w = 0, CUFFT_SUCCESS) : CUFFT_INVALID_VALUE;
}
cufftResult cufftEstimate2d(int, int, cufftType, size_t* w) {
  return w ? (*w = 0, CUFFT_SUCCESS) : CUFFT_INVALID_VALUE;
}
cufftResult cufftEstimate3d(int, int, int, cufftType, size_t* w) {
  return w ? (*w = 0, CUFFT_SUCCESS) : CUFFT_INVALID_VALUE;
}
cufftResult cufftEstimateMany(int, int*, int*, int, int, int*, int, int, cufftType, int,
                              size_t* w) {
  return w ? (*w = 0, CUFFT_SUCCESS) : CUFFT_INVALID_VALUE;
}
cufftResult cufftGetSize1d(cufftHandle h, int, cufftType, int, size_t* w) {
  return cufftGetSize(h, w);
}
cufftResult cufftGetSize2d(cufftHandle h, int, int, cufftType, size_t* w) {
  return cufftGetSize(h, w);
}
cufftResult cufftGetSize3d(cufftHandle h, int, int, int, cufftType, size_t* w) {
  return cufftGetSize(h, w);
}
cufftResult cufftGetSizeMany(cufftHandle h, int, int*, int*, int, int, int*, int, int, cufftType,
                             int, size_t* w) {
  return cufftGetSize(h, w);
}
cufftResult cufftGetSizeMany64(cufftHandle h, int, long long*, long long*, long long, long long,
                               long long*, long long, long long, cufftType, long long, size_t* w) {
  return cufftGetSize(h, w);
}
cufftResult cufftGetSize(cufftHandle h, size_t* w) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (!find(h)) return CUFFT_INVALID_PLAN;
  if (!w) return CUFFT_INVALID_VALUE;
  *w = 0;
  return CUFFT_SUCCESS;
}
cufftResult cufftSetWorkArea(cufftHandle h, void* work) {
  std::lock_guard<std::mutex> lock(g_mu);
  Plan* p = find(h);
  if (!p) return CUFFT_INVALID_PLAN;
  p->work = work;
  return CUFFT_SUCCESS;
}
cufftResult cufftSetAutoAllocation(cufftHandle h, int autoAllocate) {
  std::lock_guard<std::mutex> lock(g_mu);
  Plan* p = find(h);
  if (!p) return CUFFT_INVALID_PLAN;
  p->auto_alloc = autoAllocate != 0;
  return CUFFT_SUCCESS;
}
cufftResult cufftSetStream(cufftHandle h, cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(g_mu);
  Plan* p = find(h);
  if (!p) return CUFFT_INVALID_PLAN;
  p->stream = reinterpret_cast<CUstream>(stream);
  return CUFFT_SUCCESS;
}
cufftResult cufftGetVersion(int* version) {
  if (!version) return CUFFT_INVALID_VALUE;
  *version = CUFFT_VERSION;
  return CUFFT_SUCCESS;
}
cufftResult cufftGetProperty(libraryPropertyType type, int* value) {
  if (!value) return CUFFT_INVALID_VALUE;
  switch (type) {
    case MAJOR_VERSION:
      *value = CUFFT_VER_MAJOR;
      break;
    case MINOR_VERSION:
      *value = CUFFT_VER_MINOR;
      break;
    case PATCH_LEVEL:
      *value = CUFFT_VER_PATCH;
      break;
    default:
      return CUFFT_INVALID_TYPE;
  }
  return CUFFT_SUCCESS;
}

cufftResult cufftExecC2C(cufftHandle h, cufftComplex* in, cufftComplex* out, int dir) {
  return exec(h, "cufftExecC2C", CUFFT_C2C, in, out, dir);
}
cufftResult cufftExecR2C(cufftHandle h, cufftReal* in, cufftComplex* out) {
  return exec(h, "cufftExecR2C", CUFFT_R2C, in, out, CUFFT_FORWARD);
}
cufftResult cufftExecC2R(cufftHandle h, cufftComplex* in, cufftReal* out) {
  return exec(h, "cufftExecC2R", CUFFT_C2R, in, out, CUFFT_INVERSE);
}
cufftResult cufftExecZ2Z(cufftHandle h, cufftDoubleComplex* in, cufftDoubleComplex* out, int dir) {
  return exec(h, "cufftExecZ2Z", CUFFT_Z2Z, in, out, dir);
}
cufftResult cufftExecD2Z(cufftHandle h, cufftDoubleReal* in, cufftDoubleComplex* out) {
  return exec(h, "cufftExecD2Z", CUFFT_D2Z, in, out, CUFFT_FORWARD);
}
cufftResult cufftExecZ2D(cufftHandle h, cufftDoubleComplex* in, cufftDoubleReal* out) {
  return exec(h, "cufftExecZ2D", CUFFT_Z2D, in, out, CUFFT_INVERSE);
}

}  // extern "C"
