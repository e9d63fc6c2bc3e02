run data/fault_blocks.ptx
