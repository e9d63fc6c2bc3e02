# Explicit addresses, fewer than 32 (the rest inactive); several lanes on one word.
bank --addresses 0,0,0,0,4,8,132 --arch sm_35
