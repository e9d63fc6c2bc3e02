run data/device_launch.cu --rdc --kernel parent --grid 1 --block 4 --arg int[5]=zeros --print 0
