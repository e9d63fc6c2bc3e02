# Professional CUDA C ch. 5 setRowReadCol: the column read of a 32x32 int tile is 32-way on sm_90.
bank 'tile[threadIdx.x][threadIdx.y]' --decl 'int tile[32][32]' --block 32,32
