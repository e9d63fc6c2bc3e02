run data/scale.ptx --grid 1 --block 32 --arg 'float[4]=iota' --arg unsigned=0x4 --arg float=-2.5 --print 0
