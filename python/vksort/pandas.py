"""``vksort.pandas.sort_values``: a pandas DataFrame (or Series) sorted by numeric columns on the GPU.

The key columns become one unsigned key per row: each column mapped to bits that order like it (signed
integers offset, floats in total order with ``-0.0`` made ``+0.0`` and NaN set apart, datetimes as their
int64), less its minimum (so a column takes only the bits of its range), inverted where descending, one more
value for NA where it has any; the columns' fields packed most significant first into one uint32 or uint64
key, which :func:`vksort.argsort` sorts stably. The result is the frame's rows in that order: the same as
``df.sort_values(by, ascending=..., kind="stable", na_position=...)``.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _core
from .errors import DTypeError, InvalidArgumentError

__all__ = ["sort_values", "sort_key"]

_U64 = np.uint64


def _raw_column(col: Any, name: Any) -> Tuple[np.ndarray, Optional[np.ndarray], str]:
    """The column's values as a numpy array of a plain kind ('b', 'i', 'u', 'f'), its NA mask (None: no NA),
    and the kind."""
    import pandas as pd

    dtype = col.dtype
    mask = None
    if isinstance(dtype, np.dtype):
        values = col.to_numpy()
        kind = dtype.kind
        if kind in "mM":
            mask = np.isnat(values)
            values = values.view(np.int64)
            kind = "i"
        elif kind == "f":
            mask = np.isnan(values)
        elif kind not in "biu":
            raise DTypeError(f"column {name!r}: vksort sorts numeric, bool and datetime columns, not {dtype}")
    elif pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_numeric_dtype(dtype):
        # pandas' nullable dtypes (Int64, Float32, boolean, ...): their NA mask, then plain values.
        mask = np.asarray(col.isna(), dtype=bool)
        base = getattr(dtype, "numpy_dtype", None)
        if base is None or base.kind not in "biuf":
            raise DTypeError(f"column {name!r}: vksort cannot sort dtype {dtype}")
        values = col.to_numpy(dtype=base, na_value=0)
        kind = base.kind
        if kind == "f":
            mask |= np.isnan(values)
    else:
        raise DTypeError(
            f"column {name!r}: vksort sorts numeric, bool and datetime columns, not {dtype}"
            " (sort such columns with pandas, or by their codes)"
        )
    if mask is not None and not mask.any():
        mask = None
    return values, mask, kind


def _ordered_bits(values: np.ndarray, kind: str) -> np.ndarray:
    """uint64 bits that order like ``values`` (floats by total order, after -0.0 -> +0.0)."""
    if kind == "b":
        return values.astype(_U64)
    if kind == "u":
        return values.astype(_U64)
    if kind == "i":
        return values.astype(np.int64).view(_U64) ^ _U64(1 << 63)
    # floats: +0.0 for -0.0 (pandas holds them equal), then IEEE total order on the bits, in the float's own
    # width (float16 as float32): a float32 column takes at most 32 bits of the key
    wide = values.dtype.itemsize > 4
    ft, ut = (np.float64, _U64) if wide else (np.float32, np.uint32)
    b = (values.astype(ft) + ft(0.0)).view(ut)
    top = ut(1) << ut(63 if wide else 31)
    return np.where((b & top) != 0, ~b, b | top).astype(_U64)


def _column_field(col: Any, name: Any, ascending: bool, na_position: str) -> Tuple[np.ndarray, int]:
    """The column's field of the packed key: uint64 values below ``2**bits``, and ``bits``."""
    values, mask, kind = _raw_column(col, name)
    if kind == "f" and mask is not None:
        values = np.where(mask, 0.0, values)
    t = _ordered_bits(values, kind)
    valid = t if mask is None else t[~mask]
    if valid.size == 0:
        lo, span = _U64(0), 0
    else:
        lo = valid.min()
        span = int(valid.max() - lo)
    u = t - lo
    if not ascending:
        u = _U64(span) - u
    if mask is not None:
        if na_position == "last":
            u = np.where(mask, _U64(span + 1) if valid.size else _U64(0), u)
        else:
            u = np.where(mask, _U64(0), u + _U64(1))
        span += 1 if valid.size else 0
    return u.astype(_U64, copy=False), span.bit_length()


def sort_key(
    df: Any,
    by: Union[str, Sequence[Any]],
    ascending: Union[bool, Sequence[bool]] = True,
    na_position: str = "last",
) -> np.ndarray:
    """The packed key of :func:`sort_values` (uint32 where it fits, else uint64): ascending order of the key
    is the frame's sort order. Raises :class:`vksort.InvalidArgumentError` when the columns need more than 64
    bits together, :class:`vksort.DTypeError` for a column that is not numeric, bool or datetime."""
    import pandas as pd

    if isinstance(df, pd.Series):
        cols: List[Any] = [df]
        names: List[Any] = [df.name]
    else:
        names = [by] if isinstance(by, (str, int, float, tuple)) or by is None else list(by)
        if not names:
            raise InvalidArgumentError("by names no column")
        missing = [b for b in names if b not in df.columns]
        if missing:
            raise InvalidArgumentError(f"no column {missing[0]!r} (columns: {list(df.columns)})")
        cols = [df[b] for b in names]
        for b, c in zip(names, cols):
            if isinstance(c, pd.DataFrame):
                raise InvalidArgumentError(f"column label {b!r} is not unique")
    if isinstance(ascending, (bool, np.bool_)):
        asc = [bool(ascending)] * len(cols)
    else:
        asc = [bool(x) for x in ascending]
        if len(asc) != len(cols):
            raise InvalidArgumentError(f"{len(asc)} ascending flags for {len(cols)} columns")
    if na_position not in ("first", "last"):
        raise InvalidArgumentError(f"na_position must be 'first' or 'last', not {na_position!r}")
    fields = [_column_field(c, b, a, na_position) for c, b, a in zip(cols, names, asc)]
    total = sum(bits for _, bits in fields)
    if total > 64:
        widths = ", ".join(f"{b!r}: {bits}" for b, (_, bits) in zip(names, fields))
        raise InvalidArgumentError(
            f"the key columns need {total} bits together ({widths}; a column takes the bits of its range, "
            "one more with NA), more than one 64-bit key: sort by fewer or narrower columns"
        )
    key = np.zeros(len(cols[0]), dtype=_U64)
    for u, bits in fields:
        if bits:
            key = (key << _U64(bits)) | u
    return key.astype(np.uint32) if total <= 32 else key


def sort_values(
    df: Any,
    by: Union[str, Sequence[Any], None] = None,
    ascending: Union[bool, Sequence[bool]] = True,
    *,
    na_position: str = "last",
    ignore_index: bool = False,
    context: Optional["_core.Context"] = None,
) -> Any:
    """``df`` sorted by the column(s) ``by`` on the GPU, stably: ``df.sort_values(by, ascending=ascending,
    kind="stable", na_position=na_position, ignore_index=ignore_index)``.

    ``df``: a DataFrame (or a Series, ``by`` then unused). ``by``: a column label or a list of them, each
    numeric (int, uint, float, of any width, pandas' nullable ones too), bool, datetime64 or timedelta64.
    Several columns are packed into one key where their widths fit 64 bits (a column takes the bits of its
    range, max - min, plus one where it has NA; a float column mostly all of its bits); otherwise
    :class:`vksort.InvalidArgumentError` says how many bits each needs. ``ascending``: one flag or one per
    column. NaN, None, NA and NaT go ``na_position`` (``"last"`` or ``"first"``) whatever the order; ``-0.0``
    and ``+0.0`` are equal (as pandas holds them). The row order is computed on the GPU
    (:func:`vksort.argsort` of the packed key); the rows are gathered by pandas (``df.take``).
    """
    key = sort_key(df, by, ascending, na_position)
    perm = _core.argsort(key, context=context)
    out = df.take(perm)
    if ignore_index:
        out = out.reset_index(drop=True)
    return out
