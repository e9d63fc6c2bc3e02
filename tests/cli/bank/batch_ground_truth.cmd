# Every row of the H100 ground truth (the repository's copy of
# shared/ground-truth/h100/patterns.tsv), one JSON object per row.
bank --batch ../../data/h100-patterns.tsv
