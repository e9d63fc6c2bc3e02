# SARIF 2.1.0: one result per line with excess wavefronts.
analyze ../../../kernels/tiles.cu --kernel setRowReadCol --sarif
