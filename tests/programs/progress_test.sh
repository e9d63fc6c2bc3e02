#!/usr/bin/env bash
# Program mode's progress line: on a terminal (script(1) gives one) a launch
# over a second shows "launch N: KERNEL: D/T blocks, R blocks/s, ...", never
# with --quiet, never when stderr is not a terminal.
# Usage: progress_test.sh LONG_LAUNCH SMEMLAB-COMMAND... (e.g. env LD_PRELOAD=... smemlab)
set -uo pipefail
app=$1
shift
smemlab="$*"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
$smemlab run -- "$app" 200 2>"$tmp/err" >/dev/null || fail "run exited $?: $(tail -3 "$tmp/err")"
grep -q "blocks/s" "$tmp/err" && fail "progress line written to a stderr that is not a terminal"
command -v script >/dev/null || { echo "no script(1): the terminal cases are skipped"; exit 0; }
# The launch must take over a second: on a fast machine, more steps.
iters=6000
for attempt in 1 2 3; do
  start=$(date +%s%N)
  script -qfec "$smemlab run -- '$app' $iters" "$tmp/ts" >/dev/null 2>&1 ||
    fail "run under script(1) failed: $(tail -3 "$tmp/ts")"
  ms=$((($(date +%s%N) - start) / 1000000))
  if tr '\r' '\n' <"$tmp/ts" | grep -q "launch 0: spin(float\*, int): [0-9]*/2048 blocks, [0-9]* blocks/s"; then
    script -qfec "$smemlab run --quiet -- '$app' $iters" "$tmp/tsq" >/dev/null 2>&1 ||
      fail "run --quiet under script(1) failed"
    grep -q "long_launch: no error" "$tmp/tsq" || fail "the --quiet run did not finish"
    grep -q "blocks/s" "$tmp/tsq" && fail "progress line despite --quiet"
    echo "progress line shown ($iters steps, $ms ms); none with --quiet"
    exit 0
  fi
  # No line: only acceptable when the launch was too short for one.
  if [ "$ms" -gt 2500 ]; then
    fail "no progress line in a $ms-ms run: $(tr '\r' '\n' <"$tmp/ts" | tail -3)"
  fi
  iters=$((iters * 4))
done
fail "the launch never took over a second"
