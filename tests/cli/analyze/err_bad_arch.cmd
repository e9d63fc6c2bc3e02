analyze ../../../kernels/tiles.cu --kernel setRowReadCol --arch sm_90,sm_52
