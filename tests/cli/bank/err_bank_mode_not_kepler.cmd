bank --addresses 0 --bank-mode 8
