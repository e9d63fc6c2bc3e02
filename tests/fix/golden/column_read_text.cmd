# The column read of a 32x32 tile: ranked candidates, the proof, text output.
fix column_read.cu --kernel columnRead --arch sm_90,sm_35:8
