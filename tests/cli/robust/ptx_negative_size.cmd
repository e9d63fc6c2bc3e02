run data/negative_const.ptx --grid 1 --block 1
