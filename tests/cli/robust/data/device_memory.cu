// Dynamic parallelism's device-side memory calls in kernel mode: cudaMalloc
// and cudaFree on the device heap, cudaMemsetAsync and cudaMemcpyAsync into
// a stream the block created (done at the call: the stream holds no launch
// yet). Expected: out = 7 7 7 7, then the status of each call (0: success).
__global__ void device_memory(int* out, int* status) {
  cudaStream_t s;
  status[0] = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  int* tmp = nullptr;
  status[1] = cudaMalloc((void**)&tmp, 4 * sizeof(int));
  status[2] = cudaMemsetAsync(tmp, 7, 4 * sizeof(int), s);
  for (int i = 0; i < 4; ++i) tmp[i] &= 0xff;
  status[3] = cudaMemcpyAsync(out, tmp, 4 * sizeof(int), cudaMemcpyDeviceToDevice, s);
  status[4] = cudaFree(tmp);
  status[5] = cudaStreamDestroy(s);
}
