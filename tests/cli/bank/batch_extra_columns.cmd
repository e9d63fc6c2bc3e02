# Columns in any order, extra ones ignored, comments and blank lines skipped.
bank --batch data/rows.tsv --arch sm_20
