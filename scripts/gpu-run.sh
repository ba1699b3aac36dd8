#!/usr/bin/env bash
# Run THERE (the GPU machine), from the repository root, carrying .gl .device .gpu/pack.tar.xz:
#   bash scripts/gpu-run.sh [tests|tests-par|tests-radix|tests-rest|tests-sorts|tests-some|particles] [bench] [cub] [anchors] [sorts]
#                           [wgpu] [creation] [huge] [table] [dask] [python]
# tests: every test executable under the validation layer (tests-radix: the radix tests alone, tests-rest: the
# others, tests-par: every executable at once, 7 at a time, radix with $RADIX_THREADS (default 10) test threads
# and the others with 2, particles $PARTICLES_RUNS times (default 4) beside them and once alone after, then test-engine
# alone (its deliberate hang, see below); one line
# per executable in $OUT/summary.txt, logs in $OUT/t/ (the whole suite in about the time of the radix file),
# particles: test-particles alone $PARTICLES_RUNS times (default 3), then twice beside test-engine, and the Xid lines
# (about a minute; the device losses of docs/tuning.md); every particles run is bounded by $PARTICLES_TIMEOUT (180 s);
# tests-sorts: the comparison sorts' test executables that exist: bitonic, merge, warpsort, quicksort,
# split, particles; tests-some: those $GPU_TESTS names, e.g. "engine cli"; under validation the radix tests take
# minutes there); bench: `vksort bench $BENCH_ARGS` (its wall time printed last) with
# CUB's figures from the same run (at $CUB_SIZES, default 16 20 24 28: CUB 3.5 built from .device's CCCL tarball,
# and the system's CUB 3.0.1 beside it); cub: the CUB anchors alone; anchors:
# torch.sort/cupy.sort and the Vulkan anchors (vrdx, Fuchsia) at $ANCHOR_SIZES (default 16 20 24 28), in the same
# command; sorts: the tables of issues 16 and 17 (see below); wgpu: the wgpu example's checks under validation,
# then `--bench` (the wgpu path against the ash path) and the `wgpu_sort` crate's anchor at $WGPU_SIZES (log2,
# default 16,20,24), $WGPU_REPS runs each (default 30); creation: examples/creation.rs (`Sorter::new` cold and
# warm, driver caches off) for $CREATION_KEYS (default u32,f32,u64) and every algorithm, then `vksort sort`'s
# first and second run per algorithm; huge: examples/huge at $HUGE_SPECS (issue 30; LOG2:VALUES[:KEYS] each);
# table: Auto beside CUB 3.5, CUB 3.0.1, vrdx and Fuchsia at every power 2^9-2^22 and 2^24, 2^26, 2^28 (every
# distribution, keys and pairs, 32- and 64-bit keys, host and GPU-side counts below 2^24; scan and compaction;
# the MSD / Onesweep / small crossover at 2^12-2^18), then scripts/anchor_tables.py's tables in $OUT/tables.md
# and everything else in $OUT/table.tgz;
# dask (carry .whl/dask from scripts/gpu-python-wheels.sh): examples/python/dask_sort.py --baseline at $DASK_ROWS
# (default 100000000) rows, $DASK_PARTITIONS (default 16) partitions, with $DASK_WORKERS (default "1 2")
# workers, one run each, into $OUT/dask.txt; python (the same carry, with .whl/polars.tar.xz where polars should
# run too): `python -m vksort.bench` at $PY_SIZES (default 1e5,1e6,1e7) (and 1e8 with PY_BIG=1), and vksort's transfers around
# 64 MiB (a host memory block, the earlier staging chunk), into $OUT/python.txt.
# $TEST_TIMEOUT (default 560) bounds each test executable (seconds). Results go to $OUT (or ./gpu-out).
#
# sorts (about 6 minutes on an H100; one call): CUB's radix sorts (cub_bench.cu) and merge sorts
# (scripts/anchors/cub_merge_bench.cu, compiled here; its failure is reported and the tables go on without it)
# measured first, then three sweeps of every sort algorithm of the build (`--algos all`), each compared with
# them, each writing bench.csv, bench.md (the markdown tables), skipped.csv, bench.json and the plots:
#   $OUT/sorts-dists/   algorithm x the GPU-quicksort paper's distributions (uniform, gaussian, bucket, sorted,
#                       zero, staggered, visibility), u32 keys, at $SORTS_DIST_SIZES (log2, default 20,24)
#   $OUT/sorts-widths/  u32, u64, u128 keys (uniform) at $SORTS_WIDTH_SIZES (default 10,13,16,19,22,25,28):
#                       the key-width ratios, the fastest algorithm per width and N, rate-sort_keys_*.svg
#   $OUT/sorts-small/   the local sorts at $SORTS_SMALL_SIZES (default 9,10,11,12: 512..4096 keys), keys and
#                       u32 pairs: bitonic's one-workgroup form against the one-workgroup radix sort (small)
# $SORTS_ALGOS (default all) narrows the algorithms, $SORTS_REPS (default 5) the timed repeats.
set -uo pipefail
[ -f .gpu/pack.tar.xz ] && tar -C .gpu -xJf .gpu/pack.tar.xz
. ./.device/gpu-prelude.sh
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"
root=$(pwd)
export VK_LAYER_PATH=$root/.gpu/vvl/usr/share/vulkan/explicit_layer.d
export LD_LIBRARY_PATH=$root/.gpu/vvl/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
# tools/tests/cli.rs runs the binary that VKSORT_BIN names (else the path it was built to, absent here).
export VKSORT_BIN=$root/.gpu/bin/vksort
export VKSORT_CACHE_DIR=${VKSORT_CACHE_DIR:-/tmp/vkcache}
# capi/tests/c_api.rs runs this prebuilt C example where no C compiler is found (gpu-prepare.sh built it).
[ -x "$root/.gpu/bin/example-c-sort" ] && export VKSORT_C_EXAMPLE=$root/.gpu/bin/example-c-sort
what=" $* "
has() { [[ $what == *" $1 "* ]]; }
NVCC="nvcc -O3 -std=c++17 -arch=sm_90"
if [ -z "$*" ] || has cub || has bench || has sorts || has table; then
  ($NVCC .device/cub_bench.cu -o /tmp/cub_bench 2>&1 | tail -3
   # The newest CUB (CCCL 3.5.0, Programmatic Dependent Launch), built from the anchors' tarball beside the
   # system's CUB 3.0.1; the bench compares with it where it built.
   if [ -f .device/cccl-3.5.0-rc0.tar.xz ]; then
     mkdir -p /tmp/cccl && tar -C /tmp/cccl -xJf .device/cccl-3.5.0-rc0.tar.xz && \
       $NVCC -I/tmp/cccl/cub -I/tmp/cccl/libcudacxx/include -I/tmp/cccl/thrust .device/cub_bench.cu -o /tmp/cub35_bench 2>&1 | tail -3
   fi) &
  nvcc_pid=$!
fi
if has sorts; then
  # our CUB merge-sort anchor; without 128-bit radix keys in this CUB, again without them; a failure is printed
  (
    if ! $NVCC scripts/anchors/cub_merge_bench.cu -o /tmp/cub_merge_bench 2> /tmp/cub_merge.err; then
      echo "cub_merge_bench: retrying without CUB's 128-bit radix sort; first error:"; grep -m3 error /tmp/cub_merge.err
      $NVCC -DNO_RADIX_U128 scripts/anchors/cub_merge_bench.cu -o /tmp/cub_merge_bench 2> /tmp/cub_merge.err \
        || { echo "cub_merge_bench did not compile (the tables go on without CUB's merge sort):"; tail -n 20 /tmp/cub_merge.err; }
    fi
  ) &
  merge_pid=$!
fi
run_tests() {
  fail=0
  for t in "$@"; do
    echo "== $t"
    VKSORT_VALIDATION=1 timeout "${TEST_TIMEOUT:-560}" "$t" --test-threads=1 2>&1 | tail -n 25 | tee -a "$OUT/tests.log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || fail=1
  done
  echo "tests exit: $fail" | tee -a "$OUT/tests.log"
}
if [ -z "$*" ] || [[ $what == *" tests"* ]]; then
  .gpu/bin/vksort info 2>&1 | tee "$OUT/info.txt"
fi
if [ -z "$*" ] || has tests; then
  run_tests .gpu/bin/test-*
elif has tests-par || has particles; then
  par() {  # label, executable, test threads; particles runs get at most $PARTICLES_TIMEOUT (default 180) s
    local s=$SECONDS limit=${TEST_TIMEOUT:-560}
    [ "$2" = particles ] && limit=$(( limit < ${PARTICLES_TIMEOUT:-180} ? limit : ${PARTICLES_TIMEOUT:-180} ))
    VKSORT_VALIDATION=1 timeout "$limit" ".gpu/bin/test-$2" --test-threads="$3" > "$OUT/t/$1.log" 2>&1
    echo "$1 rc=$? $((SECONDS - s)) s: $(grep -E '^test result' "$OUT/t/$1.log" | tail -n 1)" >> "$OUT/summary.txt"
  }
  mkdir -p "$OUT/t"; : > "$OUT/summary.txt"
  if has particles; then
    # The particle test's device losses: alone $PARTICLES_RUNS times, then beside test-engine (whose
    # waits_are_bounded leaves a polling kernel in a lost context) twice, then the kernel log's Xid lines.
    for i in $(seq "${PARTICLES_RUNS:-3}"); do par "particles-alone-$i" particles 1; done
    for i in 1 2; do par "particles-beside-engine-$i" particles 1 & par "engine-$i" engine 2; wait; done
    cat "$OUT/summary.txt"
    grep -h -A3 "panicked" "$OUT"/t/*.log | head -n 20
    { dmesg 2>/dev/null || journalctl -k --no-pager 2>/dev/null; } | grep -iE "xid|nvrm" | tail -n 20 | tee "$OUT/xid.txt"
    exit 0
  fi
  par radix radix "${RADIX_THREADS:-10}" &
  (for i in $(seq "${PARTICLES_RUNS:-4}"); do par "particles-beside-$i" particles 1; done) &
  # test-engine runs last and alone: its waits_are_bounded leaves a kernel polling in a lost context, which the
  # driver cannot switch out (Xid 109, CTX SWITCH TIMEOUT) and which then takes other processes' contexts down.
  for exe in $(ls .gpu/bin | sed -n 's/^test-//p' | grep -vx 'radix\|particles\|engine'); do
    while [ "$(jobs -rp | wc -l)" -ge 7 ]; do sleep 1; done
    par "$exe" "$exe" 2 &
  done
  wait
  par particles-alone particles 1
  par engine engine 2
  cat "$OUT/summary.txt"
  grep -l "FAILED\|panicked" "$OUT"/t/*.log | while read -r f; do echo "== $f"; grep -E "panicked|---- " "$f" | head -n 12; done
  grep -h "wg_scan" "$OUT/t/engine.log" 2>/dev/null | sort | uniq -c
  # A lost device on NVIDIA leaves an Xid line in the kernel log (13: a shader exception, 31: a page fault):
  # it tells an out-of-bounds access from a hang.
  { dmesg 2>/dev/null || journalctl -k --no-pager 2>/dev/null; } | grep -iE "xid|nvrm" | tail -n 20 | tee "$OUT/xid.txt"
  grep -q "rc=[^0]" "$OUT/summary.txt" && echo "tests exit: 1" || echo "tests exit: 0"
elif has tests-radix; then
  run_tests .gpu/bin/test-radix
elif has tests-rest; then
  run_tests $(ls .gpu/bin/test-* | grep -v 'test-radix$')
elif has tests-sorts; then
  run_tests $(ls .gpu/bin/test-* | grep -E 'test-(bitonic|merge|warpsort|quicksort|split|particles)$')
elif has tests-some; then
  run_tests $(for t in ${GPU_TESTS:-engine}; do echo ".gpu/bin/test-$t"; done)
fi
if has sorts; then
  # calibrate once (every algorithm of the build) while nvcc compiles; the sweeps reuse it
  .gpu/bin/vksort calibrate > "$OUT/calibration.txt" 2>&1; tail -n 30 "$OUT/calibration.txt"
fi
# table: the Vulkan anchors run while nvcc compiles (the GPU is idle meanwhile).
table_sizes="9 10 11 12 13 14 15 16 17 18 19 20 21 22 24 26 28"
if has table && [ -x .device/anchor_bench ]; then
  .device/anchor_bench $table_sizes > "$OUT/anchors.csv" 2> "$OUT/anchors.err"
fi
if [ -n "${nvcc_pid:-}" ]; then wait "$nvcc_pid"; fi
if [ -z "$*" ] || has cub || has bench; then
  /tmp/cub_bench ${CUB_SIZES:-16 20 24 28} > "$OUT/cub301.csv" && tail -n +1 "$OUT/cub301.csv" | head -3
  cp "$OUT/cub301.csv" "$OUT/cub.csv"
  if [ -x /tmp/cub35_bench ]; then
    /tmp/cub35_bench ${CUB_SIZES:-16 20 24 28} > "$OUT/cub350.csv" && head -n 3 "$OUT/cub350.csv" && cp "$OUT/cub350.csv" "$OUT/cub.csv"
  fi
fi
if [ -z "$*" ] || has bench; then
  bench_start=$SECONDS
  # cub.csv: CUB 3.5 where it built (cub350.csv), else the system's 3.0.1 (cub301.csv; both kept).
  .gpu/bin/vksort bench ${BENCH_ARGS:-} --compare "$OUT/cub.csv" --out-dir "$OUT" 2>&1 | tee "$OUT/bench.txt"
  echo "vksort bench ${BENCH_ARGS:-} took $((SECONDS - bench_start)) s" | tee -a "$OUT/bench.txt"
fi
if has sorts; then
  wait "$merge_pid"
  dist_sizes=${SORTS_DIST_SIZES:-20,24}
  width_sizes=${SORTS_WIDTH_SIZES:-10,13,16,19,22,25,28}
  small_sizes=${SORTS_SMALL_SIZES:-9,10,11,12}
  algos=${SORTS_ALGOS:-all}
  reps=${SORTS_REPS:-5}
  all_sizes=$(echo "$width_sizes,$small_sizes" | tr ',' '\n' | sort -n | uniq | tr '\n' ' ')
  cub_sizes=$(echo "$width_sizes,$small_sizes,$dist_sizes" | tr ',' '\n' | sort -n | uniq | tr '\n' ' ')
  /tmp/cub_bench $cub_sizes > "$OUT/cub-sorts.csv" 2> "$OUT/cub-sorts.err"; tail -n 3 "$OUT/cub-sorts.err"
  compare="$OUT/cub-sorts.csv"
  if [ -x /tmp/cub_merge_bench ]; then
    /tmp/cub_merge_bench --dist-sizes "$dist_sizes" $all_sizes > "$OUT/cub-merge.csv" 2> "$OUT/cub-merge.err"
    tail -n 3 "$OUT/cub-merge.err"
    [ -s "$OUT/cub-merge.csv" ] && compare="$compare,$OUT/cub-merge.csv"
  fi
  sweep() {  # name, then vksort bench arguments
    local name=$1; shift
    echo "== sorts-$name: $*"
    .gpu/bin/vksort bench --ops sort --algos "$algos" --reps "$reps" --warmup 1 --max-ms 0 --compare "$compare" \
      --out-dir "$OUT/sorts-$name" "$@" > "$OUT/sorts-$name.txt" 2> "$OUT/sorts-$name.err"
    echo "exit $? ($(grep -c . "$OUT/sorts-$name/bench.csv" 2>/dev/null) lines of bench.csv)"
  }
  sweep dists --keys u32 --values none --dists paper --sizes "$dist_sizes"
  sweep widths --keys u32,u64,u128 --values none --dists uniform --sizes "$width_sizes"
  sweep small --keys u32 --values none,u32 --dists uniform --sizes "$small_sizes"
  for name in dists widths small; do
    [ -f "$OUT/sorts-$name/bench.md" ] && head -c 6000 "$OUT/sorts-$name/bench.md"
  done
fi
if has anchors; then
  sizes=${ANCHOR_SIZES:-16 20 24 28}
  python3 .device/torch_sort_bench.py $sizes > "$OUT/torch.csv" 2> "$OUT/torch.err"; tail -n 3 "$OUT/torch.err"
  [ -x .device/anchor_bench ] && .device/anchor_bench $sizes > "$OUT/anchors.csv" 2> "$OUT/anchors.err"
  head -n 40 "$OUT/torch.csv" "$OUT/anchors.csv"
fi
if has wgpu; then
  wsizes=${WGPU_SIZES:-16,20,24}; wreps=${WGPU_REPS:-30}
  for n in 1000 1000003; do
    VKSORT_VALIDATION=1 .gpu/bin/example-wgpu_sort --n $n 2>&1 | grep -v XDG_RUNTIME | tee -a "$OUT/wgpu.txt"
  done
  .gpu/bin/example-wgpu_sort --bench "$wreps" --sizes "$wsizes" 2>&1 | grep -v XDG_RUNTIME | tee -a "$OUT/wgpu.txt"
  if [ -x .gpu/bin/wgpu-sort-anchor ]; then
    .gpu/bin/wgpu-sort-anchor "$wreps" $(echo "$wsizes" | tr ',' ' ') 2>&1 | grep -v XDG_RUNTIME | tee -a "$OUT/wgpu.txt"
  fi
fi
if has creation; then
  # One process per key type: on the H200 a process failed to create its 28th Vulkan instance ("Unable to find a
  # Vulkan driver"), and each key type takes about 25 contexts.
  : > "$OUT/creation.md"
  for k in $(echo "${CREATION_KEYS:-u32,f32,u64}" | tr ',' ' '); do
    .gpu/bin/example-creation --keys "$k" --algos all 2>&1 | tee -a "$OUT/creation.md"
  done
  # `vksort sort` end to end, first run (no vksort cache, a fresh driver cache) and second run, per algorithm.
  echo "| command | first run (s) | second run (s) |" | tee "$OUT/first-run.md"
  echo "|---|---:|---:|" | tee -a "$OUT/first-run.md"
  for spec in "f32 none auto" "u64 u32 auto" "u64 u32 onesweep" "u64 u32 merge" "u64 u32 bitonic" \
              "u64 u32 quicksort" "u64 u32 warpsort"; do
    set -- $spec
    fresh=$(mktemp -d)
    args=(sort --random 1M --keys "$1" --values "$2" --algo "$3" --check)
    times=()
    for run in 1 2; do
      t0=$(date +%s.%N)
      VKSORT_CACHE_DIR=$fresh/vksort __GL_SHADER_DISK_CACHE_PATH=$fresh/nv .gpu/bin/vksort "${args[@]}" > /dev/null 2> "$fresh/err" \
        || { echo "failed: ${args[*]}"; tail -3 "$fresh/err"; }
      times+=("$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')")
    done
    printf '| `vksort %s` | %.2f | %.2f |\n' "${args[*]}" "${times[0]}" "${times[1]}" | tee -a "$OUT/first-run.md"
    rm -rf "$fresh"
  done
fi
if has huge; then
  # issue 30: examples/huge per spec LOG2:VALUES[:KEYS] (values none|u32|u64, keys u32|u64; HUGE_BALLAST_GIB
  # adds untouched device memory beside every sort). The default: every shape (u32 and u64 keys; no, u32 and u64
  # values) at 2^28 (the reference rate), 2^30 and 2^31. 2^31 u64 + u64 needs about 96 GiB (an H200).
  default=""
  for keys in u32 u64; do for vals in none u32 u64; do for lg in 28 30 31; do default+=" $lg:$vals:$keys"; done; done; done
  for spec in ${HUGE_SPECS:-$default}; do
    IFS=: read -r lg vals keys <<< "$spec"
    echo "== huge $lg ${vals:-none} ${keys:-u32}" | tee -a "$OUT/huge.txt"
    timeout 300 .gpu/bin/example-huge "$lg" "${vals:-none}" "${keys:-u32}" 2>&1 | tee -a "$OUT/huge.txt"
  done
fi
if has table; then
  # Both CUBs at the anchors' sizes, then vksort (the anchors ran above, while nvcc compiled).
  small=9,10,11,12,13,14,15,16,17,18,19,20,21,22
  /tmp/cub_bench $table_sizes > "$OUT/cub301.csv" 2> "$OUT/cub301.err"
  [ -x /tmp/cub35_bench ] && /tmp/cub35_bench $table_sizes > "$OUT/cub350.csv" 2> "$OUT/cub350.err"
  t() {  # name, then vksort bench arguments
    local name=$1 s=$SECONDS; shift
    .gpu/bin/vksort bench --compare "$OUT/cub350.csv" --no-plots --out-dir "$OUT/$name" "$@" > "$OUT/$name.txt" 2>&1
    echo "table $name: exit $? in $((SECONDS - s)) s"
  }
  t dists --ops sort --algos auto --sizes $small --keys u32,u64 --values none,u32 --dists all --counts host,gpu \
    --reps 10 --gpu-check-from 16
  t f32 --ops sort --algos auto --sizes $small --keys f32 --values u32 --counts host,gpu --reps 10
  t scan --ops scan,compact --scan-algos lookback --sizes $small --reps 10
  t cross --ops sort --algos msd,onesweep,small --sizes 12,13,14,15,16,17,18 --keys u32,u64 --values none,u32 --reps 10
  t large --ops sort --algos auto --sizes 24,26,28 --keys u32,u64 --values none,u32 --reps 5
  python3 scripts/anchor_tables.py "$OUT" > "$OUT/tables.md" && head -c 8000 "$OUT/tables.md"
  # The device tool returns at most 8 files: the sweeps' directories and the CSVs travel as one tar beside
  # tables.md (scripts/anchor_tables.py remakes the tables from the unpacked tar).
  packed="dists f32 scan cross large anchors.csv anchors.err cub301.csv cub301.err cub350.csv cub350.err"
  packed="$packed dists.txt f32.txt scan.txt cross.txt large.txt"
  (cd "$OUT" && tar czf table.tgz --exclude='*.svg' --exclude='*.png' --ignore-failed-read $packed 2>/dev/null \
     && rm -rf $packed)
fi
if has dask || has python; then
  # The wheels of this machine's Python (its numpy and pandas stay), installed into /tmp/pyd; polars, where
  # .whl/polars.tar.xz travels (its installed files: the wheel alone is too large beside the rest), beside them.
  pv=$(python3 -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
  wheels="$(sed 's|^|.whl/dask/|' ".whl/dask/$pv.txt") $(ls .whl/dask/vksort-*.whl)"
  python3 -m pip install -q --no-index --no-deps --ignore-requires-python --target /tmp/pyd $wheels > "$OUT/pyinstall.txt" 2>&1
  [ -f .whl/polars.tar.xz ] && tar -C /tmp/pyd -xJf .whl/polars.tar.xz
  export PYTHONPATH=/tmp/pyd
  python3 -c "import dask.dataframe, distributed, vksort; print(vksort.devices())" >> "$OUT/pyinstall.txt" 2>&1
fi
if has python; then
  # python/README.md's bench (host array in and out, transfers apart) beside numpy, pandas and polars, then the
  # transfers alone around 64 MiB, a host memory block (vksort only; docs/tuning.md, "Staging chunks").
  { python3 -c "import polars; print('polars', polars.__version__)" 2>&1
    python3 -m vksort.bench --sizes "${PY_SIZES:-1e5,1e6,1e7}" --dtypes uint32,float32,int64 --repeat 2
    [ -n "${PY_BIG:-}" ] && python3 -m vksort.bench --sizes 1e8 --dtypes float32 --repeat 1
    probe() { python3 -m vksort.bench --sizes 8e6,1.6e7,1.7e7,3.2e7 --dtypes uint32 --repeat 3 --cpu-max 1
              python3 -m vksort.bench --sizes 4e6,8e6,8.5e6,1e7 --dtypes int64 --repeat 3 --cpu-max 1; }
    probe
    # .whl/before: another build's vksort wheel (e.g. before a transfer change), the same probe beside.
    if ls .whl/before/vksort-*.whl >/dev/null 2>&1; then
      python3 -m pip install -q --no-index --no-deps --target /tmp/pyb .whl/before/vksort-*.whl
      echo "== .whl/before"; PYTHONPATH=/tmp/pyb:/tmp/pyd probe
      echo "== this build again"; probe
    fi
  } > "$OUT/python.txt" 2>&1
  cat "$OUT/python.txt"
fi
if has dask; then
  : > "$OUT/dask.txt"
  for w in ${DASK_WORKERS:-1 2}; do
    echo "== workers $w" >> "$OUT/dask.txt"
    python3 examples/python/dask_sort.py --rows "${DASK_ROWS:-100000000}" --partitions "${DASK_PARTITIONS:-16}" \
      --workers "$w" --baseline >> "$OUT/dask.txt" 2>&1
  done
  cat "$OUT/dask.txt"
fi
