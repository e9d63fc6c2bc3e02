# SARIF of a kernel without excess wavefronts: no results.
analyze ../../defects/clean_reverse.cu --sarif
