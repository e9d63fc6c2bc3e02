check ../../defects/race_missing_sync.cu --sarif
