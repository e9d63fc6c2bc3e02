# 8-byte elements under every what-if column: Kepler's 8-byte mode halves the ways.
analyze ../../../kernels/tiles.cu --kernel setRowReadCol8 --arch sm_90,sm_35:4,sm_35:8,sm_20
