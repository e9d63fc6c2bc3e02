bank --batch data/rows.tsv --op load
