check ../../defects/clean_reverse.cu --json
