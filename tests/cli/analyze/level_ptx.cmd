# --level ptx: counts the PTX's requests and says so (docs/sass.md).
analyze ../../defects/clean_reverse.cu --level ptx --json
