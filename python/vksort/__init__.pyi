# Type stubs of vksort (the docstrings live in the modules).
from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

from . import errors as errors
from .errors import DeviceError as DeviceError
from .errors import DTypeError as DTypeError
from .errors import Error as Error
from .errors import InvalidArgumentError as InvalidArgumentError
from .errors import NoDeviceError as NoDeviceError
from .errors import OutOfDeviceMemoryError as OutOfDeviceMemoryError
from .errors import TooLargeError as TooLargeError
from .errors import UnsupportedError as UnsupportedError
from ._core import Context as Context
from ._core import Device as Device

__version__: str
KEY_DTYPES: Tuple[np.dtype, ...]

def devices() -> List[Device]: ...
def default_context() -> Context: ...
def algorithms() -> List[str]: ...
def algorithm_is_stable(name: str) -> bool: ...
def sort(
    a: npt.ArrayLike,
    *,
    descending: bool = ...,
    algorithm: str = ...,
    out: Optional[np.ndarray] = ...,
    context: Optional[Context] = ...,
) -> np.ndarray: ...
def argsort(
    a: npt.ArrayLike, *, descending: bool = ..., context: Optional[Context] = ...
) -> npt.NDArray[Union[np.int32, np.int64]]: ...
def sort_pairs(
    keys: npt.ArrayLike,
    values: npt.ArrayLike,
    *,
    descending: bool = ...,
    context: Optional[Context] = ...,
) -> Tuple[np.ndarray, np.ndarray]: ...
