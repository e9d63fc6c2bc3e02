bank --batch data/misaligned.tsv
