# Output depends on the layout: every candidate is rejected by the proof (exit 1).
fix ../raw_dump.cu --kernel dumpTile --prove 2
