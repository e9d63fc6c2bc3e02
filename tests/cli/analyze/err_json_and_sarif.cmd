analyze ../../../kernels/tiles.cu --kernel setRowReadCol --json --sarif
