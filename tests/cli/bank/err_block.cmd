bank 'tile[threadIdx.x]' --decl 'int tile[32]' --block 64,32
