# The padded tile (one extra column) removes the conflict of setRowReadCol.
analyze ../../../kernels/tiles.cu --kernel setRowReadColPad
