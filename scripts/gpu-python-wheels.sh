#!/usr/bin/env bash
# Run HERE before `gpu-run.sh dask`: the wheels the GPU machine's Python lacks (it has numpy, pandas, torch and
# cupy, no network): vksort's abi3 wheel (maturin) and Dask with its dependencies for CPython 3.10-3.13, without
# numpy, pandas and pyarrow (the machine's own are used), one list per Python version, into .whl/dask (ignored;
# carry .whl, about 14 MB and polars' 30).
set -euo pipefail
cd "$(dirname "$0")/.."
exclude=$(git rev-parse --git-path info/exclude)
grep -qx '/.whl/' "$exclude" 2>/dev/null || echo /.whl/ >> "$exclude"
venv=target/py-venv
[ -x "$venv/bin/maturin" ] || { echo "gpu-python-wheels: run ./dev test once first (it makes $venv)" >&2; exit 1; }
rm -rf .whl/dask && mkdir -p .whl/dask
CARGO_TARGET_DIR=target/py "$venv/bin/maturin" build --release -m python/Cargo.toml -o .whl/dask >&2
all=$(mktemp -d)
for v in 3.10 3.11 3.12 3.13; do
  t=cp${v/./}; mkdir -p "$all/$t"
  "$venv/bin/python" -m pip download -q "dask[dataframe]>=2024.1" "distributed>=2024.1" --only-binary=:all: \
    --platform manylinux2014_x86_64 --python-version "$v" -d "$all/$t"
  ls "$all/$t" | grep -v -E '^(numpy|pandas|pyarrow)-' > ".whl/dask/$t.txt"
  while read -r f; do cp -n "$all/$t/$f" .whl/dask/; done < ".whl/dask/$t.txt"
done
rm -rf "$all"
# polars for the Python table (`gpu-run.sh python`): its runtime wheel (54 MB) does not fit the carry beside the
# rest, so its installed files travel instead, the library stripped, as one xz tar (about 30 MB); NO_POLARS=1
# skips it.
if [ "${NO_POLARS:-0}" != 1 ]; then
  pl=$(mktemp -d)
  "$venv/bin/python" -m pip download -q polars --only-binary=:all: --platform manylinux2014_x86_64 \
    --python-version 3.11 -d "$pl/whl"
  "$venv/bin/python" -m pip install -q --no-deps --no-index --target "$pl/x" "$pl"/whl/polars*.whl
  find "$pl/x" -name '*.so' -exec strip --strip-unneeded {} +
  tar -C "$pl/x" -cf - . | xz -9 -T2 > .whl/polars.tar.xz
  rm -rf "$pl"
fi
du -sh .whl/*
