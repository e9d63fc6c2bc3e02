# The verified change as a unified diff for patch -p1.
fix column_read.cu --kernel columnRead --patch
