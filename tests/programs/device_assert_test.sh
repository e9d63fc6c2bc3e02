#!/usr/bin/env bash
# programs.device_assert_MODE: device_assert MODE under `smemlab run` reports
# the H100's error codes (its stdout, line for line: the failing launch's
# error, sticky for every later call) and, for a failed assert, the
# device's message on stderr in the GPU's format (file named as nvcc was
# given it; the first failing thread's line; the H100 also printed two more
# threads of the block's next warp, which smemlab never runs: the fault
# stops the launch at the first failing warp).
#   device_assert_test.sh SMEMLAB EXPECTED PROGRAM MODE
set -u
smemlab=$1 expected=$2 program=$3 mode=$4
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
"$smemlab" run --quiet -- "$program" "$mode" >"$out" 2>"$err"
section() {  # section MODE stdout|stderr: that part of EXPECTED
  awk -v m="== device_assert $1:" -v p="-- $2" '
    index($0, "== device_assert ") == 1 { on = index($0, m) == 1; part = ""; next }
    on && /^-- / { part = $0; next }
    on && part == p { print }' "$expected"
}
ok=1
if ! diff <(section "$mode" stdout) "$out"; then
  echo "stdout: smemlab's (>) differs from the H100's (<)"
  ok=0
fi
first=$(section "$mode" stderr | head -1 | sed 's/^[^:]*\///')
if [ -n "$first" ]; then
  # The H100 ran a copy under .device/conform/; compare from the file's base name on.
  if ! grep -v '^==smemlab==' "$err" | sed 's/^[^:]*\///' | grep -qxF -- "$first"; then
    echo "stderr lacks the device's assert line: $first"
    ok=0
  fi
fi
if [ $ok = 0 ]; then
  echo "---- stderr"
  cat "$err"
  exit 1
fi
echo "PASS device_assert $mode: as on the H100"
