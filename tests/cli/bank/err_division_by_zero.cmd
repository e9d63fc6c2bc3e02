bank 'tile[32 / threadIdx.x]' --decl 'int tile[32]'
