#!/usr/bin/env bash
# Run THERE (the GPU machine) after gpu-prepare.sh here: the Onesweep occupancy study of issue 19, in one call.
#   bash scripts/gpu-onesweep.sh "tile.workgroup_size=256,tile.items_per_invocation=12" "tile.workgroup_size=384,tile.items_per_invocation=16,tile.exchange_parts=2" ...   (radix policy overrides;
#   "POLICY|KNOBS" also sets RadixDebug knobs through VKSORT_RADIX_DEBUG, e.g. "tile.workgroup_size=256,tile.items_per_invocation=12|debug=8")
# 1. $OUT/residency.md: examples/residency (workgroups resident per SM against shared memory, size, registers);
#    skipped with ONESWEEP_NO_RESIDENCY=1.
# 2. $OUT/stats.txt: the driver's registers and shared memory of the Onesweep kernel under each policy
#    (examples/pipeline_stats, u32 keys, u32 pairs, u64 keys).
# 3. $OUT/clocks.txt: examples/tile_clocks at 2^24 u32 under each policy (tiles resident per SM, phase cycles).
# 4. $OUT/sweep.csv: `vksort bench` of Onesweep under each policy at $SWEEP_SIZES (default 24,28), keys
#    $SWEEP_KEYS (default u32), values $SWEEP_VALUES (default none), and $OUT/cub.csv: CUB from the same command.
set -uo pipefail
[ -f .gpu/pack.tar.xz ] && tar -C .gpu -xJf .gpu/pack.tar.xz
. ./.device/gpu-prelude.sh >/dev/null
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"
export VKSORT_CACHE_DIR=${VKSORT_CACHE_DIR:-/tmp/vkcache}
(nvcc -O3 -std=c++17 -arch=sm_90 .device/cub_bench.cu -o /tmp/cub_bench 2>&1 | tail -3) &
nvcc_pid=$!
if [ -z "${ONESWEEP_NO_RESIDENCY:-}" ]; then
  timeout 240 .gpu/bin/example-residency > "$OUT/residency.md" 2>&1; echo "residency exit $?"
fi
# CUB before the sweep, so that a sweep cut short by the call's limit still has its anchor.
wait "$nvcc_pid"
/tmp/cub_bench ${CUB_SIZES:-24 28} > "$OUT/cub.csv" 2>/dev/null
: > "$OUT/stats.txt"; : > "$OUT/clocks.txt"
for arg in "$@"; do
  p=${arg%%|*}; d=""; [[ $arg == *"|"* ]] && d=${arg#*|}
  echo "== $arg" >> "$OUT/stats.txt"
  VKSORT_ALGOS=onesweep VKSORT_POLICY=$p timeout 120 .gpu/bin/example-pipeline_stats 2>&1 \
    | grep -A1 "radix_onesweep_partitioned spec\|radix_onesweep_ballot spec" | grep -v "^--" >> "$OUT/stats.txt"
  echo "== $arg" >> "$OUT/clocks.txt"
  VKSORT_RADIX_DEBUG=$d VKSORT_POLICY=$p timeout 120 .gpu/bin/example-tile_clocks 24 2>&1 | tail -n 40 >> "$OUT/clocks.txt"
done
echo "algo,policy,key,value,n,ms" > "$OUT/sweep.csv"
for arg in "$@"; do
  p=${arg%%|*}; d=""; [[ $arg == *"|"* ]] && d=${arg#*|}
  VKSORT_RADIX_DEBUG=$d VKSORT_POLICY=$p .gpu/bin/vksort bench --ops sort --algos onesweep --keys "${SWEEP_KEYS:-u32}" \
    --values "${SWEEP_VALUES:-none}" --sizes "${SWEEP_SIZES:-24,28}" --reps 7 --warmup 1 --no-plots \
    --out-dir /tmp/sweep > /tmp/sweep.log 2>&1 || { echo "$arg failed: $(tail -n 2 /tmp/sweep.log)"; continue; }
  python3 - "$arg" >> "$OUT/sweep.csv" <<'PY'
import csv, sys
for r in csv.DictReader(open('/tmp/sweep/bench.csv')):
    print(f"onesweep,\"{sys.argv[1]}\",{r['key']},{r['value']},{r['n']},{r['ms_median']}")
PY
done
cat "$OUT/sweep.csv"; grep -i "sort" "$OUT/cub.csv" | head -20
