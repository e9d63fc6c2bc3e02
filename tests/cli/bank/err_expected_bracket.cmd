bank 'tile[threadIdx.x][threadIdx.y' --decl 'int tile[32][32]'
