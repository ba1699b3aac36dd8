"""``vksort.dask.sort_values``: a Dask DataFrame sorted by Dask, each partition by vksort on its worker.

Dask's own ``DataFrame.sort_values`` samples quantile splitters of the first key column, shuffles the rows
into partitions of disjoint key ranges, and sorts each partition with its ``sort_function``: here
:func:`sort_partition`, :func:`vksort.pandas.sort_values` on the worker's default context (the worker
process's ``VKSORT_DEVICE``, else its best Vulkan device, lavapipe where it has no GPU), made once per
worker process.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from . import pandas as _vpd

__all__ = ["sort_values", "sort_partition"]


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
