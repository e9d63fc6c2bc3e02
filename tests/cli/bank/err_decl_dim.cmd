bank 'tile[threadIdx.x]' --decl 'int tile[32][0]'
