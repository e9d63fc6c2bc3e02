check ../../defects/divergent_barrier_ifelse.cu --json
