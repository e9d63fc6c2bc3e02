# laneid, warpid and blockDim: each warp reads its own padded row.
bank 's[warpid * (blockDim.x / 2 + 1) + laneid]' --decl 'int s[4 * 33]' --block 64,2
