#!/usr/bin/env bash
# Issue 30's differential test: tier_diff.sh COMMAND... runs COMMAND (smemlab
# run|analyze|check ... -- APP) under SMEMLAB_TIER=interp, =jit and =native
# (the runs as native code, compiled before the first launch) and fails
# unless all give the same exit status, stdout and stderr (wall times, the
# one thing allowed to differ, are masked), and unless native code was
# compiled or loaded for at least one kernel (SMEMLAB_NATIVE_VERBOSE's
# lines, taken out of its stderr before the comparison). Prints the
# difference. The compiled code is cached in SMEMLAB_NATIVE_TEST_CACHE.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="${SMEMLAB_NATIVE_TEST_CACHE:-$tmp/cache}"
for tier in interp jit native; do
  SMEMLAB_NATIVE_VERBOSE=$([ $tier = native ] && echo 1 || echo 0) SMEMLAB_TIER=$tier timeout "${SMEMLAB_TEST_TIMEOUT:-300}" "$@" >"$tmp/$tier.out" 2>"$tmp/$tier.err"
  echo $? >"$tmp/$tier.code"
  # (Wall and CPU times, as run_golden.sh masks them, and device addresses:
  # they are the process's mappings, which differ from run to run.)
  if [ $tier = native ]; then
    grep -c '^smemlab: native runs of ' "$tmp/$tier.err" >"$tmp/native.count"
    grep -v '^smemlab: native runs of ' "$tmp/$tier.err" >"$tmp/$tier.err.kept"
    mv "$tmp/$tier.err.kept" "$tmp/$tier.err"
  fi
  for k in out err; do
    sed -E 's/ in [0-9]+\.[0-9]+ s\b/ in T s/g; s/"(wall|elapsed|seconds|time)[a-z_]*": *[0-9.e+-]+/"\1": T/g; s/0x[0-9a-f]{8,}/0xADDR/g' \
      "$tmp/$tier.$k" >"$tmp/$tier.$k.masked"
  done
done
status=0
for tier in jit native; do
  for k in code out.masked err.masked; do
    if ! diff -u "$tmp/interp.$k" "$tmp/$tier.$k"; then
      echo "tier_diff: ${k%.masked} differs between SMEMLAB_TIER=interp and $tier"
      status=1
    fi
  done
  [ "$(cat "$tmp/$tier.code")" -lt 100 ] || { echo "tier_diff: $tier crashed ($(cat "$tmp/$tier.code"))"; status=1; }
done
if [ "$(cat "$tmp/native.count")" = 0 ]; then
  echo "tier_diff: SMEMLAB_TIER=native compiled no kernel's runs"
  status=1
fi
if [ $status = 0 ]; then
  echo "tier_diff: identical (exit $(cat "$tmp/jit.code"), $(wc -l <"$tmp/jit.out") lines of stdout; native code of $(cat "$tmp/native.count") kernel(s))"
fi
exit $status
