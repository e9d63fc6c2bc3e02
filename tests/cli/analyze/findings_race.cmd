# analyze also runs the checkers: findings are listed after the bank report.
analyze ../../defects/race_missing_sync.cu
