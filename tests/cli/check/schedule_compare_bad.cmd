check ../../emu/kernels/schedule.cu --kernel accumulateShared --compare-schedules gpu,bogus
