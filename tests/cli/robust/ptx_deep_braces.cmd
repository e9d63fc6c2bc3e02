run data/deep_braces.ptx --grid 1 --block 1
