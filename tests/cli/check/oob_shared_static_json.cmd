check ../../defects/oob_shared_static.cu --json
