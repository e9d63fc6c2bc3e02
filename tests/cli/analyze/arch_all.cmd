analyze ../../../kernels/tiles.cu --kernel setRowReadCol --arch all
