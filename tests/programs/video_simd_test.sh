#!/usr/bin/env bash
# programs.video_simd: `video_simd simd` under smemlab prints the SIMD forms'
# rows the H100 printed (the first rows of tests/data/h100_video.txt, up to
# the first scalar form), line for line; the scalar forms (vadd, vmad, ...)
# are refused by name.
#   video_simd_test.sh SMEMLAB EXPECTED PROGRAM
set -u
smemlab=$1 expected=$2 program=$3
got=$(mktemp)
err=$(mktemp)
trap 'rm -f "$got" "$err"' EXIT
"$smemlab" run --quiet -- "$program" simd >"$got" 2>"$err"
rows=$(grep -cE '^v[a-z]+[24]\.' "$expected")
want=$(mktemp)
trap 'rm -f "$got" "$err" "$want"' EXIT
{
  head -n "$rows" "$expected"
  echo "PASS video_simd ($rows SIMD forms x 64 operands)"
} >"$want"
if ! diff -q "$want" "$got" >/dev/null; then
  echo "smemlab's rows (>) differ from the H100's (<):"
  diff "$want" "$got" | head -20 | cut -c1-300
  head -20 "$err"
  exit 1
fi
# The scalar forms: the kernel that holds them is refused, naming the instruction.
"$smemlab" run --quiet -- "$program" >"$got" 2>"$err"
if ! grep -q "FAIL video_simd (scalar forms): cudaErrorNotSupported" "$got" ||
  ! grep -Eq "unsupported instruction 'v(add|sub|absdiff|min|max|shl|shr|mad|set)\." "$err"; then
  echo "the scalar forms were not refused by name:"
  tail -5 "$got"
  head -5 "$err"
  exit 1
fi
echo "PASS video_simd: $rows SIMD forms x 64 operands as on the H100; scalar forms refused by name"
