#!/usr/bin/env bash
# Ctrl-C and temporary files (issue 10): signals_test.sh SMEMLAB
# - SIGINT/SIGTERM during a long launch end `run`/`check` with exit code 130
#   and "smemlab: interrupted", without output on stdout;
# - a .cu input (when nvcc exists) leaves nothing in TMPDIR, whether the run
#   ends normally, with a kernel fault, or by SIGINT while it runs.
set -u
smemlab=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
fail() {
  echo "FAILED: $*"
  status=1
}

cat >"$tmp/spin.ptx" <<'PTX'
.version 9.0
.target sm_90
.address_size 64
.visible .entry spin()
{
$L:
	bra.uni 	$L;
}
PTX

# Whether PID has installed a handler for signal number N (SigCgt in
# /proc/PID/status). Without /proc, after 3 s it is taken to have one.
catches() {  # PID N
  local mask
  if [ ! -r "/proc/$1/status" ]; then
    sleep 3
    return 0
  fi
  mask=$(awk '/^SigCgt:/ { print $2 }' "/proc/$1/status" 2>/dev/null)
  [ -n "$mask" ] && (((16#$mask >> ($2 - 1)) & 1))
}

# Waits up to 60 s for the process to show it is running and to catch INT and
# TERM (a signal before that ends it with 128+N, which the checks below
# report), then signals it. Polling, not a fixed sleep: the test takes as
# long as the machine needs, however loaded.
wait_running() {  # PID FILE-THAT-APPEARS-WHEN-RUNNING
  for _ in $(seq 600); do
    if [ -z "$2" ] || compgen -G "$2" >/dev/null; then
      catches "$1" 2 && catches "$1" 15 && break
    fi
    sleep 0.1
  done
  # And a moment for the launch itself to start (a signal just before it
  # stops the launch at its first block, with the same outcome).
  sleep 0.5
}
interrupt() {  # PID SIGNAL FILE-THAT-APPEARS-WHEN-RUNNING
  wait_running "$1" "$3"
  kill "-$2" "$1"
  wait "$1"
}

for sig in INT TERM; do
  for cmd in run check; do
    mkdir -p "$tmp/t"
    TMPDIR=$tmp/t "$smemlab" "$cmd" "$tmp/spin.ptx" --grid 4 --block 32 \
      --budget 18446744073709551615 >"$tmp/out" 2>"$tmp/err" &
    interrupt $! "$sig" ""
    code=$?
    [ "$code" = 130 ] || fail "$cmd, SIG$sig: exit code $code, expected 130"
    grep -q "^smemlab: interrupted$" "$tmp/err" || fail "$cmd, SIG$sig: stderr: $(cat "$tmp/err")"
    [ -s "$tmp/out" ] && fail "$cmd, SIG$sig: output on stdout: $(cat "$tmp/out")"
  done
done

# The progress line: on a terminal (script(1) gives one) after a second, not
# with --quiet, never when stderr is not a terminal (all the cases above).
cat >"$tmp/empty.ptx" <<'PTX'
.version 9.0
.target sm_90
.address_size 64
.visible .entry empty()
{
	ret;
}
PTX
grep -q "blocks/s" "$tmp/err" && fail "progress line written to a stderr that is not a terminal"
if command -v script >/dev/null; then
  for quiet in "" --quiet; do
    # script -f writes the typescript as it comes: interrupted once the line
    # is there (at most 60 s), or, with --quiet, 3 s into the launch (the
    # line would come after one).
    rm -f "$tmp/typescript" "$tmp/pid"
    script -qfec "echo \$\$ >'$tmp/pid'; exec '$smemlab' run '$tmp/empty.ptx' --grid 2147483647 --block 32 $quiet" \
      "$tmp/typescript" >/dev/null 2>&1 &
    script_pid=$!
    for _ in $(seq 600); do
      [ -s "$tmp/pid" ] && catches "$(cat "$tmp/pid")" 2 && break
      sleep 0.1
    done
    if [ -z "$quiet" ]; then
      for _ in $(seq 600); do
        grep -q "blocks/s" "$tmp/typescript" 2>/dev/null && break
        sleep 0.1
      done
    else
      sleep 3
    fi
    pid=$(cat "$tmp/pid" 2>/dev/null)
    if [ -n "$pid" ]; then
      kill -INT "$pid"
    else
      fail "progress run$quiet: smemlab did not start under script(1)"
      kill "$script_pid"
    fi
    wait "$script_pid"
    if [ -z "$quiet" ]; then
      grep -q "empty: [0-9]*/2147483647 blocks, [0-9]* blocks/s" "$tmp/typescript" ||
        fail "no progress line on a terminal: $(tr '\r' '\n' <"$tmp/typescript" | tail -3)"
    else
      grep -q "blocks/s" "$tmp/typescript" && fail "progress line despite --quiet"
    fi
    grep -q "smemlab: interrupted" "$tmp/typescript" || fail "progress run$quiet not interrupted"
  done
else
  echo "no script(1): the progress-line cases are skipped"
fi

# ... and never in a JSON or SARIF stream: stderr a terminal, the stream
# redirected; a launch of a few seconds of emulation on one host thread (it ends
# normally), so the line is shown on the terminal while the stream stays one
# document.
cat >"$tmp/loop.ptx" <<'PTX'
.version 9.0
.target sm_90
.address_size 64
.visible .entry loop()
{
	.reg .u32 	%r<2>;
	.reg .pred 	%p<2>;
	mov.u32 	%r0, 0;
$L:
	add.u32 	%r0, %r0, 1;
	setp.lt.u32 	%p0, %r0, 2000000;
	@%p0 bra.uni 	$L;
	ret;
}
PTX
if command -v script >/dev/null; then
  for fmt in --json --sarif; do
    script -qec "'$smemlab' check '$tmp/loop.ptx' --grid 64 --block 32 --threads 1 $fmt >'$tmp/stream'" \
      "$tmp/typescript" >/dev/null 2>&1
    grep -q "loop: [0-9]*/64 blocks, [0-9]* blocks/s" "$tmp/typescript" ||
      fail "check $fmt: no progress line on the terminal: $(tr '\r' '\n' <"$tmp/typescript" | tail -3)"
    grep -q "blocks/s" "$tmp/stream" && fail "check $fmt: progress line in the $fmt stream"
    python3 -m json.tool "$tmp/stream" >/dev/null 2>&1 ||
      fail "check $fmt: the stream is not one JSON document: $(head -c 300 "$tmp/stream")"
  done
fi

nvcc=$(command -v nvcc || true)
[ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
if [ -n "$nvcc" ]; then
  cat >"$tmp/spin.cu" <<'CU'
// smemlab: --kernel spin --grid 2 --block 32 --arg int[1]=zeros
__global__ void spin(volatile int* flag) { while (*flag == 0) {} }
// smemlab: --kernel fault --grid 8 --block 32 --arg int[1]=zeros
__global__ void fault(int* p) { p[1 << 20] = threadIdx.x; }
CU
  rm -rf "$tmp/t" && mkdir "$tmp/t"
  TMPDIR=$tmp/t "$smemlab" check "$tmp/spin.cu" --kernel fault >/dev/null 2>&1
  code=$?
  [ "$code" = 1 ] || fail "check of a faulting .cu kernel: exit code $code, expected 1"
  [ -z "$(ls -A "$tmp/t")" ] && true || fail "after check: left in TMPDIR: $(ls -A "$tmp/t")"

  rm -rf "$tmp/t" && mkdir "$tmp/t"
  TMPDIR=$tmp/t "$smemlab" run "$tmp/spin.cu" --kernel spin --budget 18446744073709551615 \
    >/dev/null 2>"$tmp/err" &
  interrupt $! INT "$tmp/t/smemlab-*/kernel.ptx"
  code=$?
  [ "$code" = 130 ] || fail ".cu run, SIGINT: exit code $code, expected 130 ($(cat "$tmp/err"))"
  [ -z "$(ls -A "$tmp/t")" ] || fail ".cu run, SIGINT: left in TMPDIR: $(ls -A "$tmp/t")"
else
  echo "no nvcc: the .cu temporary-file cases are skipped"
fi
[ $status = 0 ] && echo "signals: all cases passed"
exit $status
