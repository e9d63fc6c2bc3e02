bank --addresses 0 --op atomic --arch sm_20
