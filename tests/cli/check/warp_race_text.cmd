# A warning-only finding (warp-race): check still exits 1 (issue 6: exit 1 when there are findings).
check ../../defects/warp_race_unrolled.cu
