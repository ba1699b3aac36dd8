"""Sort a Dask DataFrame on a LocalCluster of two worker processes, each partition by vksort on its worker.

    python examples/python/dask_sort.py --rows 1000000 --partitions 8 --check

The workers make the partitions (dd.from_map; --rows rounded up to a multiple of --partitions). Dask samples
the key's quantiles, shuffles the rows into partitions of disjoint key ranges, and each worker sorts its
partitions with vksort (on its own Vulkan device: --devices, one per worker, e.g. `--workers 2 --devices 0,1`
on a host of two GPUs; else the worker's VKSORT_DEVICE or the best one, lavapipe where there is no GPU). --check compares the result with pandas' stable sort of the same data and exits 1 on
a difference (the Python tests run it so). Needs `pip install ./python pandas "dask[dataframe,distributed]"`.
"""

import argparse
import sys
import time

import numpy as np
import pandas as pd


def make_partition(i: int, rows: int, seed: int) -> pd.DataFrame:
    """Partition i of the data: made where it is needed (on a worker, or here for --check), never shipped."""
    rng = np.random.default_rng([seed, i])
    return pd.DataFrame(
        {
            # float64 keys (distinct, so the sorted order is unique), a small int key for the second column
            "key": rng.random(rows),
            "group": rng.integers(0, 16, rows, dtype=np.int32),
            "row": np.arange(i * rows, (i + 1) * rows, dtype=np.int64),
        }
    )


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--partitions", type=int, default=8)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument(
        "--devices",
        default=None,
        help="one Vulkan device per worker, comma-separated (indices or name parts, e.g. 0,1 for one worker per GPU; "
        "default: every worker on its VKSORT_DEVICE or the best device)",
    )
    p.add_argument("--by", default="key", help="a column or a comma-separated list (key, group, row)")
    p.add_argument("--descending", action="store_true")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--baseline", action="store_true", help="also time Dask's own sort_values (pandas per partition)")
    p.add_argument("--check", action="store_true", help="compare with pandas' stable sort; exit 1 on a difference")
    args = p.parse_args(argv)

    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    import vksort
    import vksort.dask

    by = args.by.split(",") if "," in args.by else args.by
    per = -(-args.rows // args.partitions)  # rows per partition
    with LocalCluster(
        n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, Client(cluster) as client:
        if args.devices is not None:
            wanted = [int(d) if d.isdigit() else d for d in args.devices.split(",")]
            vksort.dask.use_devices(client, wanted)
        devices = client.run(lambda: vksort.default_context().device.name)
        for w, name in sorted(devices.items()):
            print(f"worker {w}: {name}")
        ddf = dd.from_map(
            make_partition, range(args.partitions), rows=per, seed=args.seed, enforce_metadata=False
        )
        t = time.perf_counter()
        result = vksort.dask.sort_values(ddf, by, ascending=not args.descending).compute()
        elapsed = time.perf_counter() - t
        print(f"sorted {len(result)} rows in {args.partitions} partitions on {args.workers} workers: {elapsed:.2f} s")
        if args.baseline:
            t = time.perf_counter()
            base = ddf.sort_values(by, ascending=not args.descending).compute()
            print(f"Dask's own sort_values (pandas per partition): {time.perf_counter() - t:.2f} s")
            del base
        # Under VKSORT_VALIDATION=1 (./dev test) every worker's validation messages count as failures.
        messages = client.run(lambda: vksort.default_context().take_validation_errors())
        bad = {w: m for w, m in messages.items() if m}
    if bad:
        for w, m in bad.items():
            print(f"validation errors on worker {w}:", *m, sep="\n  ", file=sys.stderr)
        return 1
    if args.check:
        df = pd.concat([make_partition(i, per, args.seed) for i in range(args.partitions)], ignore_index=True)
        expected = df.sort_values(by, ascending=not args.descending, kind="stable")
        try:
            pd.testing.assert_frame_equal(result.reset_index(drop=True), expected.reset_index(drop=True))
        except AssertionError as e:
            print(f"check failed: the Dask+vksort sort differs from pandas:\n{e}", file=sys.stderr)
            return 1
        print("check: same as pandas' sort_values(kind='stable')")
    return 0


if __name__ == "__main__":
    sys.exit(main())
