# The verified change as SARIF fixes.
fix column_read.cu --kernel columnRead --sarif
