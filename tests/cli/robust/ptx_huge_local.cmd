# An input error (exit 2), not a kernel failure.
run data/huge_local.ptx --grid 1 --block 1
