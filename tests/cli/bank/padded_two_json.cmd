# Two padding columns: 2 wavefronts per request; JSON output.
bank 'tile[threadIdx.x][threadIdx.y]' --decl 'int tile[32][34]' --block 32 --json
