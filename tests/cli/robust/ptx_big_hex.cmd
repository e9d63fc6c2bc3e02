run data/big_hex.ptx --grid 1 --block 1
