bank --batch data/no_mask.tsv
