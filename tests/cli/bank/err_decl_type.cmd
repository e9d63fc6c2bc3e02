bank 'tile[threadIdx.x]' --decl 'integer tile[32]'
