bank --batch data/empty.tsv
