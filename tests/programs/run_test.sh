#!/usr/bin/env bash
# One program-mode test: run_test.sh CODE [EXPECT...] -- COMMAND...
# Runs COMMAND (smemlab ... -- APP), and checks that it exits with CODE and
# that its combined stdout/stderr matches every EXPECT (an extended regex,
# one line). Prints the output on failure. SMEMLAB_TEST_TIMEOUT: seconds
# before COMMAND is stopped (default 300).
set -u
code=$1
shift
expects=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  expects+=("$1")
  shift
done
shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
timeout "${SMEMLAB_TEST_TIMEOUT:-300}" "$@" >"$out" 2>&1
got=$?
ok=1
if [ "$got" != "$code" ]; then
  echo "exit status $got, expected $code"
  ok=0
fi
for e in "${expects[@]}"; do
  if ! grep -Eq -- "$e" "$out"; then
    echo "missing: $e"
    ok=0
  fi
done
if [ $ok = 0 ]; then
  echo "---- output of: $*"
  cat "$out"
  exit 1
fi
