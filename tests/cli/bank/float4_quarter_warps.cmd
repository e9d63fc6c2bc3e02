# 16-byte elements are served per quarter-warp on sm_90; a stride of 2 float4 conflicts.
bank 'v[2 * threadIdx.x]' --decl 'float4 v[64]'
