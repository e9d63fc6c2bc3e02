run data/device_memory.cu --rdc --kernel device_memory --grid 1 --block 1 --arg int[4]=zeros --arg int[6]=iota --print 0 --print 1
