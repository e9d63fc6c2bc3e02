analyze ../../../kernels/transpose.cu --kernel transposeCoalesced --json
