#!/usr/bin/env bash
# Run THERE (the GPU machine) after gpu-prepare.sh here: policy sweeps of the sort families through `vksort
# bench` (warm clocks, batched runs; the timing example is for per-pass breakdowns only). Each line of
# $OUT/sweep.csv: algorithm, policy overrides (VKSORT_POLICY), key, value, n, median ms.
#   bash scripts/gpu-sweep.sh "merge:merge_items_per_invocation=8" "bitonic:workgroup_size=1024" ...   (ALGO:OVERRIDES; OVERRIDES may be empty)
# SWEEP_SIZES (log2, default 20,24), SWEEP_KEYS (default u32), SWEEP_VALUES (default none).
set -uo pipefail
[ -f .gpu/pack.tar.xz ] && tar -C .gpu -xJf .gpu/pack.tar.xz
. ./.device/gpu-prelude.sh >/dev/null
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"
export VKSORT_CACHE_DIR=${VKSORT_CACHE_DIR:-/tmp/vkcache}
echo "algo,policy,key,value,n,ms" > "$OUT/sweep.csv"
for item in "$@"; do
  algo=${item%%:*}; policy=${item#*:}
  VKSORT_POLICY=$policy .gpu/bin/vksort bench --ops sort --algos "$algo" --keys "${SWEEP_KEYS:-u32}" \
    --values "${SWEEP_VALUES:-none}" --sizes "${SWEEP_SIZES:-20,24}" --reps 5 --warmup 1 --no-plots \
    --out-dir /tmp/sweep > /tmp/sweep.log 2>&1 || { echo "$item failed: $(tail -n 1 /tmp/sweep.log)"; continue; }
  python3 - "$algo" "$policy" >> "$OUT/sweep.csv" <<'PY'
import csv, sys
for r in csv.DictReader(open('/tmp/sweep/bench.csv')):
    print(f"{sys.argv[1]},\"{sys.argv[2]}\",{r['key']},{r['value']},{r['n']},{r['ms_median']}")
PY
done
column -s, -t < "$OUT/sweep.csv"
