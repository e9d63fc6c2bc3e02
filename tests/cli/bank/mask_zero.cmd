# No active lane: every warp costs 0 and the map says so.
bank 'tile[threadIdx.x]' --decl 'int tile[32]' --mask 0
