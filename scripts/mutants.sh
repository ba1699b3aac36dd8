#!/usr/bin/env bash
# The mutation check (`./dev mutants`, which runs this after installing what is missing): does the test suite
# catch realistic bugs? Each mutant is one exact text replacement in the committed tree (HEAD), applied alone to a
# private git worktree in a temporary folder (the working tree is never touched), built, and checked by one
# focused test target; the test must fail (KILLED). A mutant whose test passes SURVIVED: a hole in the suite.
# Exit status 1 when any mutant survived, failed to build, or no longer applies (its text is not found exactly
# once: the code moved; update the mutant here). The worktree is removed at the end, Ctrl-C included.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

usage() {
  cat <<'HELP'
./dev mutants [--no-baseline] [N ...]: the mutation check. Applies each mutant (or mutants N ...) ALONE to a
private worktree of HEAD (git worktree add --detach in a temporary folder; uncommitted changes are not
included, the working tree is never touched), builds it (CARGO_TARGET_DIR=target/mutants, incremental;
features diagnostics,compile-shaders: the shader mutants need glsl/ compiled afresh, the committed spirv/
would hide them) and runs its one focused test; reports KILLED (the test failed) or SURVIVED (it passed)
with the test's seconds. Exits 1 if any mutant survived, failed to build or no longer applies.
First the unmutated tree's tests must pass (the baseline; --no-baseline skips it).
On a 2-core machine without a GPU (lavapipe) it takes about 3 minutes (each mutant's build about 25 s, its
test at most 10 s), a minute more for the dependencies in a fresh target/mutants.
  ./dev mutants          every mutant
  ./dev mutants 2 5      mutants 2 and 5
  ./dev mutants --list   the mutants, without running anything
HELP
}

# The mutants: file | exact text (must occur once) | replacement | test file | test-name filter.
# Keep each focused: one tests/*.rs file and a filter, seconds on lavapipe.
M_DESC=() M_FILE=() M_OLD=() M_NEW=() M_TEST=() M_FILTER=()
mutant() { M_DESC+=("$1"); M_FILE+=("$2"); M_OLD+=("$3"); M_NEW+=("$4"); M_TEST+=("$5"); M_FILTER+=("$6"); }

mutant "GPU-side count clamped to capacity + 1 (radix setup pass)" \
  glsl/sort/radix/radix_setup.comp \
  'uint n = min(raw, pc.capacity);' \
  'uint n = min(raw, pc.capacity + 1u);' \
  radix gpu_side_count_overflow_is_clamped_and_flagged

mutant "f32 key transform: negative floats flip the sign bit only, not all bits" \
  glsl/include/keys.glsl \
  't.x = (t.x & 0x80000000u) != 0u ? ~t.x : (t.x | 0x80000000u);' \
  't.x = (t.x & 0x80000000u) != 0u ? (t.x ^ 0x80000000u) : (t.x | 0x80000000u);' \
  radix distributions

mutant "host count over the sorter's capacity no longer refused (Sorter::record)" \
  src/sort/mod.rs \
  $'let max_n = count.max_n();\n        if max_n > self.config.max_n {' \
  $'let max_n = count.max_n();\n        if false && max_n > self.config.max_n {' \
  families refused_calls_in_callers_command_buffer_every_family

mutant "values given to a keys-only comparison sort: error turned into silent success (Items::check_data)" \
  src/sort/items.rs \
  '(Some(_), _) => return Err(Error::ValuesMismatch { expected: false }),' \
  '(Some(_), _) => {}' \
  merge bad_input_is_rejected

mutant "merge sort's register sort swaps equal neighbours (stability tie-break dropped)" \
  glsl/sort/merge/merge_block.comp \
  'bool sw = mkey_lt(g_k[a + 1u], g_k[a]);' \
  'bool sw = !mkey_lt(g_k[a], g_k[a + 1u]);' \
  merge distributions

baseline=1 list=0 picked=()
for a in "$@"; do
  case "$a" in
    -h|--help) usage; exit 0 ;;
    --no-baseline) baseline=0 ;;
    --list) list=1 ;;
    [0-9]*) [ "$a" -ge 1 ] && [ "$a" -le ${#M_DESC[@]} ] || { echo "mutants: no mutant $a (1..${#M_DESC[@]})" >&2; exit 2; }
            picked+=("$a") ;;
    *) echo "mutants: unknown argument $a (--help)" >&2; exit 2 ;;
  esac
done
[ ${#picked[@]} -gt 0 ] || picked=($(seq 1 ${#M_DESC[@]}))
if [ $list = 1 ]; then
  for n in "${picked[@]}"; do
    i=$((n - 1)); echo "$n. ${M_DESC[$i]}: ${M_FILE[$i]}; tests/${M_TEST[$i]}.rs ${M_FILTER[$i]}"
  done
  exit 0
fi

# The build: the repository's merged shaderc archive (the worktree's .cargo/config.toml would point into the
# worktree's own, absent, target/), one reusable target folder.
export SHADERC_LIB_DIR=$root/target/shaderc-lib
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target/mutants}
case "$CARGO_TARGET_DIR" in /*) ;; *) CARGO_TARGET_DIR=$root/$CARGO_TARGET_DIR ;; esac
export VKSORT_TIMEOUT_MS=${VKSORT_TIMEOUT_MS:-240000}
cargo_args=(--release -p vksort --features diagnostics,compile-shaders)
log=$CARGO_TARGET_DIR/mutants.log
mkdir -p "$CARGO_TARGET_DIR"; : > "$log"

wt=$(mktemp -d "${TMPDIR:-/tmp}/vksort-mutants.XXXXXX")
cleanup() {
  trap - EXIT INT TERM
  git -C "$root" worktree remove --force "$wt" >/dev/null 2>&1 || true
  rm -rf "$wt"; git -C "$root" worktree prune >/dev/null 2>&1 || true
}
trap cleanup EXIT
trap 'echo "mutants: interrupted" >&2; cleanup; exit 130' INT TERM
rmdir "$wt"
git -C "$root" worktree add --quiet --detach "$wt" HEAD
echo "mutants: worktree of $(git -C "$wt" rev-parse --short HEAD) in $wt, log in $log" >&2

# Runs tests/$1.rs (filter $2) in the worktree; sets `secs`; returns cargo's status. The build goes first, so
# the seconds are the test's own.
run_test() {
  secs=""
  (cd "$wt" && cargo test "${cargo_args[@]}" --test "$1" --no-run) >>"$log" 2>&1 || return 101
  local t0=$SECONDS rc=0
  (cd "$wt" && cargo test "${cargo_args[@]}" --test "$1" -- "$2") >>"$log" 2>&1 || rc=$?
  secs=$((SECONDS - t0)); return $rc
}

start=$SECONDS failed=0 results=()
if [ $baseline = 1 ]; then
  done_targets=" "
  for n in "${picked[@]}"; do
    i=$((n - 1)); t="${M_TEST[$i]} ${M_FILTER[$i]}"
    [[ "$done_targets" == *" $t;"* ]] && continue; done_targets+="$t; "
    echo "== baseline: tests/${M_TEST[$i]}.rs ${M_FILTER[$i]}" >>"$log"
    if run_test "${M_TEST[$i]}" "${M_FILTER[$i]}"; then
      echo "baseline  tests/${M_TEST[$i]}.rs ${M_FILTER[$i]}: passes (${secs} s)" >&2
    else
      echo "baseline  tests/${M_TEST[$i]}.rs ${M_FILTER[$i]}: FAILS on the unmutated tree: see $log" >&2; exit 1
    fi
  done
fi

for n in "${picked[@]}"; do
  i=$((n - 1)); file=${M_FILE[$i]} t0=$SECONDS
  git -C "$wt" checkout --quiet -- .
  if ! python3 - "$wt/$file" "${M_OLD[$i]}" "${M_NEW[$i]}" <<'PY'
import sys
path, old, new = sys.argv[1:4]
try:
    text = open(path).read()
except OSError:
    sys.exit(1)
if text.count(old) != 1:
    sys.exit(1)
open(path, "w").write(text.replace(old, new))
PY
  then
    r="mutant $n no longer applies: its text is not in $file exactly once"
    echo "$r" >&2; results+=("$r"); failed=1; continue
  fi
  echo "== mutant $n: ${M_DESC[$i]}" >>"$log"; git -C "$wt" diff >>"$log"
  rc=0; run_test "${M_TEST[$i]}" "${M_FILTER[$i]}" || rc=$?
  what="tests/${M_TEST[$i]}.rs ${M_FILTER[$i]}"
  if [ $rc = 0 ]; then
    r="mutant $n SURVIVED ($what passed, ${secs} s): ${M_DESC[$i]} [$file]"; failed=1
  elif [ -z "$secs" ]; then
    r="mutant $n FAILED TO BUILD (see $log): ${M_DESC[$i]} [$file]"; failed=1
  else
    r="mutant $n KILLED ($what failed, ${secs} s; $((SECONDS - t0)) s with the build): ${M_DESC[$i]} [$file]"
  fi
  echo "$r" >&2; results+=("$r")
done
git -C "$wt" checkout --quiet -- .

echo "mutants: ${#picked[@]} mutant(s) in $((SECONDS - start)) s:" >&2
printf '  %s\n' "${results[@]}" >&2
exit $failed
