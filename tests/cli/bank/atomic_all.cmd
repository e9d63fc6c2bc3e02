# Atomics are modelled from sm_70 on; older rows say so.
bank --addresses 0,0,4,4 --op atomic --arch all
