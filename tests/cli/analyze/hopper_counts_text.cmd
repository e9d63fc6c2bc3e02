# The same counts in the text report: per line and in the summary.
analyze data/hopper_counts.ptx
