#!/usr/bin/env bash
# Run THERE (the GPU machine) after gpu-prepare.sh here: the merge sort's knock-out timings (issue 16: is the
# 2-way merge pass bound by its instruction work or by memory?). For each knob of MergeDebug::debug_mode
# (VKSORT_POLICY=debug=K with --algos merge; src/sort/merge/debug.rs): 0 the plain sort; 1 no serial merge (the
# diagonal search kept); 2 neither merge nor diagonal search (the merge pass's loads, staging and stores only);
# 8 no diagonal search, the merge kept; 4 no split-point search in the partition passes. With 1, 2 and 8 the
# merge tiles take balanced split points (the partition passes still search, their results a dependency only:
# after a knocked-out pass the runs are unsorted); 1 and 2 write a permutation of the input (each key and value
# read and written once per pass, as in a real merge), 8 does not quite (its invocations' merges overlap), so
# its value gathers may hit a few sectors twice. Knocked-out results are
# WRONG on purpose: their rows fail verification (the bench then exits 1), and the bench writes no total median
# for a failed row (ms_median null), only its per-pass medians. So the table gives, for every knob alike, the
# sum of the per-pass medians (runs with a stamp after every pass) and that sum by pass kind (block, partition,
# merge: each summed over all of a run's passes of that kind), plus the timed median where the row verified.
# u32 keys alone and u32 + u32 pairs, at 2^24 and 2^28.
#   KNOBS (default "0 1 2 8 4"), SIZES (default 24,28), VKSORT_BIN (default .gpu/bin/vksort), MERGE_POLICY
#   (more merge policy overrides, e.g. partition=0), REPS (default 7), OUT_DIR (default /tmp/merge-ko); with
#   $OUT set (the device tool's), the table and each knob's bench.json and log are copied there.
# The first run of freshly built kernels can carry outliers (seen on lavapipe only, with a cold shader cache);
# a second run of the script checks the figures.
set -uo pipefail
bin=${VKSORT_BIN:-.gpu/bin/vksort}
if [ -z "${VKSORT_BIN:-}" ]; then
  [ -f .gpu/pack.tar.xz ] && tar -C .gpu -xJf .gpu/pack.tar.xz
  . ./.device/gpu-prelude.sh >/dev/null 2>&1
fi
export VKSORT_CACHE_DIR=${VKSORT_CACHE_DIR:-/tmp/vkcache}
out=${OUT_DIR:-/tmp/merge-ko}
extra=${MERGE_POLICY:+,$MERGE_POLICY}
for k in ${KNOBS:-0 1 2 8 4}; do
  rm -rf "$out/$k"
  VKSORT_POLICY="debug=$k$extra" timeout 300 "$bin" bench --ops sort --algos merge --keys u32 --values none,u32 \
    --sizes "${SIZES:-24,28}" --reps "${REPS:-7}" --warmup 1 --no-plots --max-ms 0 --out-dir "$out/$k" \
    > "$out.$k.log" 2>&1
  rc=$?
  # exit 1: some row failed verification (expected for k != 0); anything else, or no bench.json: the run failed
  if [ ! -f "$out/$k/bench.json" ] || { [ $rc -ne 0 ] && [ $rc -ne 1 ]; }; then
    echo "knob $k: the bench failed (exit $rc)"; tail -n 3 "$out.$k.log"
  fi
done
python3 - "$out" ${KNOBS:-0 1 2 8 4} > "$out.txt" <<'PY'
import json, os, sys
out, knobs = sys.argv[1], sys.argv[2:]
rows = {}
print('%-4s %-3s %-8s %-6s %10s %11s %9s %10s %9s' %
      ('knob', 'n', 'items', 'check', 'median_ms', 'passsum_ms', 'block', 'partition', 'merge'))
for k in knobs:
    path = os.path.join(out, k, 'bench.json')
    if not os.path.exists(path):
        continue
    report = json.load(open(path))
    if not report['rows']:
        print('knob %s: no rows; skipped: %s' % (k, '; '.join(x['reason'] for x in report['skipped'])[:300]))
    for r in report['rows']:
        kinds = {'block': 0.0, 'partition': 0.0, 'merge': 0.0}
        for p in r['passes']:
            kind = p['label'].rsplit('::', 1)[-1]
            if p['label'].startswith('vksort::merge::') and kind in kinds:
                kinds[kind] += p['ms']
        items = 'u32' if r['value'] in ('none', '') else 'u32+' + r['value']
        med = r['ms_median']
        n = r['n'].bit_length() - 1
        rows[(k, n, items)] = (r['per_pass_sum_ms'], kinds)
        print('%-4s %-3s %-8s %-6s %10s %11.4f %9.4f %10.4f %9.4f' % (
            k, n, items, 'ok' if r['verified'] else 'FAILED',
            '-' if med is None else '%.4f' % med, r['per_pass_sum_ms'],
            kinds['block'], kinds['partition'], kinds['merge']))
# each knob's merge and partition pass time against knob 0's (same n and items)
print('\nagainst knob 0 (merge passes, partition passes):')
for (k, n, items), (_, kinds) in sorted(rows.items(), key=lambda x: (x[0][1], x[0][2], x[0][0])):
    base = rows.get(('0', n, items))
    if k == '0' or base is None:
        continue
    b = base[1]
    ratio = lambda x, y: '%.3f' % (x / y) if y > 0 else '-'
    print('knob %-2s 2^%d %-8s merge %s  partition %s' % (
        k, n, items, ratio(kinds['merge'], b['merge']), ratio(kinds['partition'], b['partition'])))
PY
cat "$out.txt"
if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT/merge-ko"
  cp "$out.txt" "$out".*.log "$OUT/merge-ko/" 2>/dev/null
  for k in ${KNOBS:-0 1 2 8 4}; do
    [ -f "$out/$k/bench.json" ] && cp "$out/$k/bench.json" "$OUT/merge-ko/bench-$k.json"
  done
fi
