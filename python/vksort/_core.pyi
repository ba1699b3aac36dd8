from typing import List, NamedTuple, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

KEY_DTYPES: Tuple[np.dtype, ...]

class Device(NamedTuple):
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

class Context:
    def __init__(
        self,
        device: Union[int, str, None] = ...,
        *,
        validation: Optional[bool] = ...,
        pipeline_cache: bool = ...,
    ) -> None: ...
    @property
    def device(self) -> Device: ...
    @property
    def pipeline_cache_path(self) -> Optional[str]: ...
    def save_pipeline_cache(self) -> Optional[int]: ...
    def take_validation_errors(self) -> List[str]: ...
    def sort(
        self,
        a: npt.ArrayLike,
        *,
        descending: bool = ...,
        algorithm: str = ...,
        out: Optional[np.ndarray] = ...,
    ) -> np.ndarray: ...
    def argsort(self, a: npt.ArrayLike, *, descending: bool = ...) -> np.ndarray: ...
    def sort_pairs(
        self, keys: npt.ArrayLike, values: npt.ArrayLike, *, descending: bool = ...
    ) -> Tuple[np.ndarray, np.ndarray]: ...

def devices() -> List[Device]: ...
def default_context() -> Context: ...
def sort(
    a: npt.ArrayLike,
    *,
    descending: bool = ...,
    algorithm: str = ...,
    out: Optional[np.ndarray] = ...,
    context: Optional[Context] = ...,
) -> np.ndarray: ...
def argsort(a: npt.ArrayLike, *, descending: bool = ..., context: Optional[Context] = ...) -> np.ndarray: ...
def sort_pairs(
    keys: npt.ArrayLike, values: npt.ArrayLike, *, descending: bool = ..., context: Optional[Context] = ...
) -> Tuple[np.ndarray, np.ndarray]: ...
