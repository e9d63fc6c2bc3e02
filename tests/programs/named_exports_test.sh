#!/usr/bin/env bash
# named_exports_test.sh STUB_LIBCUDA OUR_LIBCUDA: every function the CUDA
# toolkit's libcuda.so exports (its link stub: what `-lcuda` links against)
# must be exported by name by smemlab's libcuda.so.1 too, or a program
# calling it directly fails to load. Lists the missing names; then
# scripts/gen-named-exports > src/runtime/named_exports.inc brings the list
# up to date with the installed toolkit.
set -u
names() { nm -D --defined-only "$1" | awk '$2 ~ /^[TW]$/ && $3 ~ /^cu/ {print $3}' | sort -u; }
missing=$(comm -23 <(names "$1") <(names "$2"))
if [ -n "$missing" ]; then
  echo "exported by $1 but not by $2 ($(echo "$missing" | wc -l) names):"
  echo "$missing"
  exit 1
fi
echo "all $(names "$1" | wc -l) driver functions of $1 are exported by $2"
