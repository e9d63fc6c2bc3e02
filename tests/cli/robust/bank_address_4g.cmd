bank --addresses 4294967296,4
