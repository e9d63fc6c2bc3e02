bank 'tile[threadIdx.x]'
