bank --batch data/rows.tsv --arch all
