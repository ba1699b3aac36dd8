"""The CPU reference of vksort's order: keys mapped to unsigned integers in IEEE 754 totalOrder (the library's
src/sort/types.rs `transform`), descending as every bit inverted, then numpy's stable argsort."""

import numpy as np

UNSIGNED = {4: np.uint32, 8: np.uint64}


def ordered_bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    u = UNSIGNED[a.dtype.itemsize]
    top = u(1) << u(8 * a.dtype.itemsize - 1)
    b = a.view(u)
    if a.dtype.kind == "u":
        return b.copy()
    if a.dtype.kind == "i":
        return b ^ top
    neg = (b & top) != 0
    return np.where(neg, ~b, b | top)


def argsort(a: np.ndarray, descending: bool = False) -> np.ndarray:
    k = ordered_bits(a)
    if descending:
        k = ~k
    return np.argsort(k, kind="stable")


def sort(a: np.ndarray, descending: bool = False) -> np.ndarray:
    return np.ascontiguousarray(a)[argsort(a, descending)]


def same_bits(x: np.ndarray, y: np.ndarray) -> bool:
    """Equal element for element, bit for bit (tells -0.0 from +0.0 and NaNs apart)."""
    if x.dtype != y.dtype or x.shape != y.shape:
        return False
    if x.dtype.kind in "f":
        u = UNSIGNED[x.dtype.itemsize]
        return np.array_equal(np.ascontiguousarray(x).view(u), np.ascontiguousarray(y).view(u))
    return np.array_equal(x, y)
