#!/usr/bin/env bash
# Run THERE (the GPU machine) after gpu-prepare.sh here: the upfront histogram pass under several shapes (issue
# 19, step 2: CUB's histogram shape, 128 invocations x 16 keys). Prints, per radix policy override, the
# Onesweep sort's median and its upfront pass (ms) for u32 keys at 2^24 and 2^28 (docs/tuning.md, "Upfront
# histogram, setup and plan").
set -uo pipefail
[ -f .gpu/pack.tar.xz ] && tar -C .gpu -xJf .gpu/pack.tar.xz
. ./.device/gpu-prelude.sh >/dev/null 2>&1
export VKSORT_CACHE_DIR=${VKSORT_CACHE_DIR:-/tmp/vkcache}
for p in "upfront.workgroup_size=256,upfront.items_per_invocation=8,upfront.max_groups=1024" "upfront.workgroup_size=128,upfront.items_per_invocation=16,upfront.max_groups=1024" "upfront.workgroup_size=128,upfront.items_per_invocation=16,upfront.max_groups=2048" \
  "upfront.workgroup_size=128,upfront.items_per_invocation=8,upfront.max_groups=2048" "upfront.workgroup_size=256,upfront.items_per_invocation=16,upfront.max_groups=1024" "upfront.workgroup_size=512,upfront.items_per_invocation=8,upfront.max_groups=512" \
  "upfront.workgroup_size=128,upfront.items_per_invocation=32,upfront.max_groups=1584" "upfront.workgroup_size=256,upfront.items_per_invocation=8,upfront.max_groups=1024,upfront.hist_copies=2"; do
  VKSORT_POLICY=$p timeout 60 .gpu/bin/vksort bench --ops sort --algos onesweep --keys u32 --values none \
    --sizes 24,28 --reps 7 --warmup 1 --no-plots --out-dir /tmp/up > /tmp/up.log 2>&1 \
    || { echo "$p failed"; tail -n 2 /tmp/up.log; continue; }
  python3 - "$p" <<'PY'
import json, sys
for r in json.load(open('/tmp/up/bench.json'))['rows']:
    up = [p['ms'] for p in r['passes'] if 'upfront' in p['label']]
    print(sys.argv[1], r['n'], 'total %.4f' % r['ms_median'], 'upfront', ' '.join('%.4f' % x for x in up))
PY
done
