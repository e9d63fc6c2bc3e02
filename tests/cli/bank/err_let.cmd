bank 'tile[i]' --decl 'int tile[32]' --let 'i=3 +'
