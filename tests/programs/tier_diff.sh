#!/usr/bin/env bash
# Issue 30's differential test: tier_diff.sh COMMAND... runs COMMAND (smemlab
# run|analyze|check ... -- APP) under SMEMLAB_TIER=interp and =jit and fails
# unless both give the same exit status, stdout and stderr (wall times, the
# one thing allowed to differ, are masked). Prints the difference.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for tier in interp jit; do
  SMEMLAB_TIER=$tier timeout "${SMEMLAB_TEST_TIMEOUT:-300}" "$@" >"$tmp/$tier.out" 2>"$tmp/$tier.err"
  echo $? >"$tmp/$tier.code"
  # (Wall and CPU times, as run_golden.sh masks them, and device addresses:
  # they are the process's mappings, which differ from run to run.)
  for k in out err; do
    sed -E 's/ in [0-9]+\.[0-9]+ s\b/ in T s/g; s/"(wall|elapsed|seconds|time)[a-z_]*": *[0-9.e+-]+/"\1": T/g; s/0x[0-9a-f]{8,}/0xADDR/g' \
      "$tmp/$tier.$k" >"$tmp/$tier.$k.masked"
  done
done
status=0
for k in code out.masked err.masked; do
  if ! diff -u "$tmp/interp.$k" "$tmp/jit.$k"; then
    echo "tier_diff: ${k%.masked} differs between SMEMLAB_TIER=interp and jit"
    status=1
  fi
done
[ "$(cat "$tmp/jit.code")" -lt 100 ] || { echo "tier_diff: crashed ($(cat "$tmp/jit.code"))"; status=1; }
if [ $status = 0 ]; then
  echo "tier_diff: identical (exit $(cat "$tmp/jit.code"), $(wc -l <"$tmp/jit.out") lines of stdout)"
fi
exit $status
