# 40 threads: the second warp has 8 lanes; a skewed index with --let.
bank 'tile[threadIdx.x % 8][(threadIdx.x + i) % 32]' --decl 'float tile[8][32]' --block 40 --let i=3
