# Rejected by its name before a byte is read.
run /dev/zero
