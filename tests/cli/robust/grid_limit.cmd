run data/scale.ptx --grid 1,65536 --block 32 --arg 'float[4]=iota' --arg unsigned=4 --arg float=2
