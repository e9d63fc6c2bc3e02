bank --batch data/bad_width.tsv
