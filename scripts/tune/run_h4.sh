#!/usr/bin/env bash
# Tuning call for the compute kernels (matmul, reduction, filter) on the GPU
# machine: device facts, SASS counts of the main kernels, optionally Nsight
# Compute on the best SGEMM and cuBLAS at 4096 (NCU=1) and compute-sanitizer
# memcheck/racecheck on --quick sizes (SAN=1), then the mini runner on the
# benchmarks named by the arguments (all when none). Logs go to $OUT.
#   bash scripts/tune/run_h4.sh [pattern ...]      (with .device/h4 carried)
set -uo pipefail
OUT=${OUT:-/tmp/h4-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu \
  --format=csv | tee "$OUT/smi.txt"
T=.device/h4/tune
if ! $T __none__ >/dev/null 2>&1; then
  echo "carried binary does not run here; rebuilding"
  nvcc -O3 -std=c++17 -arch=sm_90 -I. bench/matmul_bench.cu bench/reduction_bench.cu \
    bench/filter_bench.cu scripts/tune/mini_runner.cu -lcublas -o /tmp/tune && T=/tmp/tune
fi
cuobjdump -sass "$T" > /tmp/all.sass 2>/dev/null
for k in ${SASS_KERNELS:-sgemm_256x128x8_vec reduce_best fir_best}; do
  awk -v k="$k" '/Function : /{p = ($3 == k)} p' /tmp/all.sass > "/tmp/$k.sass"
  echo "$k: $(grep -cE 'FFMA' "/tmp/$k.sass") FFMA, $(grep -cE 'LDS\.128' "/tmp/$k.sass") LDS.128, $(grep -cE 'LDS' "/tmp/$k.sass") LDS*, $(grep -cE 'LDG' "/tmp/$k.sass") LDG, $(grep -cE 'BAR' "/tmp/$k.sass") BAR, $(grep -cE 'LDL|STL' "/tmp/$k.sass") local"
done
$T "$@" 2>&1 | tee "$OUT/tune.log"
if [[ "${NCU:-0}" == 1 ]]; then
  sections="--section SpeedOfLight --section ComputeWorkloadAnalysis --section SchedulerStats --section WarpStateStats --section MemoryWorkloadAnalysis --section Occupancy"
  timeout ${NCU_TIMEOUT:-60} ncu --clock-control none -k "${NCU_KERNEL:-sgemm_256x128x8_vec}" -c 1 $sections \
    $T "${NCU_BENCH:-matmul/sgemm256x128x8/4096}" > "$OUT/ncu_ours.txt" 2>&1
  echo "ncu ours rc $?"
  timeout ${NCU_TIMEOUT:-60} ncu --clock-control none -k regex:gemm -c 1 $sections \
    $T anchor/cublas-sgemm/4096 > "$OUT/ncu_cublas.txt" 2>&1
  echo "ncu cublas rc $?"
fi
if [[ "${SAN:-0}" == 1 ]]; then
  for tool in memcheck racecheck; do
    timeout "${SAN_TIMEOUT:-60}" compute-sanitizer --tool $tool --error-exitcode 9 \
      $T --quick ${SAN_PATTERNS:-/1000x reduction/ filter/} > "$OUT/san_$tool.txt" 2>&1
    echo "compute-sanitizer $tool rc $? (0 clean, 9 errors, 124 timeout)"
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY| failed$|FAIL" "$OUT/san_$tool.txt" | tail -4
  done
fi
nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv | tee -a "$OUT/smi.txt"
