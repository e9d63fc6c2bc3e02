# The gate applies to the first model: 1920 excess on sm_13 (1984 on sm_90) passes 1920.
analyze ../../../kernels/tiles.cu --kernel setRowReadCol --arch sm_13,sm_90 --fail-on-excess 1920 --sarif
