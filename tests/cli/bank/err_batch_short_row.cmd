bank --batch data/short_row.tsv
