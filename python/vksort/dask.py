"""``vksort.dask.sort_values``: a Dask DataFrame sorted by Dask, each partition by vksort on its worker.

Dask's own ``DataFrame.sort_values`` samples quantile splitters of the first key column, shuffles the rows
into partitions of disjoint key ranges, and sorts each partition with its ``sort_function``: here
:func:`sort_partition`, :func:`vksort.pandas.sort_values` on the worker's default context (the worker
process's ``VKSORT_DEVICE``, else its best Vulkan device, lavapipe where it has no GPU), made once per
worker process. :func:`use_devices` gives each worker a device of its own (one worker per GPU).
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from . import pandas as _vpd

__all__ = ["sort_values", "sort_partition", "use_devices"]


def _adopt_device(device: Union[int, str]) -> str:
    """On a worker: its default context on ``device`` (set as its ``VKSORT_DEVICE``, made now); its name."""
    import os

    import vksort

    listed = vksort.devices()
    names = [d.name for d in listed]
    if isinstance(device, int):
        if not 0 <= device < len(listed):
            raise vksort.NoDeviceError(f"no Vulkan device {device} on this worker; it has {names}")
        want = listed[device]
    else:
        found = [d for d in listed if str(device).lower() in d.name.lower()]
        if not found:
            raise vksort.NoDeviceError(f"no Vulkan device named like {device!r} on this worker; it has {names}")
        want = found[0]
    os.environ["VKSORT_DEVICE"] = str(device)
    got = vksort.default_context().device
    same = got.index == want.index if None not in (got.index, want.index) else got.name == want.name
    if not same:
        raise vksort.Error(
            f"this worker already sorts on {got.name!r}: use_devices must come before its first sort"
        )
    return got.name


def use_devices(client: Any, devices: Sequence[Union[int, str]]) -> dict:
    """Gives each worker of the ``distributed`` ``client`` a Vulkan device of its own: worker i (in address
    order) sorts on ``devices[i]`` (an index into :func:`vksort.devices` or a name substring), set as its
    ``VKSORT_DEVICE`` and checked by making its default context now. One entry per worker (``ValueError``
    otherwise); a device a worker does not have raises :class:`vksort.NoDeviceError` naming the worker and what
    it has.
    Call it before the workers' first sort. Returns ``{worker address: device name}``."""
    workers = sorted(client.scheduler_info()["workers"])
    if len(devices) != len(workers):
        raise ValueError(f"{len(devices)} devices for {len(workers)} workers: give one per worker")
    out = {}
    for address, device in zip(workers, devices):
        try:
            out[address] = client.run(_adopt_device, device, workers=[address])[address]
        except Exception as e:
            try:
                named = type(e)(f"worker {address}: {e}")
            except TypeError:
                named = RuntimeError(f"worker {address}: {e}")
            raise named from e
    return out


def sort_partition(
    df: Any,
    by: Union[str, Sequence[Any]],
    ascending: Union[bool, Sequence[bool]] = True,
    na_position: str = "last",
    ignore_index: bool = False,
    **kwargs: Any,
) -> Any:
    """One partition sorted by vksort: Dask's ``sort_function`` (called with ``by``, ``ascending``,
    ``na_position`` and ``ignore_index``)."""
    if len(df) <= 1:
        return df.reset_index(drop=True) if ignore_index else df
    return _vpd.sort_values(df, by, ascending, na_position=na_position, ignore_index=bool(ignore_index))


def sort_values(
    ddf: Any,
    by: Union[str, Sequence[str]],
    ascending: Union[bool, Sequence[bool]] = True,
    *,
    na_position: str = "last",
    npartitions: Optional[int] = None,
    ignore_index: bool = False,
    **kwargs: Any,
) -> Any:
    """``ddf.sort_values(by, ...)`` with every partition sorted by vksort on its worker (lazy, like Dask's).

    ``by``, ``ascending``, ``na_position``, ``npartitions``, ``ignore_index`` and any other keyword
    (``upsample``, ``partition_size``, ``shuffle_method``) are Dask's: Dask picks the partitions' key ranges
    by the first column and shuffles; vksort sorts each partition by all of ``by`` (the key columns as
    :func:`vksort.pandas.sort_values` takes them: numeric, bool or datetime, packed into 64 bits).
    """
    return ddf.sort_values(
        by,
        npartitions=npartitions,
        ascending=ascending,
        na_position=na_position,
        sort_function=sort_partition,
        ignore_index=ignore_index,
        **kwargs,
    )
