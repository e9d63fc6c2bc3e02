run data/scale.ptx --grid 1 --block 1,1,65 --arg 'float[4]=iota' --arg unsigned=4 --arg float=2
