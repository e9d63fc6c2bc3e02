# One padding column makes the column read conflict-free (two make it 2-way).
bank 'tile[threadIdx.x][threadIdx.y]' --decl 'int tile[BDIMY][BDIMX + PAD]' --let BDIMX=32 --let BDIMY=32 --let PAD=1 --block 32,2
