bank 'tile[threadIdx.x + 1][threadIdx.y]' --decl 'int tile[32][32]' --block 32,32
