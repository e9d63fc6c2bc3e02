bank --addresses 0,4,8 --mask 0xf
