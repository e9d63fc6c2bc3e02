# --blocks 1 of 2: the access pattern does not depend on blockIdx, so the scaled counts must equal text_setRowReadCol's; the scaling is stated.
analyze ../../../kernels/tiles.cu --kernel setRowReadCol --blocks 1
