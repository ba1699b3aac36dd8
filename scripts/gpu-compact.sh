#!/usr/bin/env bash
# Run THERE (the GPU machine) after gpu-prepare.sh here: the compaction's staging and tile study, beside CUB's
# select_if_odd from the same command. Each argument is STAGING:ITEMS[:WG] (VKSORT_COMPACT_STAGING = direct,
# tile or subgroup; VKSORT_COMPACT_ITEMS = elements per invocation, VKSORT_COMPACT_WG = invocations per
# workgroup; empty = the device policy's):
#   bash scripts/gpu-compact.sh tile: subgroup: subgroup:32 direct: subgroup:32:512
# COMPACT_SIZES (log2, default 20,24,28). $OUT/compact.csv: staging, items, wg, op, n, median ms; CUB's rows in
# $OUT/cub-compact.csv (its select_if_odd_u32 and exclusive_sum_u32 lines).
set -uo pipefail
[ -f .gpu/pack.tar.xz ] && tar -C .gpu -xJf .gpu/pack.tar.xz
. ./.device/gpu-prelude.sh >/dev/null
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"
export VKSORT_CACHE_DIR=${VKSORT_CACHE_DIR:-/tmp/vkcache}
sizes=${COMPACT_SIZES:-20,24,28}
if [ ! -x /tmp/cub_bench ]; then
  nvcc -O3 -std=c++17 -arch=sm_90 .device/cub_bench.cu -o /tmp/cub_bench 2>&1 | tail -3
fi
/tmp/cub_bench ${sizes//,/ } > /tmp/cub.csv && grep -E 'select_if|exclusive_sum_u32|memcpy_u32|^op' /tmp/cub.csv \
  | tee "$OUT/cub-compact.csv"
echo "staging,items,wg,op,n,ms" > "$OUT/compact.csv"
for item in "$@"; do
  IFS=: read -r staging items wg <<< "$item"
  VKSORT_COMPACT_STAGING=$staging VKSORT_COMPACT_ITEMS=$items VKSORT_COMPACT_WG=$wg .gpu/bin/vksort bench --ops compact,scan \
    --scan-algos lookback --sizes "$sizes" --reps 10 --warmup 2 --no-plots --out-dir /tmp/compact \
    > /tmp/compact.log 2>&1 || { echo "$item failed: $(tail -n 2 /tmp/compact.log)"; continue; }
  python3 - "$staging" "$items" "$wg" >> "$OUT/compact.csv" <<'PY'
import csv, sys
for r in csv.DictReader(open('/tmp/compact/bench.csv')):
    print(f"{sys.argv[1]},{sys.argv[2]},{sys.argv[3]},{r['op']},{r['n']},{r['ms_median']}")
PY
done
cat "$OUT/compact.csv"
