run data/big_float.ptx --grid 1 --block 1
