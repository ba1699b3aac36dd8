"""vksort.pandas.sort_values against DataFrame.sort_values(kind="stable"); vksort.dask.sort_values in process
and the Dask example on a LocalCluster of two worker processes against pandas on the same data."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pd = pytest.importorskip("pandas")
import vksort  # noqa: E402
import vksort.pandas  # noqa: E402

N = 3001


@pytest.fixture
def df(rng):
    f32 = rng.standard_normal(N).astype(np.float32)
    f32[rng.integers(0, N, 50)] = np.nan
    f32[rng.integers(0, N, 50)] = -0.0
    f32[rng.integers(0, N, 50)] = 0.0
    f32[rng.integers(0, N, 20)] = -np.inf
    f64 = rng.standard_normal(N)
    f64[rng.integers(0, N, 30)] = -np.nan
    ts = pd.to_datetime(rng.integers(0, 10**6, N), unit="s").to_numpy().copy()
    ts[rng.integers(0, N, 20)] = np.datetime64("NaT", "ns")
    nullable = pd.array(rng.integers(-5, 5, N), dtype="Int64")
    nullable[rng.integers(0, N, 40)] = pd.NA
    return pd.DataFrame(
        {
            "i8": rng.integers(-128, 128, N).astype(np.int8),
            "u16": rng.integers(0, 50, N).astype(np.uint16),
            "i32": rng.integers(-(2**31), 2**31, N).astype(np.int32),
            "u64": rng.integers(0, 2**64, N, dtype=np.uint64),
            "i64": rng.integers(-(2**63), 2**63 - 1, N, dtype=np.int64),
            "f32": f32,
            "f64": f64,
            "b": rng.integers(0, 2, N).astype(bool),
            "ts": ts,
            "nullable": nullable,
            "s": rng.choice(["x", "y", "z"], N),
        },
        index=rng.permutation(N) * 10,
    )


SINGLE = ["i8", "u16", "i32", "u64", "i64", "f32", "f64", "b", "ts", "nullable"]


@pytest.mark.parametrize("na_position", ["last", "first"])
@pytest.mark.parametrize("ascending", [True, False])
@pytest.mark.parametrize("col", SINGLE)
def test_one_column(df, col, ascending, na_position):
    got = vksort.pandas.sort_values(df, col, ascending=ascending, na_position=na_position)
    want = df.sort_values(col, ascending=ascending, kind="stable", na_position=na_position)
    pd.testing.assert_frame_equal(got, want)


@pytest.mark.parametrize(
    "by,ascending",
    [
        (["b", "i8"], True),
        (["u16", "f32"], [False, True]),
        (["i8", "nullable", "u16"], [True, False, True]),
        (["b", "i32", "u16"], False),
        (["nullable", "ts"], [False, True]),
    ],
)
def test_packed_columns(df, by, ascending):
    got = vksort.pandas.sort_values(df, by, ascending=ascending)
    want = df.sort_values(by, ascending=ascending, kind="stable")
    pd.testing.assert_frame_equal(got, want)
    got = vksort.pandas.sort_values(df, by, ascending=ascending, ignore_index=True)
    pd.testing.assert_frame_equal(got, want.reset_index(drop=True))


def test_series_and_empty(df):
    s = df["f32"]
    pd.testing.assert_series_equal(vksort.pandas.sort_values(s), s.sort_values(kind="stable"))
    empty = df.iloc[:0]
    pd.testing.assert_frame_equal(vksort.pandas.sort_values(empty, "i32"), empty.sort_values("i32"))
    one = df.iloc[:1]
    pd.testing.assert_frame_equal(vksort.pandas.sort_values(one, ["f64", "i8"]), one)


def test_pandas_errors(df):
    with pytest.raises(vksort.InvalidArgumentError, match="bits"):
        vksort.pandas.sort_values(df, ["u64", "i64"])
    with pytest.raises(vksort.DTypeError, match="'s'"):
        vksort.pandas.sort_values(df, "s")
    with pytest.raises(vksort.InvalidArgumentError, match="no column"):
        vksort.pandas.sort_values(df, "nope")
    with pytest.raises(vksort.InvalidArgumentError):
        vksort.pandas.sort_values(df, ["i8", "u16"], ascending=[True])
    with pytest.raises(vksort.InvalidArgumentError):
        vksort.pandas.sort_values(df, "i8", na_position="middle")


def test_dask_in_process(df):
    dd = pytest.importorskip("dask.dataframe")
    import dask

    import vksort.dask

    data = df[["f64", "i32", "u16"]].reset_index(drop=True)
    ddf = dd.from_pandas(data, npartitions=4)
    with dask.config.set(scheduler="threads"):
        got = vksort.dask.sort_values(ddf, "f64").compute()
        pd.testing.assert_frame_equal(got, data.sort_values("f64", kind="stable"))
        got = vksort.dask.sort_values(ddf, ["u16", "i32"], ascending=False).compute()
        pd.testing.assert_frame_equal(got, data.sort_values(["u16", "i32"], ascending=False, kind="stable"))


def test_dask_example_on_two_worker_processes():
    pytest.importorskip("distributed")
    example = Path(__file__).resolve().parents[2] / "examples" / "python" / "dask_sort.py"
    r = subprocess.run(
        [sys.executable, str(example), "--rows", "20000", "--partitions", "4", "--by", "group,key", "--check"],
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ),
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "same as pandas" in r.stdout
    assert r.stdout.count("worker ") >= 2


def test_dask_one_device_per_worker():
    """``use_devices``: each worker on the device it is given (here the same one twice: one device on CI), a
    clear error for a device a worker lacks or a count that does not match the workers."""
    pytest.importorskip("distributed")
    from distributed import Client, LocalCluster

    import vksort
    import vksort.dask

    name = vksort.devices()[0].name
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, Client(
        cluster
    ) as client:
        with pytest.raises(ValueError, match="one per worker"):
            vksort.dask.use_devices(client, [0])
        with pytest.raises(Exception, match="no Vulkan device 99 on this worker"):
            vksort.dask.use_devices(client, [0, 99])
        assert sorted(vksort.dask.use_devices(client, [0, 0]).values()) == [name, name]
        assert set(client.run(lambda: vksort.default_context().device.name).values()) == {name}
