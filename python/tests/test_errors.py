"""Every bad input gives a Python exception of vksort's hierarchy (never a crash), with a message that says
what is wrong; the context and module basics."""

import numpy as np
import pytest

import vksort
from vksort import _native


def test_version_and_exports():
    assert isinstance(vksort.__version__, str) and vksort.__version__.count(".") == 2
    assert vksort.algorithms()[0] == "auto"
    assert vksort.algorithm_is_stable("onesweep") and not vksort.algorithm_is_stable("bitonic")
    for name in ["InvalidArgumentError", "DTypeError", "TooLargeError", "OutOfDeviceMemoryError",
                 "UnsupportedError", "NoDeviceError", "DeviceError"]:
        assert issubclass(getattr(vksort, name), vksort.Error)
    assert issubclass(vksort.DTypeError, TypeError)
    assert issubclass(vksort.InvalidArgumentError, ValueError)
    assert issubclass(vksort.TooLargeError, ValueError)
    assert "totalOrder" in vksort.sort.__doc__ and "GIL" in vksort.argsort.__doc__


def test_devices_and_contexts():
    devs = vksort.devices()
    assert devs and all(isinstance(d, vksort.Device) for d in devs)
    assert [d.index for d in devs] == list(range(len(devs)))
    ctx = vksort.default_context()
    assert ctx is vksort.default_context(), "one default context per process"
    assert ctx.device.name in [d.name for d in devs]
    # a context of its own, on the default context's device by index and by name
    i = [d.name for d in devs].index(ctx.device.name)
    for dev in (i, ctx.device.name[:6]):
        c = vksort.Context(dev, pipeline_cache=False)
        assert c.pipeline_cache_path is None
        assert np.array_equal(c.sort(np.array([3, 1, 2], np.uint32)), [1, 2, 3])
        assert np.array_equal(vksort.argsort([5.0, 4.0], context=c), [1, 0])
        assert not c.take_validation_errors()
    assert "vksort.Context(" in repr(ctx)


def test_pipeline_cache_file(tmp_path, monkeypatch):
    monkeypatch.setenv("VKSORT_PIPELINE_CACHE_DIR", str(tmp_path))
    c = vksort.Context()
    assert c.pipeline_cache_path.startswith(str(tmp_path))
    c.sort(np.arange(100, dtype=np.int64)[::-1])
    assert list(tmp_path.iterdir()), "the pipelines built were saved"
    c2 = vksort.Context()
    assert any("hit" in n for n in c2._native.pipeline_cache_notes)
    monkeypatch.setenv("VKSORT_PIPELINE_CACHE_DIR", "off")
    assert vksort.Context().pipeline_cache_path is None


@pytest.mark.parametrize(
    "bad",
    [
        np.array(["b", "a"]),
        np.array([b"b", b"a"]),
        np.array([object(), object()], dtype=object),
        np.array([1 + 2j, 3j]),
        np.array(["2020-01-01"], dtype="datetime64[D]"),
        np.zeros(3, dtype=[("x", "i4"), ("y", "f4")]),
        "not an array",
        None,
        ["a", "b"],
    ],
    ids=["str", "bytes", "object", "complex", "datetime", "structured", "text", "none", "list-of-str"],
)
def test_wrong_dtype(bad):
    for f in (vksort.sort, vksort.argsort):
        with pytest.raises(vksort.DTypeError) as e:
            f(bad)
        assert "dtype" in str(e.value) or "numeric" in str(e.value)
    with pytest.raises(vksort.DTypeError):
        vksort.sort_pairs(bad, np.arange(len(bad)) if isinstance(bad, (np.ndarray, list)) else [1])


@pytest.mark.parametrize(
    "bad",
    [np.zeros((3, 4), np.float32), np.zeros((2, 2, 2), np.uint32), np.array(5, np.int32), 7, [[1, 2], [3]]],
    ids=["2-D", "3-D", "0-D", "scalar", "ragged"],
)
def test_wrong_shape(bad):
    for f in (vksort.sort, vksort.argsort):
        with pytest.raises(vksort.InvalidArgumentError):
            f(bad)


def test_too_large():
    # 2**40 keys as a zero-stride view: refused before anything is copied, naming the device's limit
    huge = np.lib.stride_tricks.as_strided(np.zeros(1, np.float32), shape=(2**40,), strides=(0,))
    for f in (vksort.sort, vksort.argsort):
        with pytest.raises(vksort.TooLargeError, match="device_local_bytes"):
            f(huge)
    # an algorithm's own limit, from the library (the small sort holds far fewer than 2**20 keys on any
    # device: its shared memory)
    with pytest.raises(vksort.TooLargeError, match="at most"):
        vksort.sort(np.arange(1 << 20, dtype=np.uint32), algorithm="small")


def test_bad_arguments():
    a = np.arange(10, dtype=np.int32)
    with pytest.raises(vksort.InvalidArgumentError, match="unknown algorithm"):
        vksort.sort(a, algorithm="fastest")
    with pytest.raises(vksort.InvalidArgumentError):
        vksort.sort(a, algorithm=3)
    for out in (np.empty(9, np.int32), np.empty(10, np.int64), np.empty(20, np.int32)[::2], [0] * 10):
        with pytest.raises(vksort.InvalidArgumentError, match="out"):
            vksort.sort(a, out=out)
    ro = np.empty(10, np.int32)
    ro.flags.writeable = False
    with pytest.raises(vksort.InvalidArgumentError):
        vksort.sort(a, out=ro)
    with pytest.raises(vksort.InvalidArgumentError, match="length"):
        vksort.sort_pairs(a, np.arange(9))
    with pytest.raises(vksort.InvalidArgumentError):
        vksort.sort(a, context="gpu0")


def test_bad_devices():
    with pytest.raises(vksort.NoDeviceError):
        vksort.Context("no such device anywhere")
    with pytest.raises(vksort.NoDeviceError):
        vksort.Context(99)
    with pytest.raises(vksort.InvalidArgumentError):
        vksort.Context(1.5)


def test_native_layer_refuses_without_crashing():
    ctx = vksort.default_context()._native
    keys = np.arange(10, dtype=np.uint32)[::-1].copy()
    with pytest.raises(TypeError):
        ctx.sort_inplace(np.arange(10, dtype=np.int16))
    with pytest.raises(TypeError):
        ctx.sort_inplace([3, 2, 1])
    with pytest.raises(TypeError):
        ctx.sort_inplace(np.zeros((2, 2), np.uint32))
    with pytest.raises(vksort.InvalidArgumentError):
        ctx.sort_inplace(np.arange(20, dtype=np.uint32)[::2])  # not contiguous
    ro = keys.copy()
    ro.flags.writeable = False
    with pytest.raises(vksort.InvalidArgumentError):
        ctx.sort_inplace(ro)
    with pytest.raises(vksort.InvalidArgumentError):
        ctx.sort_inplace(keys, keys)  # the same array as keys and values
    with pytest.raises(vksort.InvalidArgumentError):
        ctx.sort_inplace(keys, np.arange(9, dtype=np.uint32))
    with pytest.raises(TypeError):
        ctx.sort_inplace(keys, np.arange(10, dtype=np.float32))
    ctx.sort_inplace(keys)
    assert np.array_equal(keys, np.arange(10))
    src = np.arange(10, dtype=np.int64)[::-1].copy()
    with pytest.raises(TypeError):
        ctx.sort_copy(src, np.empty(10, np.float64))
    with pytest.raises(vksort.InvalidArgumentError):
        ctx.sort_copy(src, np.empty(11, np.int64))
    with pytest.raises(vksort.InvalidArgumentError):
        ctx.sort_copy(src, src)  # the input as its own output
    out = np.empty(10, np.int64)
    ctx.sort_copy(src, out)
    assert np.array_equal(out, np.arange(10)) and src[0] == 9


def test_read_only_input():
    a = np.arange(1000, dtype=np.float32)[::-1].copy()
    a.flags.writeable = False
    assert np.array_equal(vksort.sort(a), np.arange(1000))
    assert np.array_equal(vksort.argsort(a), np.arange(1000)[::-1])


def test_module_doctests():
    import doctest

    r = doctest.testmod(vksort, verbose=False)
    assert r.attempted >= 3 and r.failed == 0
