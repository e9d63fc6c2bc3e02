// A struct by value, a table of device pointers (T**), and an offset
// pointer (p + k) as kernel arguments.
#include <cstdio>
#include <vector>

struct Params {
  float scale;
  int n;
  float bias[3];
};

__global__ void apply(Params p, float* const* rows, float* out_offset) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.n) out_offset[i] = p.scale * rows[i % 3][i] + p.bias[i % 3];
}

int main() {
  const int n = 300, off = 17;
  std::vector<std::vector<float>> rows(3, std::vector<float>(n));
  for (int r = 0; r < 3; ++r)
    for (int i = 0; i < n; ++i) rows[r][i] = r * 1000 + i;
  float* d_rows[3];
  for (int r = 0; r < 3; ++r) {
    cudaMalloc(&d_rows[r], n * sizeof(float));
    cudaMemcpy(d_rows[r], rows[r].data(), n * sizeof(float), cudaMemcpyHostToDevice);
  }
  float** d_table;
  cudaMalloc(&d_table, sizeof d_rows);
  cudaMemcpy(d_table, d_rows, sizeof d_rows, cudaMemcpyHostToDevice);
  float* d_out;
  cudaMalloc(&d_out, (n + off) * sizeof(float));
  cudaMemset(d_out, 0, (n + off) * sizeof(float));
  Params p{2.5f, n, {1, 2, 3}};
  apply<<<(n + 127) / 128, 128>>>(p, d_table, d_out + off);
  std::vector<float> out(n + off);
  cudaError_t e = cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) {
    std::printf("FAIL: %s\n", cudaGetErrorString(e));
    return 1;
  }
  for (int i = 0; i < off; ++i)
    if (out[i] != 0) {
      std::printf("FAIL: out[%d] = %g, expected 0\n", i, out[i]);
      return 1;
    }
  for (int i = 0; i < n; ++i) {
    float want = p.scale * rows[i % 3][i] + p.bias[i % 3];
    if (out[off + i] != want) {
      std::printf("FAIL: out[%d] = %g, expected %g\n", off + i, out[off + i], want);
      return 1;
    }
  }
  for (float* r : d_rows) cudaFree(r);
  cudaFree(d_table);
  cudaFree(d_out);
  std::printf("PASS structs_pointers\n");
  return 0;
}
