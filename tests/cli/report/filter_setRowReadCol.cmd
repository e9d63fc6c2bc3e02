# The tiles kernels of Professional CUDA C ch. 5, sm_90 beside Fermi and Kepler.
report --kernels ../../../kernels --filter setRowReadCol
