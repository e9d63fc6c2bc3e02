bank --batch data/nonexistent.tsv
