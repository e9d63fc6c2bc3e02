# --arch all with --json: one entry per generation.
bank --addresses 0,128 --arch all --json
