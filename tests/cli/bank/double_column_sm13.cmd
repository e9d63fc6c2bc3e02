# CC 1.x: 64-bit data is two 32-bit requests per half-warp.
bank 'tile[threadIdx.y][threadIdx.x]' --decl 'double tile[32][32]' --block 16 --arch sm_13
