bank --addresses 0 --mask 0x1ffffffff
