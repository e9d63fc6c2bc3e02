# Annotated source of a conflict-free kernel (tests/defects/clean_reverse.cu, its in-file recipe).
analyze ../../defects/clean_reverse.cu
