# Issue 29: bank conflicts and per-line counts inside real calls (recursion, function pointers)
analyze data/calls_conflicts.cu
