"""vksort: GPU sort, argsort and pandas/Dask ``sort_values`` through Vulkan compute, on any Vulkan 1.2
device (AMD, Intel, NVIDIA, Apple through MoltenVK, or lavapipe, Mesa's CPU driver, where there is no GPU).

>>> import numpy as np, vksort
>>> vksort.sort(np.array([3.5, -1.0, 2.25], dtype=np.float32))
array([-1.  ,  2.25,  3.5 ], dtype=float32)
>>> vksort.argsort(np.array([2, 1, 2, 0]), descending=True)
array([0, 2, 1, 3], dtype=int32)

numpy: :func:`sort`, :func:`argsort`, :func:`sort_pairs` (on :func:`default_context`, or ``context=`` a
:class:`Context`), :func:`devices`. pandas: :func:`vksort.pandas.sort_values`. Dask:
:func:`vksort.dask.sort_values`. Exceptions: :mod:`vksort.errors` (all derive from :class:`Error`).

Environment: ``VKSORT_DEVICE`` (index or name substring) picks the default context's device,
``VKSORT_VALIDATION=1`` turns on the validation layer, ``VKSORT_PIPELINE_CACHE_DIR`` moves (or, ``off``, turns
off) the pipeline cache the ``vksort`` command line shares.
"""

from . import errors
from ._core import (
    KEY_DTYPES,
    Context,
    Device,
    _CONTRACT,
    argsort,
    default_context,
    devices,
    sort,
    sort_pairs,
)
from ._native import __version__, algorithm_is_stable
from ._native import algorithms as _algorithms
from .errors import (
    DeviceError,
    DTypeError,
    Error,
    InvalidArgumentError,
    NoDeviceError,
    OutOfDeviceMemoryError,
    TooLargeError,
    UnsupportedError,
)


def algorithms() -> list:
    """The names ``algorithm=`` takes, ``"auto"`` first (``algorithm_is_stable(name)`` says which are stable)."""
    return list(_algorithms())


# help(vksort.sort) tells the whole contract.
for _f in (sort, argsort, sort_pairs):
    _f.__doc__ = (_f.__doc__ or "") + _CONTRACT
del _f

__all__ = [
    "__version__",
    "Context",
    "Device",
    "KEY_DTYPES",
    "algorithms",
    "algorithm_is_stable",
    "argsort",
    "default_context",
    "devices",
    "errors",
    "sort",
    "sort_pairs",
    "Error",
    "InvalidArgumentError",
    "DTypeError",
    "TooLargeError",
    "OutOfDeviceMemoryError",
    "UnsupportedError",
    "NoDeviceError",
    "DeviceError",
]
