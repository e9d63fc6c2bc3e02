# CC 1.x leaves the broadcast word unspecified: best and worst differ here.
bank --addresses 0,64,64,128,128,128,0,64,4,68,68,4,8,8,72,136 --arch sm_13
