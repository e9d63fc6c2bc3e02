# setRowReadCol has 1984 excess wavefronts on sm_90: a gate at 1983 fails (exit 1).
analyze ../../../kernels/tiles.cu --kernel setRowReadCol --fail-on-excess 1983
