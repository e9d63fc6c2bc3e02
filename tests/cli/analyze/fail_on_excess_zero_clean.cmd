# A conflict-free kernel passes a zero gate.
analyze ../../../kernels/tiles.cu --kernel setRowReadColPad --fail-on-excess 0 --json
