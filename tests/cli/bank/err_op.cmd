bank --addresses 0 --op read
