# Without --check, analyze counts only (as Nsight Compute): the race is check's
# to find, and the JSON says the checkers did not run.
analyze --json --level ptx ../../defects/race_missing_sync.cu
