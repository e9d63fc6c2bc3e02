bank --addresses 0 --arch all --bank-mode 8
