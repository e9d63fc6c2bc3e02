# A name that is not UTF-8 (found by fuzz.tsv): replaced by U+FFFD, not a crash.
bank --batch data/latin1_name.tsv
