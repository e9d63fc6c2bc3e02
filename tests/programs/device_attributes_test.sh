#!/usr/bin/env bash
# programs.device_attributes: device_attributes under `smemlab run` answers
# what the H100 answered (tests/data/h100_device_attributes.txt), line for
# line, except where the two machines must differ:
#   prop name          smemlab appends " (smemlab emulator)" to the device name
#   PCI location       the measured card sat at bus 0, device 6; smemlab says 0000:01:00.0
# Usage: device_attributes_test.sh SMEMLAB PROGRAM EXPECTED
set -u
smemlab=$1 program=$2 expected=$3
got=$(mktemp)
trap 'rm -f "$got"' EXIT
"$smemlab" run --quiet -- "$program" >"$got" 2>&1 || {
  cat "$got"
  exit 1
}
skip='^(prop name|attr PCI_BUS_ID|attr PCI_DEVICE_ID|prop pciBusID|prop pciDeviceID) '
if ! diff <(grep -Ev "$skip" "$expected") <(grep -v '^==smemlab==' "$got" | grep -Ev "$skip"); then
  echo "device_attributes: smemlab's answers (>) differ from the H100's (<)"
  exit 1
fi
grep -q '^prop name NVIDIA H100 80GB HBM3 (smemlab emulator)$' "$got" || {
  echo "device name: $(grep '^prop name' "$got")"
  exit 1
}
echo "PASS device_attributes: $(grep -c '' "$expected") answers as the H100's"
