analyze ../../../kernels/tiles.cu --kernel setRowReadCol --blocks 0
