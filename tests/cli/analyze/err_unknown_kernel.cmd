analyze ../../../kernels/tiles.cu --kernel noSuchKernel
