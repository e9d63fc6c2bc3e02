#!/usr/bin/env bash
# Wall time of `smemlab fix` per kernel (docs/fix.md, "Speed"). Run from the
# repository root after a Release build: tests/fix/time-fix.sh [build/smemlab]
set -u
smemlab=${1:-build/smemlab}
for spec in kernels/tiles.cu:setRowReadCol kernels/tiles.cu:setColReadCol \
    kernels/tiles.cu:setRowReadColDyn kernels/tiles.cu:setRowReadColRect \
    kernels/tiles.cu:setRowReadColRectDyn kernels/tiles.cu:setRowReadCol8 \
    kernels/tiles.cu:setColReadCol8 kernels/tiles.cu:setRowReadColRect8 \
    kernels/transpose.cu:transposeCoalesced kernels/reduction.cu:reduce_interleaved_strided \
    kernels/tiles.cu:setRowReadRow tests/fix/raw_dump.cu:dumpTile; do
  f=${spec%%:*} k=${spec##*:}
  s=$(date +%s.%N)
  "$smemlab" fix "$f" --kernel "$k" >/dev/null 2>&1
  rc=$?
  e=$(date +%s.%N)
  printf '%s %s exit %d %.1f s (load %s)\n' "$f" "$k" "$rc" "$(echo "$e - $s" | bc)" \
    "$(cut -d' ' -f1 /proc/loadavg)"
done
