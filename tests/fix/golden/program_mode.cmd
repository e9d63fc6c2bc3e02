# Program mode with a program that is not there: exit 2, naming it.
fix column_read.cu --kernel columnRead -- ./app 256
