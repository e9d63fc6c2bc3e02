# analyze --check also runs the checkers: findings are listed after the bank report.
analyze --check ../../defects/race_missing_sync.cu
