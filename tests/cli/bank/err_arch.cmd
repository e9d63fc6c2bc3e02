bank --addresses 0 --arch sm_52
