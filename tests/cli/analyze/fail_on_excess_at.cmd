# ... and a gate at exactly 1984 passes (exit 0): the kernel total counts each instruction once.
analyze ../../../kernels/tiles.cu --kernel setRowReadCol --fail-on-excess 1984
