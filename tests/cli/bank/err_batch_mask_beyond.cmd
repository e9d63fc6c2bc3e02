bank --batch data/mask_beyond.tsv
