bank 'tile[threadIdx.x][i]' --decl 'int tile[32][32]'
