# Program mode is not supported yet: exit 2, saying what is missing and the way round.
fix column_read.cu --kernel columnRead -- ./app 256
