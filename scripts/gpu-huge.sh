#!/usr/bin/env bash
# Run THERE after scripts/gpu-run.sh has unpacked the pack (or alone: it unpacks too): sorts of 2^31 keys
# (portions + wide writes, examples/huge.rs; HUGE="" skips them), the timing comparisons given in TIMING
# (examples/timing.rs, "LOG2 KEY VALUE POLICY;...") and the per-tile phase clocks given in CLOCKS
# (examples/tile_clocks.rs, same form). Output in $OUT/huge.txt, $OUT/timing.txt and $OUT/clocks.txt.
set -uo pipefail
[ -d .gpu/bin ] || tar -C .gpu -xJf .gpu/pack.tar.xz
. ./.device/gpu-prelude.sh
OUT=${OUT:-gpu-out}; mkdir -p "$OUT"
for args in ${HUGE-31}; do
  echo "== huge ${args//,/ }" | tee -a "$OUT/huge.txt"
  timeout 240 .gpu/bin/example-huge ${args//,/ } 2>&1 | tee -a "$OUT/huge.txt"
done
IFS=';' read -ra runs <<< "${TIMING:-}"
for r in "${runs[@]}"; do
  read -r log2 key value policy <<< "$r"
  echo "== timing $log2 $key $value [$policy]" | tee -a "$OUT/timing.txt"
  VKSORT_POLICY="$policy" timeout 120 .gpu/bin/example-timing "$log2" "$key" "$value" 2>&1 | tail -n 14 | tee -a "$OUT/timing.txt"
done
IFS=';' read -ra runs <<< "${CLOCKS:-}"
for r in "${runs[@]}"; do
  read -r log2 key value policy <<< "$r"
  echo "== clocks $log2 $key $value [$policy]" | tee -a "$OUT/clocks.txt"
  VKSORT_POLICY="$policy" timeout 120 .gpu/bin/example-tile_clocks "$log2" "$key" "$value" 2>&1 | tee -a "$OUT/clocks.txt"
done
