bank --addresses 0,4,x
