#!/usr/bin/env bash
# Run THERE (the GPU machine), carrying .gl, .device and two vksort binaries: the same `vksort bench` of an earlier
# build ($BASE_BIN, default .gpu/base/vksort-base) and of this one ($NEW_BIN, default .gpu/new/vksort),
# interleaved (base, new, base, new) so clock drift hits both; one CSV per run under $OUT (b-<run>.tgz).
#   BENCH_ARGS="--algos auto,onesweep --sizes 16,20,24 --keys u32 --values none,u32 --reps 5" bash scripts/gpu-before-after.sh
# $BUDGET (default 470 s) bounds the whole call; a run that would not fit is skipped with a line.
set -u
t0=$(date +%s); OUT=${OUT:-gpu-out}; mkdir -p "$OUT"
. ./.device/gpu-prelude.sh > /dev/null 2>&1
export VKSORT_CACHE_DIR=${VKSORT_CACHE_DIR:-/tmp/vkc}
B="bench ${BENCH_ARGS:---algos auto,onesweep,msd,merge,quicksort --sizes 16,20,24 --keys u32 --values none,u32 --reps 5} --no-plots"
for run in base new base2 new2; do
  left=$(( ${BUDGET:-470} - ($(date +%s) - t0) )); [ $left -lt 20 ] && { echo "no time for $run"; continue; }
  bin=${NEW_BIN:-./.gpu/new/vksort}; case $run in base*) bin=${BASE_BIN:-./.gpu/base/vksort-base};; esac
  timeout $(( left < 110 ? left : 110 )) $bin $B --out-dir /tmp/b-$run > /tmp/b-$run.log 2>&1
  echo "$run rc $? $(( $(date +%s) - t0 )) s"
  cp /tmp/b-$run.log /tmp/b-$run/ 2>/dev/null; tar -C /tmp -czf "$OUT/$run.tgz" b-$run
done
