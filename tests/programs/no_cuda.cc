// A program that never touches CUDA.
#include <cstdio>
int main() {
  std::printf("hello without CUDA\n");
  return 0;
}
