# Professional CUDA C ch. 5: the column read of an int[32][32] tile is 32-way on sm_90.
analyze ../../../kernels/tiles.cu --kernel setRowReadCol
