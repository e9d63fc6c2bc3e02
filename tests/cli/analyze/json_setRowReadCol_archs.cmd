# --json with what-if models: sm_90, Kepler 4-byte mode, Fermi.
analyze ../../../kernels/tiles.cu --kernel setRowReadCol --arch sm_90,sm_35:4,sm_20 --json
