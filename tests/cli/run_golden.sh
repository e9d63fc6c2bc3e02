#!/usr/bin/env bash
# One golden CLI test: run_golden.sh SMEMLAB CASE.cmd
# Runs `SMEMLAB <arguments of CASE.cmd>` in CASE's folder and compares stdout,
# stderr and the exit status with CASE.out, CASE.err and CASE.code; prints a
# unified diff and fails on any difference or missing expected file. With
# SMEMLAB_UPDATE_GOLDEN=1 it writes the expected files instead (see
# tests/cli/CMakeLists.txt).
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 SMEMLAB CASE.cmd" >&2
  exit 2
fi
smemlab=$1
case_file=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
base=${case_file%.cmd}
SHARED=${SMEMLAB_SHARED_DIR:-}
export SHARED

args=$(grep -v '^[[:space:]]*#' "$case_file" | tr '\n' ' ')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cd "$(dirname "$case_file")" || exit 2
eval "set -- $args"
"$smemlab" "$@" >"$tmp/out" 2>"$tmp/err"
echo $? >"$tmp/code"

if [ "${SMEMLAB_UPDATE_GOLDEN:-0}" = 1 ]; then
  for kind in out err code; do cp "$tmp/$kind" "$base.$kind"; done
  echo "updated $base.{out,err,code}"
  exit 0
fi

# Wall times ("13 warp-instructions in 0.000 s") depend on the machine and
# the build (an ASan build is slower): compared as "in T s".
times() { sed -E 's/ in [0-9]+\.[0-9]+ s\b/ in T s/g' "$1"; }

status=0
for kind in out err code; do
  if [ ! -f "$base.$kind" ]; then
    echo "missing $base.$kind (generate it with SMEMLAB_UPDATE_GOLDEN=1)"
    status=1
  elif ! diff -u --label "$base.$kind" --label actual <(times "$base.$kind") <(times "$tmp/$kind"); then
    echo "FAILED: $kind of $(basename "$case_file") differs (- expected, + actual)"
    status=1
  fi
done
exit $status
