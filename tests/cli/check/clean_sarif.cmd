check ../../defects/clean_reverse.cu --sarif
