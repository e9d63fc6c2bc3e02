run data/scale.ptx --grid 1 --block 32 --arg 'float[4]=iota' --arg unsigned=4294967297 --arg float=2
