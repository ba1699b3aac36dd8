from typing import Any, Optional, Sequence, Union

import numpy as np

from ._core import Context

def sort_key(
    df: Any, by: Union[str, Sequence[Any]], ascending: Union[bool, Sequence[bool]] = ..., na_position: str = ...
) -> np.ndarray: ...
def sort_values(
    df: Any,
    by: Union[str, Sequence[Any], None] = ...,
    ascending: Union[bool, Sequence[bool]] = ...,
    *,
    na_position: str = ...,
    ignore_index: bool = ...,
    context: Optional[Context] = ...,
) -> Any: ...
