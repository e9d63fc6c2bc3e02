# An unknown --level is a usage error.
analyze ../../defects/clean_reverse.cu --level cubin
