#!/usr/bin/env bash
# Run THERE (the GPU machine), from the repository root, carrying .gl .device .gpu/pack.tar.xz:
#   bash scripts/gpu-msd.sh [tests] [bench]
# Sweeps the MSD sort (policies through VKSORT_POLICY, sizes and algorithms as edited below; the fifth
# session's sweeps are in docs/bench/2026-11-22-h100-s5/) with CUB's figures at $CUB_SIZES (default 16 20) from
# the same call; `bench` then runs `vksort bench $BENCH_ARGS` against them; `tests` first runs the radix and CLI test executables under validation. Results go
# to $OUT (or ./gpu-out): msd.txt, cub.csv, tests.log.
set -uo pipefail
[ -f .gpu/pack.tar.xz ] && tar -C .gpu -xJf .gpu/pack.tar.xz
. ./.device/gpu-prelude.sh
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"
root=$(pwd)
export VK_LAYER_PATH=$root/.gpu/vvl/usr/share/vulkan/explicit_layer.d
export LD_LIBRARY_PATH=$root/.gpu/vvl/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
export VKSORT_CACHE_DIR=/tmp/vkcache
# tools/tests/cli.rs runs the binary that VKSORT_BIN names.
export VKSORT_BIN=$root/.gpu/bin/vksort
(nvcc -O3 -std=c++17 -arch=sm_90 .device/cub_bench.cu -o /tmp/cub_bench 2>&1 | tail -3) &
nvcc_pid=$!
if [[ " $* " == *" tests "* ]]; then
  fail=0
  for t in .gpu/bin/test-radix .gpu/bin/test-cli; do
    echo "== $t"
    VKSORT_VALIDATION=1 timeout 300 "$t" --test-threads=1 2>&1 | tail -n 25 | tee -a "$OUT/tests.log" || fail=1
  done
  echo "tests exit: $fail" | tee -a "$OUT/tests.log"
fi
wait "$nvcc_pid"
/tmp/cub_bench ${CUB_SIZES:-16 20} > "$OUT/cub.csv"
sweep() {
  echo "== ${1:-default} algos=$2 sizes=$3 keys=$4" | tee -a "$OUT/msd.txt"
  VKSORT_POLICY="$1" .gpu/bin/vksort bench --ops sort --sizes "$3" --algos "$2" --keys "$4" \
    --values none,u32 --warmup 20 --no-plots --explain --compare "$OUT/cub.csv" --out-dir "/tmp/b" >> "$OUT/msd.txt" 2>&1
}
for i in 1 2; do sweep "" small,msd,onesweep 10,11,12,13,14 u32; done
if [[ " $* " == *" bench "* ]]; then
  .gpu/bin/vksort bench ${BENCH_ARGS:-} --compare "$OUT/cub.csv" --out-dir "$OUT" > "$OUT/bench.txt" 2>&1
  tail -n 60 "$OUT/bench.txt"
fi
