#!/usr/bin/env bash
# programs.h100_PROGRAM: PROGRAM under `smemlab run` prints what the H100
# printed (tests/data/h100_cdp.txt, the section "==== PROGRAM" up to its
# "exit N" line), line for line, and exits as it did. LINES: compare only
# the last LINES lines (0: all): cdp_print_tree's blocks print in an order
# the GPU does not define, its summary is fixed.
#   h100_compare.sh SMEMLAB EXPECTED PROGRAM [LINES]
set -u
smemlab=$1 expected=$2 program=$3 lines=${4:-0}
name=$(basename "$program")
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$smemlab" run --quiet -- "$program" >"$out" 2>/dev/null
got=$?
section=$(awk -v m="==== $name" '$0 == m { on = 1; next } on && /^exit / { exit } on { print }' "$expected")
want=$(awk -v m="==== $name" '$0 == m { on = 1; next } on && /^exit / { print $2; exit }' "$expected")
if [ -z "$want" ]; then
  echo "no section '==== $name' in $expected"
  exit 1
fi
cut() { if [ "$lines" = 0 ]; then cat; else tail -n "$lines"; fi; }
ok=1
if ! diff <(printf '%s\n' "$section" | cut) <(cut <"$out"); then
  echo "stdout: smemlab's (>) differs from the H100's (<)"
  ok=0
fi
if [ "$got" != "$want" ]; then
  echo "exit status $got, the H100's $want"
  ok=0
fi
[ $ok = 1 ] && echo "same as the H100: $name"
[ $ok = 1 ]
