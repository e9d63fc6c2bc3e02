# A .ptx name on a device: rejected without reading it.
run data/zero.ptx
