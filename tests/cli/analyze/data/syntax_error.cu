// Does not compile: `smemlab analyze` must exit 2 with nvcc's message.
// smemlab: --kernel broken --grid 1 --block 32 --arg int[32]=zeros
extern "C" __global__ void broken(int* out) {
  __shared__ int tile[32];
  tile[threadIdx.x] = undeclared_name;
  out[threadIdx.x] = tile[threadIdx.x];
}
