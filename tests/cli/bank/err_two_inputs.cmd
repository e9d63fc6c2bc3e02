bank 'tile[0]' --addresses 0
