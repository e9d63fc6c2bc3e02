check ../../emu/kernels/schedule.cu --kernel accumulateShared --compare-schedules serial,random:5
