# nvcc fails: exit 2 with nvcc's message.
analyze data/syntax_error.cu
