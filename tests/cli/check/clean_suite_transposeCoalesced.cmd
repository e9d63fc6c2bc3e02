# Suite kernels give no finding.
check ../../../kernels/transpose.cu --kernel transposeCoalesced
