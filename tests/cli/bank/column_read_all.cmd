# The same read on every generation: Fermi 32-way, Kepler 16-way in 4-byte mode, Hopper 32-way.
bank 'tile[threadIdx.x][threadIdx.y]' --decl '__shared__ int tile[32][32];' --block 32,32 --arch all
