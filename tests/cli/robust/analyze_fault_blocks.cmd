analyze data/fault_blocks.ptx
