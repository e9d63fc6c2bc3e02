# A store with a decimal mask, JSON output.
bank --addresses 0,128,256,384 --op store --mask 5 --json
