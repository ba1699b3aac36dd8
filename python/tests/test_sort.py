"""vksort.sort / argsort / sort_pairs against numpy's stable sorts and the total-order reference, every dtype,
both orders, the size classes (0, 1, tile-1, tile, tile+1, odd, > 2**20 once), float specials, strided and
foreign-byte-order input, out=, and the GIL released."""

import threading
import time

import numpy as np
import pytest

import vksort
from reference import argsort as ref_argsort
from reference import same_bits
from reference import sort as ref_sort

DTYPES = ["uint32", "int32", "float32", "uint64", "int64", "float64"]
SIZES = [0, 1, 2, 255, 256, 257, 1001, 4099]


def data(dtype, n, rng, specials=True):
    """n keys of dtype over the whole range, with duplicates (each value about 4 times) and, for floats,
    infinities and zeros of both signs (no NaN: numpy places those differently, tested apart)."""
    dt = np.dtype(dtype)
    m = max(1, n // 4)
    if dt.kind == "u":
        pool = rng.integers(0, np.iinfo(dt).max, m, dtype=dt, endpoint=True)
    elif dt.kind == "i":
        pool = rng.integers(np.iinfo(dt).min, np.iinfo(dt).max, m, dtype=dt, endpoint=True)
    else:
        pool = (rng.standard_normal(m) * 10.0 ** rng.integers(-30, 30, m)).astype(dt)
        if specials and m > 8:
            pool[:4] = [np.inf, -np.inf, 0.0, 0.0]
    return pool[rng.integers(0, m, n)]


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_sort(dtype, n, descending, rng):
    a = data(dtype, n, rng)
    before = a.copy()
    s = vksort.sort(a, descending=descending)
    assert s.dtype == a.dtype and s.shape == a.shape
    assert same_bits(s, ref_sort(a, descending))
    if not descending:
        assert np.array_equal(s, np.sort(a, kind="stable"))
    assert same_bits(a, before), "the input changed"


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_argsort(dtype, n, descending, rng):
    a = data(dtype, n, rng)
    p = vksort.argsort(a, descending=descending)
    assert p.dtype == np.int32 and p.shape == (n,)
    assert np.array_equal(p, ref_argsort(a, descending))
    if not descending:
        assert np.array_equal(p, np.argsort(a, kind="stable"))


def test_argsort_is_stable(rng):
    # Few distinct keys, many of each: the order of equal keys is the input order, in both orders.
    a = rng.integers(0, 3, 5000).astype(np.int32)
    for descending in (False, True):
        p = vksort.argsort(a, descending=descending)
        for k in range(3):
            idx = p[a[p] == k]
            assert np.all(np.diff(idx) > 0), f"key {k} out of input order (descending={descending})"
    assert np.array_equal(vksort.argsort(a), np.argsort(a, kind="stable"))


def test_more_than_2_20_keys(rng):
    n = (1 << 20) + 3
    a = rng.random(n, dtype=np.float32)
    a[rng.integers(0, n, 1000)] = 0.5  # duplicates
    assert np.array_equal(vksort.argsort(a), np.argsort(a, kind="stable"))


def test_index_dtype():
    from vksort._core import _index_dtypes

    assert _index_dtypes(2**31 - 1) == (np.uint32, np.int32)
    assert _index_dtypes(2**31) == (np.uint64, np.int64)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float_specials(dtype):
    dt = np.dtype(dtype)
    a = np.array([np.nan, 1.0, -np.inf, -0.0, np.inf, 0.0, -1.0, -np.nan, 0.0, -0.0], dtype=dt)
    # vksort: IEEE 754 totalOrder, -NaN < -inf < -1 < -0.0 < +0.0 < 1 < inf < +NaN
    want = np.array([-np.nan, -np.inf, -1.0, -0.0, -0.0, 0.0, 0.0, 1.0, np.inf, np.nan], dtype=dt)
    assert same_bits(vksort.sort(a), want)
    assert same_bits(vksort.sort(a, descending=True), want[::-1])
    assert np.array_equal(vksort.argsort(a), [7, 2, 6, 3, 9, 5, 8, 1, 4, 0])
    assert np.array_equal(vksort.argsort(a, descending=True), [0, 4, 1, 5, 8, 3, 9, 6, 2, 7])
    # numpy: every NaN last, the zeros in input order; the same without negative NaNs and mixed zeros
    b = np.array([np.nan, 3.0, -np.inf, 0.0, np.inf, -2.0, np.nan], dtype=dt)
    assert same_bits(vksort.sort(b), np.sort(b, kind="stable"))
    assert np.array_equal(vksort.argsort(b), np.argsort(b, kind="stable"))


@pytest.mark.parametrize("dtype", DTYPES)
def test_strided_reversed_and_foreign_byte_order(dtype, rng):
    base = data(dtype, 3001, rng)
    for view in (base[::3], base[::-1], base[5:2000:7]):
        assert not view.flags.c_contiguous or view.size <= 1
        assert same_bits(vksort.sort(view), ref_sort(view))
        assert np.array_equal(vksort.argsort(view), ref_argsort(view))
    swapped = base.astype(base.dtype.newbyteorder())
    s = vksort.sort(swapped)
    assert s.dtype == swapped.dtype
    assert same_bits(s.astype(base.dtype), ref_sort(base))
    assert np.array_equal(vksort.argsort(swapped), ref_argsort(base))


def test_lists_and_widened_dtypes(rng):
    assert np.array_equal(vksort.sort([3, 1, 2]), [1, 2, 3])
    assert np.array_equal(vksort.argsort([2.5, -1.0]), [1, 0])
    for dtype in ["bool", "int8", "uint8", "int16", "uint16", "float16"]:
        a = data("int32", 1000, rng).astype(dtype) if dtype != "float16" else rng.standard_normal(1000).astype(dtype)
        s = vksort.sort(a)
        assert s.dtype == a.dtype
        assert np.array_equal(s, np.sort(a, kind="stable")), dtype
        assert np.array_equal(vksort.argsort(a), np.argsort(a, kind="stable")), dtype
        assert np.array_equal(vksort.sort(a, descending=True), np.sort(a)[::-1]), dtype


def test_out(rng):
    a = data("int64", 1000, rng)
    out = np.empty_like(a)
    r = vksort.sort(a, out=out)
    assert r is out and np.array_equal(out, np.sort(a))
    b = a.copy()
    assert vksort.sort(b, out=b, descending=True) is b
    assert np.array_equal(b, np.sort(a)[::-1])
    h = rng.integers(-100, 100, 999).astype(np.int16)
    out = np.empty_like(h)
    vksort.sort(h, out=out)
    assert np.array_equal(out, np.sort(h))


@pytest.mark.parametrize("vdtype", ["float32", "int64", "int8", "object"])
@pytest.mark.parametrize("kdtype", ["float32", "uint64"])
def test_sort_pairs(kdtype, vdtype, rng):
    k = data(kdtype, 777, rng)
    v = np.arange(777).astype(vdtype)
    k0, v0 = k.copy(), v.copy()
    for descending in (False, True):
        sk, sv = vksort.sort_pairs(k, v, descending=descending)
        p = ref_argsort(k, descending)
        assert same_bits(sk, k[p])
        assert sv.dtype == v.dtype and np.array_equal(sv, v[p])
    assert same_bits(k, k0) and np.array_equal(v, v0)


@pytest.mark.parametrize("algorithm", vksort.algorithms())
def test_algorithms(algorithm, rng):
    a = data("uint32", 1000, rng)
    try:
        s = vksort.sort(a, algorithm=algorithm)
    except (vksort.UnsupportedError, vksort.TooLargeError) as e:
        # an algorithm that cannot take this on this device says so, with the library's message
        assert str(e)
        return
    assert np.array_equal(s, np.sort(a))


def test_gil_released_while_sorting(rng):
    a = rng.random(1 << 20, dtype=np.float32)
    vksort.sort(a[:1000])  # the sorter and its pipelines exist before the timing
    done = threading.Event()
    spans = []

    def work():
        t = time.perf_counter()
        vksort.sort(a)
        spans.append(time.perf_counter() - t)
        done.set()

    th = threading.Thread(target=work)
    ticks = []
    th.start()
    while not done.is_set():
        ticks.append(time.perf_counter())
        time.sleep(0.001)
    th.join()
    (span,) = spans
    gaps = np.diff(ticks) if len(ticks) > 1 else np.array([span])
    # With the GIL held through the native call this thread would stall for the whole sort.
    assert gaps.max() < max(0.5 * span, 0.05), (gaps.max(), span)


def test_beyond_one_binding(rng):
    # More key bytes than one storage-buffer binding holds (the radix sorts then address the keys through
    # buffer device addresses). Slow on lavapipe (its binding is 128 MiB: ~45 s), so there only with
    # VKSORT_PY_LARGE=1; on a GPU whenever its binding is at most 512 MiB.
    import os

    dev = vksort.default_context().device
    n = dev.max_storage_buffer_range // 8 + 5
    if dev.type == "cpu" and os.environ.get("VKSORT_PY_LARGE") != "1":
        pytest.skip("set VKSORT_PY_LARGE=1 to sort more than one binding on a CPU device")
    if n > 1 << 26:
        pytest.skip(f"the binding of {dev.name} holds {dev.max_storage_buffer_range} bytes: too many keys to test")
    a = rng.integers(0, 2**64, n, dtype=np.uint64)
    assert np.array_equal(vksort.sort(a), np.sort(a))
