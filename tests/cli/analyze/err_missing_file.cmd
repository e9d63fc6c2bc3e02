analyze data/no_such_file.cu
