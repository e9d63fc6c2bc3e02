run data/many_regs.ptx --grid 1 --block 1
