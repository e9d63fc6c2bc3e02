# A conflict-free kernel: nothing to fix.
fix column_read.cu --kernel rowRead
