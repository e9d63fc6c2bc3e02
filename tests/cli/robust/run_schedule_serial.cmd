run ../../emu/kernels/schedule.cu --kernel accumulateGlobal --grid 1 --block 32,8 --arg float[256]=iota --arg float[32]=zeros --arg int=8 --print 1 --schedule serial
