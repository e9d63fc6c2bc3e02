# --blocks 1 of 4: a race between blocks cannot be seen in one block, and
# the output says that only a sample was checked (all blocks: a global-race).
check ../../defects/global_race.cu --blocks 1
