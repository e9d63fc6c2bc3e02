# count * size would wrap: rejected before any allocation.
run data/scale.ptx --grid 1 --block 32 --arg 'float[4611686018427387904]=iota' --arg unsigned=4 --arg float=2
