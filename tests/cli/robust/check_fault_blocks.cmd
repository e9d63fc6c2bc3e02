# A kernel that faults in block 0 with 63 blocks left: one finding, no crash.
check data/fault_blocks.ptx
