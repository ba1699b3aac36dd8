"""``python -m vksort.bench``: end-to-end times of vksort beside numpy, pandas and polars (where installed).

    python -m vksort.bench --sizes 1e5,1e6,1e7 --dtypes uint32,float32,int64 --repeat 3

Every time is host array in, host array out, the best of ``--repeat`` runs after one warm-up (the sorter and
its pipelines exist by then; the CPU sorts warm up below 10^7 keys only). vksort's own row splits its time into
the allocation of the output (numpy, on the host), the upload (host to device, through staging), the sort on
the device and the download (device to host, into the output); the argsort row includes the copy of the keys
and the index array. The table is Markdown, on standard output, with the device's name; ``--cpu-max`` leaves
the CPU sorts out above a size ("-").
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Callable, Dict, List, Optional, Tuple

import numpy as np

from . import _core


def _best(f: Callable[[], object], repeat: int, warm: bool = True) -> float:
    if warm:
        f()
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t)
    return best


def _vksort_split(ctx: _core.Context, a: np.ndarray, repeat: int) -> Tuple[float, float, float, float, float]:
    """(total, host allocation, upload, device sort, download) seconds of the best run of vksort.sort's path
    for a contiguous array (upload from the input, download into a new array)."""
    best: Optional[Tuple[float, float, float, float, float]] = None
    for i in range(repeat + 1):
        t0 = time.perf_counter()
        out = np.empty_like(a)
        t1 = time.perf_counter()
        up, run, down = ctx._native.sort_copy(a, out)
        total = time.perf_counter() - t0
        if i and (best is None or total < best[0]):
            best = (total, t1 - t0, up, run, down)
    assert best is not None
    return best


def _data(dtype: str, n: int, rng: np.random.Generator) -> np.ndarray:
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return rng.random(n).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)


def run(
    sizes: List[int],
    dtypes: List[str],
    repeat: int,
    context: Optional[_core.Context] = None,
    cpu_max: Optional[int] = None,
) -> str:
    ctx = context or _core.default_context()
    rng = np.random.default_rng(1)
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover
        pd = None
    try:
        import polars as pl  # type: ignore
    except ImportError:
        pl = None
    lines = [
        f"End-to-end sort times on {ctx.device.name} ({ctx.device.driver}), best of {repeat}, milliseconds "
        "(vksort: output allocation + upload + device sort + download).",
        "",
        "| keys | type | vksort sort | alloc / up / sort / down | vksort argsort | np.sort | np.sort stable "
        "| np.argsort | np.argsort stable | pandas sort_values | polars sort |",
        "|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    ms = lambda s: f"{s * 1e3:.2f}"  # noqa: E731
    for dtype in dtypes:
        for n in sizes:
            a = _data(dtype, n, rng)
            total, copy, up, run_, down = _vksort_split(ctx, a, repeat)
            row: Dict[str, str] = {
                "vk": ms(total),
                "split": f"{ms(copy)} / {ms(up)} / {ms(run_)} / {ms(down)}",
                "vkarg": ms(_best(lambda: _core.argsort(a, context=ctx), repeat)),
                "np": "-",
                "nps": "-",
                "npa": "-",
                "npas": "-",
                "pd": "-",
                "pl": "-",
            }
            cpu = cpu_max is None or n <= cpu_max
            # The CPU sorts build nothing on a first run: a warm-up only where a run is short.
            warm = n < 10**7
            if cpu:
                row["np"] = ms(_best(lambda: np.sort(a), repeat, warm))
                row["nps"] = ms(_best(lambda: np.sort(a, kind="stable"), repeat, warm))
                row["npa"] = ms(_best(lambda: np.argsort(a), repeat, warm))
                row["npas"] = ms(_best(lambda: np.argsort(a, kind="stable"), repeat, warm))
            if cpu and pd is not None:
                df = pd.DataFrame({"k": a})
                row["pd"] = ms(_best(lambda: df.sort_values("k", kind="stable"), repeat, warm))
            if cpu and pl is not None:
                s = pl.Series("k", a)
                row["pl"] = ms(_best(lambda: s.sort(), repeat, warm))
            lines.append(
                f"| {n:,} | {dtype} | {row['vk']} | {row['split']} | {row['vkarg']} | {row['np']} | {row['nps']} "
                f"| {row['npa']} | {row['npas']} | {row['pd']} | {row['pl']} |"
            )
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python -m vksort.bench", description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="1e5,1e6", help="comma-separated key counts (1e6 or 1000000)")
    p.add_argument("--dtypes", default="uint32,float32,int64", help="comma-separated key dtypes")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument(
        "--cpu-max",
        default=None,
        help="time numpy, pandas and polars only up to this many keys (their stable sorts of 1e9 keys take minutes)",
    )
    p.add_argument("--device", default=None, help="an index or a name substring (default: VKSORT_DEVICE, else the best)")
    args = p.parse_args(argv)
    sizes = [int(float(s)) for s in args.sizes.split(",") if s]
    ctx = _core.Context(int(args.device) if args.device and args.device.isdigit() else args.device) if args.device else None
    cpu_max = int(float(args.cpu_max)) if args.cpu_max else None
    print(run(sizes, [d for d in args.dtypes.split(",") if d], args.repeat, ctx, cpu_max))
    return 0


if __name__ == "__main__":
    sys.exit(main())
