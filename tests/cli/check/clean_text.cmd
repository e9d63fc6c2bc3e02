check ../../defects/clean_reverse.cu
