"""The numpy API: contexts, devices, sort, argsort, sort_pairs (re-exported by ``vksort``)."""

from __future__ import annotations

import atexit
import os
import threading
import weakref
from typing import Any, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

from . import _native
from .errors import DTypeError, InvalidArgumentError, TooLargeError

__all__ = [
    "Context",
    "Device",
    "KEY_DTYPES",
    "default_context",
    "devices",
    "sort",
    "argsort",
    "sort_pairs",
]

#: The dtypes the GPU sorts as they are.
KEY_DTYPES: Tuple[np.dtype, ...] = tuple(
    np.dtype(t) for t in ("uint32", "int32", "float32", "uint64", "int64", "float64")
)

# Narrower dtypes sorted as the 32-bit key of the same kind (exact both ways, same order).
_WIDEN = {
    np.dtype("bool"): np.dtype("uint32"),
    np.dtype("uint8"): np.dtype("uint32"),
    np.dtype("uint16"): np.dtype("uint32"),
    np.dtype("int8"): np.dtype("int32"),
    np.dtype("int16"): np.dtype("int32"),
    np.dtype("float16"): np.dtype("float32"),
}

_CONTRACT = """
    Keys: uint32, int32, float32, uint64, int64, float64 (bool, int8, int16, uint8, uint16 and float16 are
    sorted as the 32-bit key of their kind, exactly); any 1-D array, contiguous or strided (copied to a
    contiguous buffer where needed), lists too; 0 and 1 elements. Anything else raises: a dtype it does not
    sort (object, str, complex, datetime64, ...) :class:`vksort.DTypeError` (a ``TypeError``), 0-D or 2-D
    input :class:`vksort.InvalidArgumentError` (a ``ValueError``), more keys than the device holds
    :class:`vksort.TooLargeError` naming the limit.

    Float order: vksort orders floats by IEEE 754 totalOrder, ``-NaN < -inf < ... < -0.0 < +0.0 < ... <
    +inf < +NaN``. numpy's ``sort`` puts every NaN last whatever its sign and keeps ``-0.0`` and ``+0.0`` in
    input order (they compare equal). So the two agree on every array without negative NaNs and without
    both zeros; ``np.nan`` is a positive NaN (last ascending, first descending), ``-np.nan`` a negative one
    (first ascending). Descending is the exact reverse order of the keys, and stable: equal keys keep their
    input order (unlike ``np.sort(a)[::-1]``).

    The GIL is released while the GPU works (upload, sort, download); other Python threads run meanwhile.
"""


class Device(NamedTuple):
    """A Vulkan device as ``vksort.devices()`` lists it."""

    index: Optional[int]
    name: str
    type: str
    vendor: str
    driver: str
    vulkan: str
    device_local_bytes: int
    max_storage_buffer_range: int
    buffer_device_address: bool
    subgroup_size: int


def devices() -> list:
    """Every Vulkan device of this machine, in the order ``device=`` and ``VKSORT_DEVICE`` index.

    Returns a list of :class:`vksort.Device` (index, name, type, vendor, driver, Vulkan version, device-local
    memory, largest storage-buffer binding, buffer device address, subgroup size). Raises
    :class:`vksort.NoDeviceError` when no Vulkan loader is installed.
    """
    return [Device(**d) for d in _native.devices()]


_contexts: "weakref.WeakSet[Context]" = weakref.WeakSet()


class Context:
    """A Vulkan device with vksort's pipelines, made once and reused by every sort on it.

    ``device``: an index into :func:`vksort.devices` or a substring of a device's name; ``None`` takes
    ``VKSORT_DEVICE`` when set, else the best device (discrete, integrated, virtual, then CPU: lavapipe
    where there is no GPU). ``validation``: the Khronos validation layer (``None``: on with
    ``VKSORT_VALIDATION=1``). ``pipeline_cache``: load the compiled pipelines from the cache file the ``vksort``
    command line keeps (``$VKSORT_PIPELINE_CACHE_DIR``, else ``$VKSORT_CACHE_DIR/pipelines``, else
    ``~/.cache/vksort/pipelines``; ``VKSORT_PIPELINE_CACHE_DIR=off`` turns it off) and write it back when new
    pipelines were built and at exit.

    The module functions (:func:`vksort.sort`, ...) use :func:`vksort.default_context` unless given
    ``context=``. A context is safe to share between threads. Raises :class:`vksort.NoDeviceError` when no
    device matches.
    """

    def __init__(
        self,
        device: Union[int, str, None] = None,
        *,
        validation: Optional[bool] = None,
        pipeline_cache: bool = True,
    ) -> None:
        if device is not None and (isinstance(device, bool) or not isinstance(device, (int, str))):
            raise InvalidArgumentError(
                f"device must be an index (int) or a name substring (str), not {type(device).__name__}"
            )
        self._native = _native.Context(device, validation=validation, pipeline_cache=pipeline_cache)
        self._pid = os.getpid()
        _contexts.add(self)

    @property
    def device(self) -> Device:
        """The context's device (:class:`vksort.Device`; ``index`` is None)."""
        return Device(**self._native.device)

    @property
    def pipeline_cache_path(self) -> Optional[str]:
        """The pipeline-cache file of this device, or None when the cache is off."""
        return self._native.pipeline_cache_path

    def save_pipeline_cache(self) -> Optional[int]:
        """Writes the pipeline cache back when it changed; returns the bytes written (None: unchanged)."""
        return self._native.save_pipeline_cache()

    def take_validation_errors(self) -> list:
        """The validation layer's messages since the last call (always empty without validation)."""
        return self._native.take_validation_errors()

    def __repr__(self) -> str:
        d = self._native.device
        return f"vksort.Context({d['name']!r}, {d['driver']!r})"

    def sort(self, a: Any, *, descending: bool = False, algorithm: str = "auto", out: Any = None) -> np.ndarray:
        """:func:`vksort.sort` on this context."""
        return sort(a, descending=descending, algorithm=algorithm, out=out, context=self)

    def argsort(self, a: Any, *, descending: bool = False) -> np.ndarray:
        """:func:`vksort.argsort` on this context."""
        return argsort(a, descending=descending, context=self)

    def sort_pairs(self, keys: Any, values: Any, *, descending: bool = False) -> Tuple[np.ndarray, np.ndarray]:
        """:func:`vksort.sort_pairs` on this context."""
        return sort_pairs(keys, values, descending=descending, context=self)

    # The checks of what the device holds, before anything is copied.
    def _check_size(self, n: int, key_bytes: int, value_bytes: int) -> None:
        d = self._native.device
        # Keys and values on the device, and scratch of about as much again (the radix sorts' ping-pong).
        need = 2 * n * (key_bytes + value_bytes)
        if need > d["device_local_bytes"]:
            raise TooLargeError(
                f"{n} keys of {key_bytes} bytes"
                + (f" with {value_bytes}-byte values" if value_bytes else "")
                + f" need about {need} bytes of device memory; {d['name']} has {d['device_local_bytes']}"
                " (device_local_bytes): sort fewer at a time (vksort.dask.sort_values splits the data)"
            )


_default: Optional[Context] = None
_default_lock = threading.Lock()


def default_context() -> Context:
    """The context of the module functions: made at the first call, once per process (a forked child makes
    its own), on ``VKSORT_DEVICE`` when set, else on the best device."""
    global _default
    with _default_lock:
        if _default is None or _default._pid != os.getpid():
            _default = Context()
        return _default


@atexit.register
def _save_pipeline_caches() -> None:
    for ctx in list(_contexts):
        if ctx._pid == os.getpid():
            try:
                ctx.save_pipeline_cache()
            except Exception:  # pragma: no cover - a cache not written costs the next start only
                pass


def _context(context: Optional[Context]) -> Context:
    if context is None:
        return default_context()
    if not isinstance(context, Context):
        raise InvalidArgumentError(f"context must be a vksort.Context, not {type(context).__name__}")
    return context


def _keys(a: Any, what: str = "keys") -> np.ndarray:
    """``a`` as a 1-D numpy array of a dtype vksort sorts (widened or not), unchanged where possible."""
    if not isinstance(a, np.ndarray):
        if isinstance(a, (str, bytes)) or a is None:
            raise DTypeError(f"{what}: expected a 1-D numeric array, got {type(a).__name__}")
        try:
            a = np.asarray(a)
        except Exception as e:  # ragged lists and the like
            raise InvalidArgumentError(f"{what}: cannot make an array of it ({e})") from None
    if a.ndim != 1:
        raise InvalidArgumentError(
            f"{what}: expected a 1-D array, got {a.ndim}-D of shape {a.shape} (flatten it, or sort per row)"
        )
    dt = a.dtype if a.dtype.isnative else a.dtype.newbyteorder("=")
    if dt not in KEY_DTYPES and dt not in _WIDEN:
        raise DTypeError(
            f"{what}: vksort does not sort dtype {a.dtype} (it sorts uint32, int32, float32, uint64, int64, "
            "float64, and bool, int8, int16, uint8, uint16, float16 widened)"
        )
    return a


def _work_dtype(dt: np.dtype) -> np.dtype:
    dt = dt if dt.isnative else dt.newbyteorder("=")
    return _WIDEN.get(dt, dt)


def _sort_in_place(ctx: Context, keys: np.ndarray, values: Optional[np.ndarray], descending: bool, algorithm: str):
    if not isinstance(algorithm, str):
        raise InvalidArgumentError(f"algorithm must be a name (str), not {type(algorithm).__name__}")
    return ctx._native.sort_inplace(keys, values, descending=bool(descending), algorithm=algorithm)


def sort(
    a: Any,
    *,
    descending: bool = False,
    algorithm: str = "auto",
    out: Optional[np.ndarray] = None,
    context: Optional[Context] = None,
) -> np.ndarray:
    """A sorted copy of the 1-D array ``a``, sorted on the GPU.

    ``descending``: largest first. ``algorithm``: ``"auto"`` (the device's choice per size, stable) or one
    of :func:`vksort.algorithms` (``"onesweep"``, ``"merge"``, ``"bitonic"``, ...; an algorithm that cannot
    take the dtype or the size raises :class:`vksort.UnsupportedError` or :class:`vksort.TooLargeError`).
    ``out``: a C-contiguous writable 1-D array of ``a``'s dtype and length to write the result to (``out=a``
    sorts in place); it is returned. ``context``: a :class:`vksort.Context` (default:
    :func:`vksort.default_context`).
    """
    ctx = _context(context)
    keys = _keys(a)
    n = keys.shape[0]
    work = _work_dtype(keys.dtype)
    ctx._check_size(n, work.itemsize, 0)
    if not isinstance(algorithm, str):
        raise InvalidArgumentError(f"algorithm must be a name (str), not {type(algorithm).__name__}")
    # Contiguous native keys go up as they are, the result comes down into a new array (or out=)
    direct = work == keys.dtype and keys.flags.c_contiguous
    if out is not None:
        if not isinstance(out, np.ndarray):
            raise InvalidArgumentError(f"out must be a numpy array, not {type(out).__name__}")
        if out.shape != (n,) or out.dtype != keys.dtype:
            raise InvalidArgumentError(
                f"out must have shape ({n},) and dtype {keys.dtype}, has {out.shape} and {out.dtype}"
            )
        if not (out.flags.c_contiguous and out.flags.writeable):
            raise InvalidArgumentError("out must be C-contiguous and writeable")
        if work == out.dtype:
            if direct and not np.may_share_memory(keys, out):
                ctx._native.sort_copy(keys, out, descending=bool(descending), algorithm=algorithm)
                return out
            if out is not keys:
                np.copyto(out, keys)
            _sort_in_place(ctx, out, None, descending, algorithm)
            return out
        buf = np.array(keys, dtype=work, order="C", copy=True)
        _sort_in_place(ctx, buf, None, descending, algorithm)
        out[...] = buf
        return out
    if direct:
        res = np.empty(n, dtype=work)
        ctx._native.sort_copy(keys, res, descending=bool(descending), algorithm=algorithm)
        return res
    buf = np.array(keys, dtype=work, order="C", copy=True)
    _sort_in_place(ctx, buf, None, descending, algorithm)
    if work != keys.dtype:
        return buf.astype(keys.dtype)
    return buf


def _index_dtypes(n: int) -> Tuple[type, type]:
    """The index words of an argsort of ``n`` keys and the dtype returned: uint32 words (returned as int32)
    below 2**31 keys, else uint64 (int64); the library carries 4- or 8-byte values."""
    return (np.uint32, np.int32) if n < 2**31 else (np.uint64, np.int64)


def argsort(a: Any, *, descending: bool = False, context: Optional[Context] = None) -> np.ndarray:
    """The indices that sort the 1-D array ``a``, stably (``a[argsort(a)]`` is ``sort(a)``), from the GPU.

    Stable in both orders: equal keys keep their input order, descending too (so ``argsort(a,
    descending=True)`` is not ``np.argsort(a)[::-1]``). The indices are ``int32`` below 2**31 keys and
    ``int64`` from 2**31 on. The GPU sorts (key, index) pairs.
    """
    ctx = _context(context)
    keys = _keys(a)
    n = keys.shape[0]
    work = _work_dtype(keys.dtype)
    word, idx_dtype = _index_dtypes(n)
    ctx._check_size(n, work.itemsize, np.dtype(word).itemsize)
    idx = np.arange(n, dtype=word)
    buf = np.array(keys, dtype=work, order="C", copy=True)
    _sort_in_place(ctx, buf, idx, descending, "auto")
    return idx.view(idx_dtype)


def sort_pairs(
    keys: Any,
    values: Any,
    *,
    descending: bool = False,
    context: Optional[Context] = None,
) -> Tuple[np.ndarray, np.ndarray]:
    """``(sorted keys, values in the keys' order)``, stably, on the GPU; the inputs are not changed.

    ``values``: a 1-D array of the keys' length, of any dtype. Values of 4 or 8 bytes travel with the keys on
    the GPU; others (and object arrays) are gathered by the stable :func:`vksort.argsort` of the keys.
    """
    ctx = _context(context)
    k = _keys(keys)
    n = k.shape[0]
    if not isinstance(values, np.ndarray):
        try:
            values = np.asarray(values)
        except Exception as e:
            raise InvalidArgumentError(f"values: cannot make an array of it ({e})") from None
    if values.ndim != 1 or values.shape[0] != n:
        raise InvalidArgumentError(f"values must be 1-D with the keys' length {n}, has shape {values.shape}")
    work = _work_dtype(k.dtype)
    vd = values.dtype
    if vd.itemsize in (4, 8) and not vd.hasobject and vd.fields is None and vd.subdtype is None:
        word = np.dtype(np.uint32 if vd.itemsize == 4 else np.uint64)
        ctx._check_size(n, work.itemsize, vd.itemsize)
        kbuf = np.array(k, dtype=work, order="C", copy=True)
        vbuf = np.array(values, order="C", copy=True)
        _sort_in_place(ctx, kbuf, vbuf.view(word), descending, "auto")
        return (kbuf.astype(k.dtype) if work != k.dtype else kbuf), vbuf
    perm = argsort(k, descending=descending, context=ctx)
    return np.asarray(k)[perm], values[perm]
