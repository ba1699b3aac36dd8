#!/usr/bin/env bash
# Run THERE (the GPU machine) after gpu-prepare.sh here: the MSD hybrid sort's study (issue 19, step 3), one call.
#   bash scripts/gpu-hybrid.sh ["POLICY" ...]   (radix policy overrides for more hybrid rows, e.g. "hybrid.items_per_invocation=16")
# 1. $OUT/tests.log: test-radix's tests matching $HYBRID_TEST_FILTER (default: hybrid, MSD and push-constant
#    tests; "all" for every one) under the validation layer (HYBRID_TESTS=0 skips them).
# 2. $OUT/stats.txt: the driver's registers and shared memory of the hybrid kernels, default policy and each
#    POLICY (examples/pipeline_stats: u32 keys, u32 pairs, u64 keys).
# 3. $OUT/cub.csv: CUB's radix sorts at $CUB_SIZES (default 20 24 28), from the same command.
# 4. $OUT/sweep.csv: `vksort bench` of Onesweep and the hybrid sort, keys $HYBRID_KEYS (default u32,u64), values
#    $HYBRID_VALUES (default none,u32), at $HYBRID_SIZES (default 20,24,28); then the hybrid sort alone under each
#    POLICY ($HYBRID_POLICY_ALGOS, default hybrid; keys $HYBRID_POLICY_KEYS, default u32,u64; values
#    $HYBRID_POLICY_VALUES, default none; at 24,28); then $HYBRID_DISTS (default paper; none skips) at 2^24
#    u32 (skew). $HYBRID_ALGOS (default onesweep,hybrid) names the first sweep's algorithms.
# 5. $OUT/passes.txt: the per-pass times of one hybrid sort of 2^28 u32 and u64 keys.
set -uo pipefail
[ -f .gpu/pack.tar.xz ] && tar -C .gpu -xJf .gpu/pack.tar.xz
. ./.device/gpu-prelude.sh >/dev/null
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"
export VKSORT_CACHE_DIR=${VKSORT_CACHE_DIR:-/tmp/vkcache}
root=$(pwd)
(nvcc -O3 -std=c++17 -arch=sm_90 .device/cub_bench.cu -o /tmp/cub_bench 2>&1 | tail -3) &
nvcc_pid=$!
if [ "${HYBRID_TESTS:-1}" != 0 ]; then
  (
    export VK_LAYER_PATH=$root/.gpu/vvl/usr/share/vulkan/explicit_layer.d
    export LD_LIBRARY_PATH=$root/.gpu/vvl/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
    filter=${HYBRID_TEST_FILTER:-hybrid msd push}; [ "$filter" = all ] && filter=""
    VKSORT_VALIDATION=1 timeout 400 .gpu/bin/test-radix --test-threads=1 $filter > "$OUT/tests.log" 2>&1
    echo "tests exit $?"; grep -E "^test |test result|panicked" "$OUT/tests.log" | tail -n 40
  )
fi
: > "$OUT/stats.txt"
for p in "" "$@"; do
  echo "== ${p:-default}" >> "$OUT/stats.txt"
  VKSORT_ALGOS=hybrid VKSORT_POLICY=$p timeout 120 .gpu/bin/example-pipeline_stats 2>&1 \
    | grep -A1 "radix_hybrid_local" | grep -v "^--" >> "$OUT/stats.txt"
done
wait "$nvcc_pid"
/tmp/cub_bench ${CUB_SIZES:-20 24 28} > "$OUT/cub.csv" 2>/dev/null
bench() {  # label, then vksort bench arguments
  local label=$1; shift
  .gpu/bin/vksort bench --ops sort --reps 7 --warmup 1 --no-plots --out-dir /tmp/hb "$@" > /tmp/hb.log 2>&1 \
    || { echo "$label failed: $(tail -n 3 /tmp/hb.log)"; return; }
  python3 - "$label" >> "$OUT/sweep.csv" <<'PY'
import csv, sys
for r in csv.DictReader(open('/tmp/hb/bench.csv')):
    print(f"\"{sys.argv[1]}\",{r['algo']},{r['key']},{r['value']},{r.get('dist','')},{r['n']},{r['ms_median']},{r['verified']}")
PY
}
echo "policy,algo,key,value,dist,n,ms,verified" > "$OUT/sweep.csv"
bench default --algos "${HYBRID_ALGOS:-onesweep,hybrid}" --keys "${HYBRID_KEYS:-u32,u64}" --values "${HYBRID_VALUES:-none,u32}" \
  --sizes "${HYBRID_SIZES:-20,24,28}"
for p in "$@"; do
  VKSORT_POLICY=$p bench "$p" --algos "${HYBRID_POLICY_ALGOS:-hybrid}" --keys "${HYBRID_POLICY_KEYS:-u32,u64}" \
    --values "${HYBRID_POLICY_VALUES:-none}" --sizes 24,28
done
[ "${HYBRID_DISTS:-paper}" != none ] && bench skew --algos onesweep,hybrid --keys u32 --values none --sizes 24 \
  --dists "${HYBRID_DISTS:-paper}"
: > "$OUT/passes.txt"
for k in ${HYBRID_PASSES_KEYS:-u32 u64}; do
  timeout 120 .gpu/bin/vksort sort --algo hybrid --keys $k --random 2^28 --passes >> "$OUT/passes.txt" 2>&1
done
cat "$OUT/stats.txt"; cat "$OUT/sweep.csv"; grep -iE "sort_(keys|pairs)" "$OUT/cub.csv" | head -30; cat "$OUT/passes.txt"
