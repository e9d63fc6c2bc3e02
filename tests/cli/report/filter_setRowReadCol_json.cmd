report --kernels ../../../kernels --filter setRowReadColRect --json
