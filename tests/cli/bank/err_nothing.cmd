bank
