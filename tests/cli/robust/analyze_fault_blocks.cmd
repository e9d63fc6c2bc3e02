analyze --threads 1 data/fault_blocks.ptx
