# Windows line ends are accepted.
bank --batch data/crlf.tsv
