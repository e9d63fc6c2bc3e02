run data/scale.ptx --grid 1 --block 32 --budget -1 --arg 'float[4]=iota' --arg unsigned=4 --arg float=2
