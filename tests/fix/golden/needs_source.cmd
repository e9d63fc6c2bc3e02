# PTX cannot be fixed: the source is needed (exit 2).
fix missing.ptx --kernel k
