#!/usr/bin/env bash
# Run THERE (the GPU machine), from the repository root, carrying .gl .device .gpu/pack.tar.xz:
#   bash scripts/gpu-run.sh [tests|tests-radix|tests-rest] [bench] [cub] [anchors]
# tests: every test executable under the validation layer (tests-radix: the radix tests alone, tests-rest: the
# others; under validation the radix tests take minutes there); bench: `vksort bench $BENCH_ARGS` with CUB's
# figures from the same run (at $CUB_SIZES, default 16 20 24 28); cub: the CUB anchor alone; anchors: torch.sort/cupy.sort and the Vulkan anchors
# (vrdx, Fuchsia) at $ANCHOR_SIZES (default 16 20 24 28), in the same command. Results go to $OUT (or ./gpu-out).
set -uo pipefail
[ -f .gpu/pack.tar.xz ] && tar -C .gpu -xJf .gpu/pack.tar.xz
. ./.device/gpu-prelude.sh
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"
root=$(pwd)
export VK_LAYER_PATH=$root/.gpu/vvl/usr/share/vulkan/explicit_layer.d
export LD_LIBRARY_PATH=$root/.gpu/vvl/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
# tools/tests/cli.rs runs the binary that VKSORT_BIN names (else the path it was built to, absent here).
export VKSORT_BIN=$root/.gpu/bin/vksort
want() { [ $# -eq 0 ] || [[ " $* " == *" $1 "* ]]; }
what=" $* "
if [ -z "$*" ] || [[ $what == *" cub "* ]] || [[ $what == *" bench "* ]]; then
  (nvcc -O3 -std=c++17 -arch=sm_90 .device/cub_bench.cu -o /tmp/cub_bench 2>&1 | tail -3) &
  nvcc_pid=$!
fi
run_tests() {
  fail=0
  for t in "$@"; do
    echo "== $t"
    VKSORT_VALIDATION=1 timeout 560 "$t" --test-threads=1 2>&1 | tail -n 25 | tee -a "$OUT/tests.log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || fail=1
  done
  echo "tests exit: $fail" | tee -a "$OUT/tests.log"
}
if [ -z "$*" ] || [[ $what == *" tests"* ]]; then
  .gpu/bin/vksort info 2>&1 | tee "$OUT/info.txt"
fi
if [ -z "$*" ] || [[ $what == *" tests "* ]]; then
  run_tests .gpu/bin/test-*
elif [[ $what == *" tests-radix "* ]]; then
  run_tests .gpu/bin/test-radix
elif [[ $what == *" tests-rest "* ]]; then
  run_tests $(ls .gpu/bin/test-* | grep -v 'test-radix$')
fi
if [ -n "${nvcc_pid:-}" ]; then wait "$nvcc_pid"; fi
if [ -z "$*" ] || [[ $what == *" cub "* ]] || [[ $what == *" bench "* ]]; then
  /tmp/cub_bench ${CUB_SIZES:-16 20 24 28} > "$OUT/cub.csv" && tail -n +1 "$OUT/cub.csv" | head -3
fi
if [ -z "$*" ] || [[ $what == *" bench "* ]]; then
  .gpu/bin/vksort bench ${BENCH_ARGS:-} --compare "$OUT/cub.csv" --out-dir "$OUT" 2>&1 | tee "$OUT/bench.txt"
fi
if [[ $what == *" anchors "* ]]; then
  sizes=${ANCHOR_SIZES:-16 20 24 28}
  python3 .device/torch_sort_bench.py $sizes > "$OUT/torch.csv" 2> "$OUT/torch.err"; tail -n 3 "$OUT/torch.err"
  [ -x .device/anchor_bench ] && .device/anchor_bench $sizes > "$OUT/anchors.csv" 2> "$OUT/anchors.err"
  head -n 40 "$OUT/torch.csv" "$OUT/anchors.csv"
fi
