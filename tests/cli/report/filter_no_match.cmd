report --kernels ../../../kernels --filter noSuchKernel
