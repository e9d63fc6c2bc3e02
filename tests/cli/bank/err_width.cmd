bank --addresses 0 --width 3
